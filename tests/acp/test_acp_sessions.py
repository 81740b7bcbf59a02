"""Loading an existing session (its history replayed before the result, then continued),
resume and fork, and bad JSON-RPC input answered with the standard codes without ending the
process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from acp.exceptions import RequestError

from tests.support.session_stores import stored_lines

pytestmark = pytest.mark.anyio


async def test_load_replays_history_before_the_result_and_continues(acp_agent, store_kind):
    script = [
        {"toolCalls": [{"id": "t1", "name": "bash", "arguments": {"command": "echo replayed"}}]},
        {"text": "first answer"},
    ]
    async with acp_agent(*store_kind.cli_args(), script=script) as run:
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "first question")
        session_id = session.session_id
    async with acp_agent(*store_kind.cli_args()) as run:
        await run.initialize()
        loaded = await run.conn.load_session(cwd=str(run.cwd), session_id=session_id, mcp_servers=[])
        assert {o.id for o in loaded.config_options} == {"model", "thought_level"}
        kinds = [u.session_update for _, u in run.client.updates]
        assert kinds[:4] == ["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
        assert run.client.text("user_message_chunk") == "first question"
        assert run.client.text() == "first answer"
        assert run.client.of("tool_call")[0].kind == "execute"
        result_at = next(i for i, m in enumerate(run.raw) if "result" in m and "configOptions" in m["result"])
        replay_at = [
            i
            for i, m in enumerate(run.raw)
            if m.get("method") == "session/update"
            and m["params"]["update"]["sessionUpdate"] != "available_commands_update"
        ]
        assert replay_at and max(replay_at) < result_at
        result = await run.prompt(session_id, "second question")
        assert result.stop_reason == "end_turn" and run.client.text().endswith("You said: second question")
        with pytest.raises(RequestError) as missing:
            await run.conn.load_session(cwd=str(run.cwd), session_id="0000-no-such-session", mcp_servers=[])
        assert missing.value.code == -32002
    if store_kind.database:  # a database session may be named by its locator too
        locator = store_kind.locator_at(store_kind.root, session_id)
        async with acp_agent(*store_kind.cli_args()) as run:
            await run.initialize()
            await run.conn.load_session(cwd=str(run.cwd), session_id=locator, mcp_servers=[])
            assert run.client.text("user_message_chunk").startswith("first question")
            result = await run.prompt(locator, "third question")
            assert result.stop_reason == "end_turn"
            await run.conn.resume_session(cwd=str(run.cwd), session_id=locator, mcp_servers=[])
        user_texts = [
            e["message"]["content"][0]["text"]
            for e in stored_lines(locator)
            if e.get("type") == "message" and e["message"]["role"] == "user"
        ]
        assert user_texts == ["first question", "second question", "third question"]


async def test_resume_and_fork(acp_agent, store_kind):
    async with acp_agent(*store_kind.cli_args()) as run:
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "original")
        forked = await run.conn.fork_session(cwd=str(run.cwd), session_id=session.session_id, mcp_servers=[])
        assert forked.session_id != session.session_id
        before = len(run.client.updates)
        await run.conn.resume_session(cwd=str(run.cwd), session_id=session.session_id, mcp_servers=[])
        assert [u.session_update for _, u in run.client.updates[before:]] == ["available_commands_update"]
        result = await run.prompt(forked.session_id, "in the fork")
        assert result.stop_reason == "end_turn"


def _exchange(pi_environ, tmp_path, lines: list[bytes], *args: str) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "--mode", "acp", *args],
        input=b"".join(lines),
        env=pi_environ(None),
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(b"\n") and b"\r" not in proc.stdout
    return [json.loads(line) for line in proc.stdout.split(b"\n") if line]


def test_bad_json_rpc_input_gets_standard_errors_and_the_process_carries_on(pi_environ, tmp_path):
    good_init = b'{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}\n'
    lines = [
        b"{not json\n",
        b"[]\n",
        b"42\n",
        b'{"id":1,"method":"initialize","params":{"protocolVersion":1}}\n',
        b'{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}\n',
        b'{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}\n',
        b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}\n',
        b'{"jsonrpc":"2.0","id":4,"method":"initialize","params":[1]}\n',
        b'{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}\n',
        b'{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}\n',
        b'{"jsonrpc":"2.0","method":"unknown/notification","params":{}}\n',
        b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}\n',
        b'{"jsonrpc":"2.0","id":7,"method":42}\n',
        b"\xff\xfe\n",
        b'{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":1,"pad":"' + b"x" * 300 + b'"}}\n',
        good_init,
    ]
    out = _exchange(pi_environ, tmp_path, lines, "--max-frame-bytes", "200")
    # Requests run concurrently, so compare without relying on the order of the answers.
    errors = sorted((str(m.get("id")), m["error"]["code"]) for m in out if "error" in m)
    assert errors == sorted(
        [
            ("None", -32700),
            ("None", -32600),
            ("None", -32600),
            ("1", -32600),
            ("None", -32600),
            ("2", -32601),
            ("3", -32602),
            ("4", -32602),
            ("5", -32002),
            ("6", -32602),
            ("7", -32600),
            ("None", -32700),
            ("None", -32700),
        ]
    )
    by_id = {m.get("id"): m for m in out if m.get("id") is not None}
    assert by_id[2]["error"]["data"] == {"method": "no/such/method"}
    assert "Unknown session: nope" in by_id[5]["error"]["data"]["details"]
    details = [m["error"].get("data", {}).get("details", "") for m in out if "error" in m]
    assert any("frame too large" in d for d in details)
    # Invalid UTF-8 is decoded as U+FFFD (as in RPC mode): "\xff\xfe" is then just not JSON.
    assert any("Unexpected token '\ufffd'" in d for d in details)
    assert all(m["jsonrpc"] == "2.0" for m in out)
    assert by_id["i"]["result"]["protocolVersion"] == 1


def test_prompt_in_flight_at_eof_is_answered_cancelled(pi_environ, tmp_path):
    script = tmp_path / "slow.json"
    script.write_text(json.dumps([{"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]}]))
    cwd = str(tmp_path)
    lines = [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n',
        json.dumps(
            {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}}
        ).encode()
        + b"\n",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_rpc", "--mode", "acp", "--faux-script", str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=pi_environ(None),
        cwd=tmp_path,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b"".join(lines))
        proc.stdin.flush()
        proc.stdout.readline()
        session_id = json.loads(proc.stdout.readline())["result"]["sessionId"]
        prompt = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]},
        }
        proc.stdin.write(json.dumps(prompt).encode() + b"\n")
        proc.stdin.flush()
        while True:  # wait until the tool runs
            record = json.loads(proc.stdout.readline())
            if record.get("params", {}).get("update", {}).get("status") == "in_progress":
                break
        proc.stdin.close()
        rest = [json.loads(line) for line in proc.stdout.read().split(b"\n") if line]
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    answer = next(m for m in rest if m.get("id") == 3)
    assert answer["result"] == {"stopReason": "cancelled"}
