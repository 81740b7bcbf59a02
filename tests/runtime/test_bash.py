"""The RPC ``bash`` command (reference §2.20, §2.21, §3.3 I)."""

from __future__ import annotations

import time

from rt_client import is_event, kinds


def test_i_bash_streams_updates_with_id_before_response(pi):
    p = pi()
    b = p.request("bash", command="echo one; echo two >&2; exit 3")
    resp = p.response(b)
    assert resp["success"] is True
    assert resp["data"] == {"output": "one\ntwo\n", "exitCode": 3, "cancelled": False, "truncated": False}
    updates = [r for r in p.records if r["type"] == "bash_execution_update"]
    assert updates and all(list(u) == ["type", "id", "delta"] and u["id"] == b for u in updates)
    assert "".join(u["delta"] for u in updates) == "one\ntwo\n"
    assert kinds(p.records)[-1] == f"response:{b}"
    # Recorded as a bashExecution message (no message events), visible in the context.
    assert not any(r["type"].startswith("message_") for r in p.records)
    messages = p.ok("get_messages")["messages"]
    assert messages[-1]["role"] == "bashExecution"
    assert messages[-1]["command"] == "echo one; echo two >&2; exit 3"
    assert messages[-1]["exitCode"] == 3 and messages[-1]["output"] == "one\ntwo\n"
    assert "excludeFromContext" not in messages[-1]


def test_i_bash_without_id_has_no_id_on_updates(pi):
    p = pi()
    p.send({"type": "bash", "command": "echo hey", "excludeFromContext": True})
    resp = p.wait_for("response")
    assert resp["data"]["output"] == "hey\n" and "id" not in resp
    update = p.wait_for("bash_execution_update")
    assert update == {"type": "bash_execution_update", "delta": "hey\n"}
    assert p.ok("get_messages")["messages"][-1]["excludeFromContext"] is True


def test_i_abort_bash_cancels(pi):
    p = pi()
    b = p.request("bash", command="echo started; sleep 20; echo never")
    p.wait_for("bash_execution_update")
    t0 = time.monotonic()
    ab = p.request("abort_bash")
    p.response(ab)
    resp = p.response(b, timeout=10)
    assert time.monotonic() - t0 < 8
    assert resp["success"] is True
    data = resp["data"]
    assert data["cancelled"] is True and "exitCode" not in data
    assert data["output"].startswith("started")
    assert p.ok("get_messages")["messages"][-1]["cancelled"] is True


def test_bash_during_run_is_recorded_after_the_run(pi):
    p = pi(script=[{"text": "slow " * 20, "delayMs": 30, "chunkChars": 5}, {"text": "next"}])
    p.cmd("prompt", message="go")
    p.wait_for(lambda r: r["type"] == "message_update")
    data = p.ok("bash", command="echo during")
    assert data["output"] == "during\n"
    p.settle()
    roles = [m["role"] for m in p.ok("get_messages")["messages"]]
    assert roles == ["system", "user", "assistant", "bashExecution"]
    entries = p.ok("get_entries")["entries"]
    assert [e["message"]["role"] for e in entries if e["type"] == "message"][-1] == "bashExecution"
