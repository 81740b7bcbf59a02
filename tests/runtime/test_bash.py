"""The RPC ``bash`` command (reference §2.20, §2.21, §3.3 I)."""

from __future__ import annotations

import os
import signal
import time

import pytest

from tests.support.pi_process import is_event, kinds


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


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":  # pgrp; zombies are already dead
            members.append(int(entry))
    return members


@pytest.mark.parametrize("signals", [1, 2], ids=["sigterm", "sigterm-twice"])
def test_sigterm_during_a_tool_kills_its_process_group(pi_process, tmp_path, signals):
    # The process's signal handling is what is tested: a real process.
    pi = pi_process
    # A running bash tool with a sleeping grandchild: SIGTERM must leave no orphan behind.
    pidfile = tmp_path / "pgid.txt"
    command = f"echo $$ > {pidfile}; sleep 100 & sleep 100; wait"
    p = pi(script=[{"toolCalls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "done"}])
    p.cmd("prompt", message="run it")
    p.wait_for(is_event("tool_execution_start"), timeout=10)
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.05)
    pgid = int(pidfile.read_text().strip())
    for _ in range(100):
        if len(_group_members(pgid)) >= 2:  # the shell and its sleepers are up
            break
        time.sleep(0.05)
    assert _group_members(pgid)
    # A second signal exits at once: the tracked process groups must already be gone
    # (killed on the first signal, before the orderly shutdown).
    for _ in range(signals):
        p.popen.send_signal(signal.SIGTERM)
    assert p.popen.wait(timeout=10) == 143
    for _ in range(100):
        if not _group_members(pgid):
            break
        time.sleep(0.05)
    assert _group_members(pgid) == []


def test_children_see_upstreams_agent_markers(pi):
    p = pi()
    resp = p.cmd("bash", command='echo "$PI_CODING_AGENT/$AI_AGENT"')
    assert resp["data"]["output"] == "true/pi\n"


def test_llm_bash_tool_gets_session_variables_but_rpc_bash_does_not(pi):
    command = 'echo "$PI_SESSION_ID|$PI_PROVIDER|$PI_MODEL|$PI_REASONING_LEVEL|${PI_SESSION_FILE:+file}"'
    p = pi(script=[{"toolCalls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}])
    p.cmd("prompt", message="env please")
    p.settle(timeout=20)
    state = p.ok("get_state")
    end = p.wait_for("tool_execution_end")
    text = end["result"]["content"][0]["text"]
    assert text.strip() == f"{state['sessionId']}|faux|faux-1|off|file"
    # The RPC bash command runs without them (upstream: only LLM bash-tool commands get them).
    rpc = p.cmd("bash", command=command)
    assert rpc["data"]["output"].strip() in ("||||", "")
