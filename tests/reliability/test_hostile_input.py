"""Hostile input through the REAL ``pi --mode rpc`` subprocess: the process never dies, every
record whose id is readable is answered exactly once with that id, and every stdout line is
one valid JSON record.

The first two tests are the failures reported in issue 11: a lone UTF-16 surrogate from a JS
client used to kill the process at the next write (``str is not valid UTF-8: surrogates not
allowed``), and invalid UTF-8 inside a string was answered id-less so the client hung.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

Spawn = Callable[..., Any]


@pytest.fixture(autouse=True)
def deep_json() -> Iterator[None]:
    """Records here nest thousands of levels deep; let the test's own json.loads read them."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 40000))
    yield
    sys.setrecursionlimit(old)


def _finish(proc: Any) -> list[bytes]:
    """Close stdin, require exit 0, return every stdout line (all must be JSON)."""
    proc.close_stdin()
    proc.read_all(timeout=30)
    assert proc.wait(timeout=30) == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    for line in proc.raw_lines:
        json.loads(line)  # every line is one valid JSON record
    return proc.raw_lines


def test_lone_surrogate_from_a_js_client_is_echoed_as_json_stringify_writes_it(spawn_pi: Spawn) -> None:
    proc = spawn_pi("--no-session")
    # What JSON.stringify("x" + "\ud83d\ude00".slice(0, 1) + "y") sends.
    proc.write(b'{"id":"n","type":"set_session_name","name":"x\\ud83dy"}\n')
    proc.write(b'{"id":"s","type":"get_state"}\n')
    proc.write(b'{"id":"q","type":"clear_queue"}\n')
    assert proc.response("n")["success"] is True
    assert proc.response("s")["data"]["sessionName"] == "x\ud83dy"
    assert proc.response("q")["success"] is True
    lines = _finish(proc)
    # Byte-exact: the escape JSON.stringify writes (lowercase hex), not a replacement char.
    assert b'{"type":"session_info_changed","name":"x\\ud83dy"}' in lines
    assert any(b'"sessionName":"x\\ud83dy"' in line for line in lines)


def test_surrogate_pair_escapes_become_the_character(spawn_pi: Spawn) -> None:
    proc = spawn_pi("--no-session")
    proc.write(b'{"id":"n","type":"set_session_name","name":"a\\ud83d\\ude00b\\udc00"}\n')
    assert proc.response("n")["success"] is True
    lines = _finish(proc)
    assert '{"type":"session_info_changed","name":"a\U0001f600b\\udc00"}'.encode() in lines


def test_invalid_utf8_in_a_string_is_served_with_its_id(spawn_pi: Spawn) -> None:
    proc = spawn_pi("--no-session")
    proc.write(b'{"id":"f15326","type":"abort","note":"\xfe\xfe"}\n')
    proc.write(b'{"id":"n","type":"set_session_name","name":"a\xf0\x9fz\xed\xa0\x80"}\n')
    answer = proc.response("f15326")
    assert answer["id"] == "f15326" and answer["command"] == "abort" and answer["success"] is True
    assert proc.response("n")["success"] is True
    # node's StringDecoder: a truncated sequence is one U+FFFD, an encoded surrogate three.
    assert {"type": "session_info_changed", "name": "a\ufffdz\ufffd\ufffd\ufffd"} in proc.records
    _finish(proc)


def test_invalid_utf8_split_across_writes_decodes_as_whole(spawn_pi: Spawn) -> None:
    proc = spawn_pi("--no-session")
    record = '{"id":"b","type":"set_session_name","name":"\u00e9\U0001f600'.encode() + b'\xe2\x82"}\n'
    for i in range(len(record)):
        proc.write(record[i : i + 1])
    assert proc.response("b")["success"] is True
    assert {"type": "session_info_changed", "name": "\u00e9\U0001f600\ufffd"} in proc.records
    _finish(proc)


