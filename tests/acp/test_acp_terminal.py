"""``acp.terminal: true``: ``bash`` runs in the editor's terminal (``terminal/*``) when the client
offers terminals — the recording client runs each terminal as a real process. The terminal is
embedded in the tool call, the model gets the same result as from a local run, and a timeout or
``session/cancel`` kills the terminal's command."""

from __future__ import annotations

import json

import anyio
import pytest

pytestmark = pytest.mark.anyio

TERMINAL = {"acp": {"terminal": True}}


def _final(run, call_id):
    return [
        u
        for u in run.client.of("tool_call_update")
        if u.tool_call_id == call_id and u.status in ("completed", "failed")
    ][-1]


def _tool_results(run) -> dict[str, dict]:
    """The tool results as the model got them, from the session file."""
    results = {}
    for path in (run.agent_dir / "sessions").rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            message = entry.get("message") or {}
            if message.get("role") == "toolResult":
                results[message["toolCallId"]] = message
    return results


async def test_bash_runs_in_the_editors_terminal(acp_agent):
    script = [
        {
            "toolCalls": [
                {
                    "id": "t1",
                    "name": "bash",
                    "arguments": {"command": "printf 'from \\033[31mterminal\\033[0m\\n'; echo $PI_SESSION_ID; pwd"},
                }
            ]
        },
        {"toolCalls": [{"id": "t2", "name": "bash", "arguments": {"command": "echo failing; exit 3"}}]},
        {"text": "done"},
    ]
    async with acp_agent(script=script, settings=TERMINAL) as run:
        await run.initialize(terminal=True)
        session = await run.new_session()
        assert (await run.prompt(session.session_id, "run it")).stop_reason == "end_turn"
        kind, create = run.client.terminal_calls[0]
        assert kind == "create" and create["args"][0] == "-c" and create["command"].endswith("sh")
        assert create["cwd"] == str(run.cwd) and create["limit"] == 4 * 1024 * 1024
        assert {v.name: v.value for v in create["env"]}["PI_SESSION_ID"] == session.session_id
        assert [k for k, _ in run.client.terminal_calls[1:4]] == ["wait_for_exit", "output", "release"]
        embedded = [
            u
            for u in run.client.of("tool_call_update")
            if u.tool_call_id == "t1" and u.content and u.content[0].type == "terminal"
        ]
        assert embedded and embedded[0].status == "in_progress" and embedded[0].content[0].terminal_id == "term-1"
        done = _final(run, "t1")
        assert done.status == "completed" and [c.type for c in done.content] == ["terminal"]
        failed = _final(run, "t2")
        assert failed.status == "failed" and failed.content[1].content.text == "Command exited with code 3"
        results = _tool_results(run)
        assert (
            results["t1"]["content"][0]["text"] == f"from terminal\n{session.session_id}\n{run.cwd}\n"
        )  # ANSI removed
        assert results["t1"]["isError"] is False
        assert results["t2"]["content"][0]["text"] == "failing\n\n\nCommand exited with code 3"
        assert results["t2"]["isError"] is True


async def test_timeout_and_cancel_kill_the_terminal(acp_agent):
    script = [
        {
            "toolCalls": [
                {"id": "slow", "name": "bash", "arguments": {"command": "echo started; sleep 30", "timeout": 1}}
            ]
        },
        {"toolCalls": [{"id": "slower", "name": "bash", "arguments": {"command": "echo waiting; sleep 30"}}]},
        {"text": "never"},
    ]
    async with acp_agent(script=script, settings=TERMINAL) as run:
        await run.initialize(terminal=True)
        session = await run.new_session()
        embedded = run.client.when(
            lambda u: (
                u.session_update == "tool_call_update"
                and u.tool_call_id == "slower"
                and bool(u.content)
                and u.content[0].type == "terminal"
            )
        )

        async def printed() -> None:
            await embedded.wait()
            # Cancel only once the command has printed: otherwise the kill may race its first
            # output and the result would rightly be just "Command aborted".
            while not any(b"waiting" in t.output for t in run.client.terminals.values()):
                await anyio.sleep(0.01)

        result = await run.prompt_then_cancel(session.session_id, "wait", printed)
        assert result.stop_reason == "cancelled"
        timed_out = _final(run, "slow")
        assert (
            timed_out.status == "failed" and timed_out.content[-1].content.text == "Command timed out after 1 seconds"
        )
        assert _final(run, "slower").status == "failed"
        kinds = [kind for kind, _ in run.client.terminal_calls]
        assert kinds.count("kill") == 2 and kinds.count("release") == 2
        assert all(terminal.done.is_set() for terminal in run.client.terminals.values())
        results = _tool_results(run)
        assert results["slow"]["content"][0]["text"] == "started\n\n\nCommand timed out after 1 seconds"
        assert results["slower"]["content"][0]["text"] == "waiting\n\n\nCommand aborted"


async def test_local_bash_without_the_setting_or_the_capability(acp_agent):
    script = [{"toolCalls": [{"id": "b1", "name": "bash", "arguments": {"command": "echo local"}}]}, {"text": "ok"}]
    for settings, offered in ((TERMINAL, False), ({}, True)):
        async with acp_agent(script=script, settings=settings) as run:
            await run.initialize(terminal=offered)
            session = await run.new_session()
            await run.prompt(session.session_id, "run")
            assert run.client.terminal_calls == []
            assert "local" in _final(run, "b1").content[0].content.text
