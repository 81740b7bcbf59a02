"""``pi_rpc.ai.jsjson``: JSON.stringify-exact output for what orjson refuses, node's UTF-8
conversions, and JSON.parse-compatible reading. Expected bytes were checked against node 22's
``JSON.stringify`` (3,000 random strings of lone/paired surrogates, controls, U+2028, BOM)."""

from __future__ import annotations

import json
import sys

import orjson
import pytest

from pi_rpc.ai.jsjson import loads, stringify, stringify_fallback, to_utf8, well_formed
from pi_rpc.modes.wire.jsonout import dumps_record
from pi_rpc.session.jsonfmt import dumps_line


@pytest.mark.parametrize(
    "value, expected",
    [
        ("\ud800", b'"\\ud800"'),
        ("a\udfffb", b'"a\\udfffb"'),
        ("\ud83d\ude00", '"\U0001f600"'.encode()),  # a pair held as two code points
        ("\ude00\ud83d", b'"\\ude00\\ud83d"'),  # wrong order: two lone halves
        ("\ud83d\ud83d\ude00", '"\\ud83d\U0001f600"'.encode()),
        ('\x00\x1f\x7f"\\\n\u2028', b'"\\u0000\\u001f\x7f\\"\\\\\\n\xe2\x80\xa8"'),
    ],
)
def test_strings_as_json_stringify_writes_them(value: str, expected: bytes) -> None:
    assert stringify(value) == expected
    assert stringify_fallback(value) == expected


def test_fallback_matches_the_fast_path_where_both_work() -> None:
    value = {"a": [1.0, -0.0, 2.5, 1e16, 1e-7, None, True, "é"], "b": {"c": {}}, "d": [], "e": 10**18}
    assert (
        stringify_fallback(value)
        == stringify(value)
        == orjson.dumps(
            {"a": [1, 0, 2.5, 10000000000000000, 1e-7, None, True, "é"], "b": {"c": {}}, "d": [], "e": 10**18}
        )
    )


def test_surrogates_in_keys_and_values_deep_inside() -> None:
    value = {"k\ud800": [{"x": "\udc00"}], "n": 1.0}
    assert stringify(value) == b'{"k\\ud800":[{"x":"\\udc00"}],"n":1}'


def test_any_depth_without_recursion() -> None:
    deep: object = "\ud800"
    for _ in range(100_000):
        deep = [deep]
    out = stringify({"d": deep})
    assert out == b'{"d":' + b"[" * 100_000 + b'"\\ud800"' + b"]" * 100_000 + b"}"
    nested: dict[str, object] = {}
    cursor = nested
    for _ in range(3000):
        cursor["a"] = {}
        cursor = cursor["a"]  # type: ignore[assignment]
    assert stringify(nested) == b'{"a":' * 3000 + b"{}" + b"}" * 3000


def test_what_orjson_refuses_otherwise() -> None:
    assert (
        stringify({"big": 2**70, "nan": float("nan"), "inf": float("-inf")})
        == b'{"big":1.1805916207174113e+21,"nan":null,"inf":null}'
    )
    assert stringify({1: "a", None: "b", 2.5: "c"}) == b'{"1":"a","null":"b","2.5":"c"}'
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="circular"):
        stringify(loop)


def test_wire_and_session_writers_use_it() -> None:
    record = {"type": "session_info_changed", "name": "a\ud800\u2028"}
    assert dumps_record(record) == b'{"type":"session_info_changed","name":"a\\ud800\\u2028"}'  # wire: U+2028 escaped
    assert (
        dumps_line(record) == b'{"type":"session_info_changed","name":"a\\ud800\xe2\x80\xa8"}\n'
    )  # file: raw, as node


def test_node_string_to_bytes() -> None:
    assert well_formed("a\ud800b\ud83d\ude00") == "a\ufffdb\U0001f600"
    assert to_utf8("x\udc00") == "x\ufffd".encode()
    assert to_utf8("plain é") == "plain é".encode()


def test_loads_accepts_what_json_parse_accepts() -> None:
    assert loads(b'{"a":"\\ud800","b":123456789012345678901234567890}') == {
        "a": "\ud800",
        "b": 123456789012345678901234567890,
    }
    assert loads(b'"\xff"') == "\ufffd"  # invalid UTF-8 as node's decoder reads it
    with pytest.raises(orjson.JSONDecodeError):
        loads(b"{nope")
    with pytest.raises(json.JSONDecodeError):  # orjson's error is one
        loads("[1,]")
    assert sys.getrecursionlimit() < 100_000  # the deep test above really exceeded the stack
