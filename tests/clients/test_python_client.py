"""Python client (clients/python/pi_rpc_client) against a real server subprocess (ours; upstream when installed)
and against a misbehaving stub for the failure paths that a healthy server never shows."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from pi_rpc_client import (
    COMMAND_TYPES,
    LineSplitter,
    RpcClient,
    RpcCommandError,
    RpcProcessExited,
    RpcTimeoutError,
    encode_record,
)

STUB = str(Path(__file__).with_name("stub_rpc_server.py"))
LS, PS = "\u2028", "\u2029"
TEN_MB = 10 * 1024 * 1024


# ---------------------------------------------------------------- framing (no process)
def test_splitter_splits_on_lf_only() -> None:
    rec = encode_record({"type": "x", "name": f"a{LS}b{PS}c\r\x1c\x85\x0b\x0c"})
    assert rec.count(b"\n") == 1 and LS.encode() in rec  # raw, not escaped
    sp = LineSplitter()
    lines = sp.feed(rec[:5]) + sp.feed(rec[5:] + b'{"type":"y"}\r\n{"par')
    assert len(lines) == 2
    assert lines[0] == rec[:-1]
    assert lines[1] == b'{"type":"y"}\r'
    assert sp.rest() == b'{"par'


def test_command_catalogue_has_33_typed_methods() -> None:
    assert len(COMMAND_TYPES) == len(set(COMMAND_TYPES)) == 33
    for name in COMMAND_TYPES:
        assert callable(getattr(RpcClient, name)), name


# ---------------------------------------------------------------- stub server (client mechanics)
def test_out_of_order_responses_are_correlated_by_id() -> None:
    with RpcClient([sys.executable, STUB, "reverse"], default_timeout=10) as c:
        stream = c.events()
        results: dict[str, dict] = {}

        def call(name: str) -> None:
            results[name] = c.request({"type": name})

        t = threading.Thread(target=call, args=("get_state",))
        t.start()
        call_second = c.request  # second request makes the stub answer both, in reverse order
        results["get_messages"] = call_second({"type": "get_messages"})
        t.join(10)
        assert results["get_state"]["command"] == "get_state"
        assert results["get_state"]["data"]["echo"] == results["get_state"]["id"]
        assert results["get_messages"]["data"]["echo"] == results["get_messages"]["id"]
        ev = stream.wait_for("session_info_changed", timeout=5)
        assert ev["name"] == f"x{LS}y"
        stray = stream.wait_for(lambda r: r.get("type") == "response", timeout=5)
        assert stray["command"] == "parse" and c.unmatched_responses == [stray]
        assert c.protocol_errors == []


def test_process_death_mid_run_is_reported_with_exit_code_and_stderr() -> None:
    with RpcClient([sys.executable, STUB, "die"], default_timeout=10) as c:
        with pytest.raises(RpcProcessExited) as info:
            c.prompt_and_wait("hello")
        assert info.value.returncode == 3
        assert "exploded mid-run" in info.value.stderr_tail
        with pytest.raises(RpcProcessExited):  # later calls fail fast instead of hanging
            c.get_state()


def test_request_timeout_then_clean_shutdown() -> None:
    c = RpcClient([sys.executable, STUB, "silent"], default_timeout=10)
    with pytest.raises(RpcTimeoutError) as info:
        c.get_state(timeout=0.3)
    assert "get_state" in str(info.value)
    assert c.close(timeout=5) == 0  # stdin EOF is enough


def test_close_escalates_to_sigkill() -> None:
    c = RpcClient([sys.executable, STUB, "stubborn"])
    deadline = time.monotonic() + 30
    while "ignoring SIGTERM" not in c.stderr_text and time.monotonic() < deadline:
        time.sleep(0.01)  # (a slow start must not meet SIGTERM before the stub ignores it)
    assert c.close(timeout=0.5) == -signal.SIGKILL


# ---------------------------------------------------------------- real server
def test_get_state_and_eof_shutdown(make_pi) -> None:
    pi = make_pi()
    state = pi.get_state()
    assert state["model"]["provider"] == "conf" and state["isStreaming"] is False
    assert pi.close() == 0
    assert pi.protocol_errors == []


def test_command_error_carries_response(make_pi) -> None:
    pi = make_pi()
    with pytest.raises(RpcCommandError) as info:
        pi.set_session_name("   ")
    resp = info.value.response
    assert resp["success"] is False and resp["command"] == "set_session_name"
    assert resp["error"] == "Session name cannot be empty"
    assert resp["id"].startswith("py-")


def test_u2028_in_session_name_round_trips(make_pi) -> None:
    pi = make_pi()
    name = f"a{LS}b{PS}c"
    with pi.events() as stream:
        pi.set_session_name(name)
        ev = stream.wait_for("session_info_changed", timeout=10)
    assert ev["name"] == name
    assert pi.get_state()["sessionName"] == name
    assert pi.protocol_errors == []


def test_ten_megabyte_session_name(make_pi) -> None:
    pi = make_pi(default_timeout=60)
    name = "n" * (TEN_MB - 3) + "end"
    pi.set_session_name(name)
    assert pi.get_state()["sessionName"] == name


def test_event_wait_timeout_on_idle_server(make_pi) -> None:
    pi = make_pi()
    pi.get_state()
    with pi.events() as stream, pytest.raises(RpcTimeoutError):
        stream.wait_for("agent_settled", timeout=0.5)
    assert pi.returncode is None  # a client-side timeout does not hurt the session


def test_prompt_and_wait_u2028_in_model_reply(make_pi) -> None:
    pi = make_pi([{"chunks": ["line", LS, "sep", PS, "para"]}], needs=("runs",))
    result = pi.prompt_and_wait("Answer with separators")
    assert result.disposition == "started"
    types = [e["type"] for e in result.events]
    assert types[0] == "agent_start" and types[-1] == "agent_settled"
    assert types.index("agent_end") < types.index("agent_settled")
    assert result.text() == f"line{LS}sep{PS}para"
    assert pi.get_last_assistant_text() == f"line{LS}sep{PS}para"
    assert pi.protocol_errors == []


def test_ten_megabyte_prompt(make_pi) -> None:
    pi = make_pi([{"text": "got it"}], needs=("runs",), default_timeout=120)
    message = "p" * (TEN_MB - 3) + "end"
    result = pi.prompt_and_wait(message)
    users = [e["message"] for e in result.events if e["type"] == "message_end" and e["message"]["role"] == "user"]
    assert users and users[0]["content"][0]["text"] == message
    assert result.text() == "got it"


def test_server_killed_mid_run_is_reported(make_pi) -> None:
    pi = make_pi([{"repeat": {"chunk": "slow ", "count": 400}, "delay_ms": 50}], needs=("runs",))

    def kill_on_first_delta(rec: dict) -> None:
        if rec.get("type") == "message_update" and pi.proc and pi.proc.poll() is None:
            pi.proc.send_signal(signal.SIGKILL)

    pi.on_event(kill_on_first_delta)
    with pytest.raises(RpcProcessExited) as info:
        pi.prompt_and_wait("stream forever", timeout=60)
    assert info.value.returncode == -signal.SIGKILL


def test_bash_request_timeout_then_abort(make_pi) -> None:
    pi = make_pi(needs=("bash",))
    with pytest.raises(RpcTimeoutError):
        pi.bash("sleep 20", timeout=0.5)
    pi.abort_bash()
    assert pi.bash("echo ok")["output"] == "ok\n"
