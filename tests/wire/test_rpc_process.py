"""End-to-end: the REAL ``python -m pi_rpc --mode rpc`` subprocess, bytes on the wire."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

PiProcess = Any  # tests/conftest.py's PiProcess, obtained through the spawn_pi fixture
Spawn = Callable[..., Any]


def ready(proc: PiProcess) -> None:
    """The whole runtime is up: a first ``get_state`` may be answered before it is built
    (``modes/rpc/early.py``), any other command only by it."""
    proc.send({"id": "__ready", "type": "get_state"})
    proc.response("__ready")
    proc.send({"id": "__ready2", "type": "get_available_thinking_levels"})
    proc.response("__ready2")


def test_get_state_with_no_model_and_no_session(spawn_pi: Spawn) -> None:
    proc = spawn_pi("--no-session")
    proc.write(b'{"id":"s1","type":"get_state"}\n')
    resp = proc.response("s1")
    assert resp["success"] is True and resp["command"] == "get_state"
    data = resp["data"]
    # Which model a pi without configuration reports is the runtime's choice (upstream: the
    # "unknown" placeholder); the wire shape is ours to check.
    assert isinstance(data["model"]["id"], str) and isinstance(data["model"]["provider"], str)
    assert isinstance(data["thinkingLevel"], str) and data["isStreaming"] is False
    assert "sessionFile" not in data and "sessionName" not in data
    assert data["messageCount"] == 0 and data["pendingMessageCount"] == 0
    proc.close_stdin()
    assert proc.wait() == 0
    assert proc.raw_lines[0].startswith(b'{"id":"s1","type":"response","command":"get_state","success":true,"data":{')


def test_byte_at_a_time_with_split_utf8(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    name = "h\u00e9llo \u2603 \U0001f600"
    data = json.dumps({"id": 1, "type": "set_session_name", "name": name}, ensure_ascii=False).encode() + b"\n"
    assert len(data) != len(data.decode())  # really multi-byte
    for i in range(len(data)):
        proc.write(data[i : i + 1])
    assert proc.response(1)["success"] is True
    proc.send({"id": 2, "type": "get_state"})
    assert proc.response(2)["data"]["sessionName"] == name
    assert {"type": "session_info_changed", "name": name} in proc.records


def test_crlf_accepted(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    proc.write(b'{"id":"crlf1","type":"get_state"}\r\n')
    assert proc.response("crlf1")["success"] is True


def test_u2028_round_trips_and_is_escaped_on_output(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    proc.write('{"id":"ls1","type":"set_session_name","name":"a\u2028b\u2029c"}\n'.encode())
    proc.response("ls1")
    proc.write(b'{"id":"ls2","type":"get_state"}\n')
    assert proc.response("ls2")["data"]["sessionName"] == "a\u2028b\u2029c"
    raw = b"\n".join(proc.raw_lines)
    assert b"a\\u2028b\\u2029c" in raw
    assert "\u2028".encode() not in raw and "\u2029".encode() not in raw


def _write_big_record(proc: PiProcess, total: int) -> None:
    chunk = b"x" * (1 << 20)
    sent = 0
    while sent < total:
        proc.write(chunk)
        sent += len(chunk)


@pytest.mark.slow
def test_100mb_record_without_lf_bounded_memory(spawn_pi: Spawn) -> None:
    proc = spawn_pi("--max-frame-bytes", str(1 << 20))
    ready(proc)
    baseline_kb = proc.vm_hwm_kb()
    _write_big_record(proc, 100 << 20)
    err = proc.wait_for(lambda r: r.get("command") == "parse")
    assert err["success"] is False and "id" not in err
    assert "frame too large" in err["error"] and str(1 << 20) in err["error"]
    proc.write(b'\n{"id":"after","type":"get_state"}\n')
    assert proc.response("after")["success"] is True
    grown_mb = (proc.vm_hwm_kb() - baseline_kb) / 1024
    assert grown_mb < 20, f"peak RSS grew by {grown_mb:.1f} MB for a 100 MB record"
    assert sum(1 for r in proc.records if r.get("command") == "parse") == 1


@pytest.mark.slow
def test_100mb_record_default_cap(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    ready(proc)
    baseline_kb = proc.vm_hwm_kb()
    _write_big_record(proc, 100 << 20)
    err = proc.wait_for(lambda r: r.get("command") == "parse")
    assert str(64 * 1024 * 1024) in err["error"]
    proc.write(b'\n{"id":"after","type":"get_state"}\n')
    assert proc.response("after")["success"] is True
    grown_mb = (proc.vm_hwm_kb() - baseline_kb) / 1024
    assert grown_mb < 64 + 16, f"peak RSS grew by {grown_mb:.1f} MB (cap is 64 MiB)"


def test_invalid_utf8_and_invalid_json(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    # Invalid UTF-8 is decoded as upstream decodes stdin (U+FFFD) and the command is served.
    proc.write(b'{"id":"u","type":"set_session_name","name":"\xff\xfe"}\n')
    assert proc.response("u")["success"] is True
    assert {"type": "session_info_changed", "name": "\ufffd\ufffd"} in proc.records
    proc.write(b"\n")
    proc.write(b"not json\n")
    proc.write(b'{"id":"after","type":"get_state"}\n')
    proc.response("after")
    parse = [r for r in proc.records if r.get("command") == "parse"]
    assert len(parse) == 2
    assert all("id" not in r and r["success"] is False for r in parse)
    assert parse[0]["error"] == "Failed to parse command: Unexpected end of JSON input"
    assert parse[1]["error"] == "Failed to parse command: Unexpected token 'o', \"not json\" is not valid JSON"


def test_non_objects_unknown_type_wrong_field(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    proc.write(b"null\n42\n[]\n")
    proc.write(b'{"id":"u1","type":"no_such_command"}\n')
    proc.write(b'{"id":9,"type":"set_session_name","name":5}\n')
    proc.write(b'{"id":"after","type":"get_state"}\n')
    proc.response("after")
    unknown = [r for r in proc.records if r.get("error") == "Unknown command: undefined"]
    assert unknown == [{"type": "response", "success": False, "error": "Unknown command: undefined"}] * 3
    assert proc.response("u1") == {
        "id": "u1",
        "type": "response",
        "command": "no_such_command",
        "success": False,
        "error": "Unknown command: no_such_command",
    }
    assert proc.response(9) == {
        "id": 9,
        "type": "response",
        "command": "set_session_name",
        "success": False,
        "error": 'Invalid command "set_session_name": field "name": expected string, got number',
    }
    assert proc.popen.poll() is None  # null did not crash it


def test_many_commands_in_flight_answered_by_id(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    batch = b"".join(json.dumps({"id": i, "type": "get_state"}).encode() + b"\n" for i in range(200))
    proc.write(batch)
    for i in range(200):
        proc.response(i)
    proc.close_stdin()
    proc.read_all()
    assert proc.wait() == 0
    assert sorted(r["id"] for r in proc.records if r.get("type") == "response") == list(range(200))


def test_stray_output_goes_to_stderr(spawn_pi: Spawn) -> None:
    proc = spawn_pi(env={"PI_RPC_TEST_STRAY": "1"})
    proc.write(b'{"id":1,"type":"get_state"}')
    proc.close_stdin()
    records = proc.read_all()
    assert proc.wait() == 0
    assert [r["id"] for r in records] == [1]
    for text in ("stray: python print", "stray: raw fd 1", "stray: child process"):
        assert text in proc.stderr
    assert all(not line.startswith(b"stray") for line in proc.raw_lines)


def test_eof_without_trailing_lf(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    proc.write(b'{"id":"a","type":"get_state"}\n{"id":"last","type":"get_state"}')
    proc.close_stdin()
    records = proc.read_all()
    assert [r["id"] for r in records] == ["a", "last"]
    assert proc.wait() == 0
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signals_exit_codes(spawn_pi: Spawn, sig: signal.Signals, code: int) -> None:
    proc = spawn_pi()
    ready(proc)
    proc.popen.send_signal(sig)
    assert proc.wait() == code
    assert "Traceback" not in proc.stderr


def test_second_sigterm_exits_immediately(spawn_pi: Spawn) -> None:
    proc = spawn_pi()
    ready(proc)
    proc.popen.send_signal(signal.SIGTERM)
    proc.popen.send_signal(signal.SIGTERM)
    assert proc.wait() == 143


def test_epipe_exits_1_without_traceback(tmp_path, pi_environ) -> None:
    # Not via PiProcess: its reader thread would keep the pipe's read end open.
    import subprocess
    import sys

    popen = subprocess.Popen(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc"],
        cwd=tmp_path,
        env=pi_environ(None),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert popen.stdin is not None and popen.stdout is not None
        popen.stdin.write(b'{"id":1,"type":"get_state"}\n')
        popen.stdin.flush()
        assert b'"id":1' in popen.stdout.readline()
        popen.stdout.close()  # the client goes away
        deadline = time.monotonic() + 10
        try:
            while popen.poll() is None and time.monotonic() < deadline:
                popen.stdin.write(b'{"type":"get_state"}\n')
                popen.stdin.flush()
                time.sleep(0.02)
        except BrokenPipeError:
            pass
        assert popen.wait(timeout=10) == 1
        assert popen.stderr is not None
        assert b"Traceback" not in popen.stderr.read()
    finally:
        if popen.poll() is None:
            popen.kill()
