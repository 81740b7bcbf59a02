"""Parse errors mimic V8's JSON.parse messages (upstream sends them verbatim)."""

from __future__ import annotations

import pytest

from pi_rpc.modes.wire.jsonparse import ParseFailure, parse_record, v8_json_error


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        # observed from upstream pi 1.6.0 (tests/fixtures/pi-oracle/g_bad_input excerpt)
        (b"", "Unexpected end of JSON input"),
        (b"   ", "Unexpected end of JSON input"),
        (b"{not json", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
        # documented in the protocol reference §1.6
        (b"not json", "Unexpected token 'o', \"not json\" is not valid JSON"),
        # V8 message templates
        (b'{"a":1,}', "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"),
        (b'{"a" 1}', "Expected ':' after property name in JSON at position 5 (line 1 column 6)"),
        (b'{"a":1 "b":2}', "Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)"),
        (b"[1 2]", "Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)"),
        (b'"abc', "Unterminated string in JSON at position 4 (line 1 column 5)"),
        (b"-", "No number after minus sign in JSON at position 1 (line 1 column 2)"),
        (b"1.", "Unterminated fractional number in JSON at position 2 (line 1 column 3)"),
        (b"1e", "Exponent part is missing a number in JSON at position 2 (line 1 column 3)"),
        (b'{"a":1} x', "Unexpected non-whitespace character after JSON at position 8 (line 1 column 9)"),
        (b'{"a":"\\x"}', "Bad escaped character in JSON at position 7 (line 1 column 8)"),
        (b'{"a":"\\u12G4"}', "Bad Unicode escape in JSON at position 10 (line 1 column 11)"),
        (b'{"a":"\x01"}', "Bad control character in string literal in JSON at position 6 (line 1 column 7)"),
        (b"tru", "Unexpected end of JSON input"),
        (b"undefined", '"undefined" is not valid JSON'),
        (b"[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
        (
            b'{"type":"get_state","x":@}',
            'Unexpected token \'@\', ..."tate","x":@}" is not valid JSON',
        ),
        (
            b'@{"type":"get_state","x":1}',
            'Unexpected token \'@\', "@{"type":""... is not valid JSON',
        ),
        (
            b'{"type":"get_state","x":@,"yyyyyyyyyyy":1}',
            'Unexpected token \'@\', ..."tate","x":@,"yyyyyyy"... is not valid JSON',
        ),
    ],
)
def test_v8_messages(raw: bytes, message: str) -> None:
    result = parse_record(raw)
    assert isinstance(result, ParseFailure)
    assert result.message == message
    assert result.error == "Failed to parse command: " + message


def test_line_and_column_count_cr_as_line_break() -> None:
    assert v8_json_error('{\r"a":1,}') == "Expected double-quoted property name in JSON at position 8 (line 2 column 7)"


def test_position_counts_utf16_units() -> None:
    # U+1F600 is two UTF-16 code units in JS, so "1" sits at position 6, not 5.
    assert (
        v8_json_error('["\U0001f600" 1]')
        == "Expected ',' or ']' after array element in JSON at position 6 (line 1 column 7)"
    )


def test_invalid_utf8_is_replaced_as_upstream_decodes_it() -> None:
    # node's StringDecoder: one U+FFFD per maximal invalid subsequence.
    assert parse_record(b'{"type":"get_state","x":"\xff"}') == {"type": "get_state", "x": "\ufffd"}
    assert parse_record(b'{"x":"\xf0\x9fz","y":"\xed\xa0\x80"}') == {"x": "\ufffdz", "y": "\ufffd" * 3}
    # Still invalid JSON after the replacement: a V8 parse error, not a UTF-8 one.
    result = parse_record(b'{"x":\xff}')
    assert isinstance(result, ParseFailure)
    assert result.error.startswith("Failed to parse command: Unexpected token")


def test_valid_json_parses() -> None:
    assert parse_record(b' {"id":7,"type":"get_state"} ') == {"id": 7, "type": "get_state"}
    assert parse_record(b"null") is None
    assert parse_record(b"42") == 42


def test_inputs_v8_accepts_but_orjson_refuses_still_parse() -> None:
    assert parse_record(b'{"a":"\\ud800"}') == {"a": "\ud800"}
    assert parse_record(b"[123456789012345678901234567890]")[0] == pytest.approx(1.2345678901234568e29)


def test_scanner_accepts_what_json_accepts() -> None:
    for text in ['{"a":[1,-2.5e+3,true,false,null,{"b":"\\u00e9\\n"}]}', " [ ] ", '""', "0", "-0.0e-0"]:
        assert v8_json_error(text) is None, text
