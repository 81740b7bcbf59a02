"""Output encoding: JS number formatting, escaped U+2028/9, one line, raw UTF-8."""

from __future__ import annotations

import json

from pi_rpc.modes.wire.jsonout import dumps_line, dumps_record


def test_integral_floats_print_as_ints_everywhere() -> None:
    value = {"a": 1.0, "b": [0.0, -0.0, 2.5, {"c": 3.0}], "d": 1e16, "e": 1e-7, "f": 0.1}
    assert dumps_record(value) == b'{"a":1,"b":[0,0,2.5,{"c":3}],"d":10000000000000000,"e":1e-7,"f":0.1}'


def test_strings_that_look_like_floats_untouched() -> None:
    value = {"s": "1.0,", "t": "2e+5"}
    assert json.loads(dumps_record(value)) == value


def test_u2028_u2029_escaped_and_round_trip() -> None:
    value = {"name": "a\u2028b\u2029c", "other": "\u00e9\u2603"}
    out = dumps_record(value)
    assert b"\\u2028" in out and b"\\u2029" in out
    assert "\u2028".encode() not in out and "\u2029".encode() not in out
    assert "\u00e9\u2603".encode() in out  # other non-ASCII stays raw UTF-8
    assert json.loads(out) == value


def test_one_line_with_newlines_in_strings() -> None:
    line = dumps_line({"t": "a\nb\r\n"})
    assert line.count(b"\n") == 1 and line.endswith(b"\n")


def test_key_order_and_null_preserved() -> None:
    assert (
        dumps_record({"id": None, "type": "response", "success": True})
        == b'{"id":null,"type":"response","success":true}'
    )


def test_unencodable_values_fall_back() -> None:
    assert json.loads(dumps_record({"big": 2**70})) == {"big": float(2**70)}
    assert json.loads(dumps_record({"nan": float("nan")})) == {"nan": None}