def test_ids_of_every_json_type_are_echoed_verbatim(spawn_pi: Spawn) -> None:
    deep = 3000  # deeper than orjson (1024) and the stdlib (~1000) parse or write
    ids: list[bytes] = [
        b"0",
        b"-1.5",
        b"1e300",
        b"123456789012345678901234567890",
        b"true",
        b"null",
        b'{"a":[1,{"b":null}]}',
        b"[]",
        b'"\xc3\xa9\\u2028\\ud800"',
        b'""',
        b"[" * deep + b"7" + b"]" * deep,
    ]
    proc = spawn_pi("--no-session")
    for raw in ids:
        proc.write(b'{"id":' + raw + b',"type":"get_state"}\n')
    proc.write(b'{"id":"end","type":"get_state"}\n')
    proc.response("end")
    lines = _finish(proc)
    responses = [json.loads(line) for line in lines if b'"type":"response"' in line]
    assert len(responses) == len(ids) + 1
    assert all(r["success"] is True for r in responses)
    # Each id comes back as the value JS would echo (deep one included).
    got = [r["id"] for r in responses[:-1]]
    want = [json.loads(raw.decode("utf-8")) for raw in ids]
    want[3] = float(want[3])  # a JS number: beyond 64 bits it is a double
    assert got == want


def test_deep_nesting_and_odd_types_never_crash(spawn_pi: Spawn) -> None:
    deep = 5000
    proc = spawn_pi("--no-session")
    proc.write(b'{"id":"t1","type":' + b"[" * deep + b'"x"' + b"]" * deep + b"}\n")
    proc.write(b'{"id":"t2","type":{"a":1}}\n')
    proc.write(b'{"id":"t3","type":"prompt","message":' + b"[" * deep + b"]" * deep + b"}\n")
    proc.write(b'{"id":"t4","type":"get_state","x":' + b'{"a":' * deep + b"1" + b"}" * deep + b"}\n")
    proc.write(b"[" * deep + b"]" * (deep - 1) + b"\n")  # invalid: one bracket short
    for cid in ("t1", "t2", "t3", "t4"):
        proc.response(cid)
    answers = {r["id"]: r for r in proc.records if r.get("type") == "response" and "id" in r}
    assert answers["t1"]["error"] == "Unknown command: x"
    assert answers["t2"]["error"] == "Unknown command: [object Object]"
    assert answers["t3"]["error"].startswith('Invalid command "prompt": field "message": expected string')
    assert answers["t4"]["success"] is True
    _finish(proc)
    assert [r["command"] for r in proc.records if r.get("type") == "response" and "id" not in r] == ["parse"]


def test_packed_split_and_odd_framing_one_response_each(spawn_pi: Spawn) -> None:
    proc = spawn_pi("--no-session")
    packed = b"".join(b'{"id":"p%d","type":"get_state"}\n' % i for i in range(50))
    proc.write(packed)
    proc.write(b'\xef\xbb\xbf{"id":"bom","type":"get_state"}\n')  # BOM: not JSON for V8 either
    proc.write(b'{"id":"cr\r1","type":"get_state"}\r\n')  # raw CR inside a string: bad control char
    proc.write('{"id":"ls\u2028","type":"get_state"}\n'.encode())  # U+2028 is content
    proc.write(b'{"id":"dup","type":"get_state"}\n{"id":"dup","type":"get_state"}\n')
    proc.write(b'{"id":"big","type":"set_session_name","name":"' + b"x" * 3_000_000 + b'"}\n')
    proc.write(b'  {"id":"ws","type":"get_state"}  \n')
    lines = _finish(proc)
    counts = Counter(
        json.dumps(r.get("id")) for r in map(json.loads, lines) if r.get("type") == "response" and "id" in r
    )
    for i in range(50):
        assert counts[json.dumps(f"p{i}")] == 1
    assert counts[json.dumps("ls\u2028")] == 1 and counts['"big"'] == 1 and counts['"ws"'] == 1
    assert counts['"dup"'] == 2  # two records, two answers
    parse_errors = [r for r in map(json.loads, lines) if r.get("command") == "parse"]
    assert len(parse_errors) == 2  # the BOM record and the raw CR inside a string
