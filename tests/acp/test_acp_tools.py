"""Tool calls over ACP (kinds, absolute locations, diffs, streamed output), cancel during a
tool, permission requests answered allow and reject, and the editor's buffers as the agent's
files (fs delegation) — all through the official client SDK against the real process."""

from __future__ import annotations

import anyio
import pytest

pytestmark = pytest.mark.anyio


def _calls(run):
    return {u.tool_call_id: u for u in run.client.of("tool_call")}


def _final(run, call_id):
    return [
        u
        for u in run.client.of("tool_call_update")
        if u.tool_call_id == call_id and u.status in ("completed", "failed")
    ][-1]


async def test_read_edit_and_bash_tool_calls(acp_agent):
    script = [
        {"toolCalls": [{"id": "r1", "name": "read", "arguments": {"path": "notes.txt"}}]},
        {
            "toolCalls": [
                {
                    "id": "e1",
                    "name": "edit",
                    "arguments": {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]},
                }
            ]
        },
        {"toolCalls": [{"id": "b1", "name": "bash", "arguments": {"command": "echo from-bash"}}]},
        {"text": "All done."},
    ]
    async with acp_agent(script=script) as run:
        (run.cwd / "notes.txt").write_text("alpha\nbeta\ngamma\n")
        await run.initialize()
        session = await run.new_session()
        result = await run.prompt(session.session_id, "work on notes")
        assert result.stop_reason == "end_turn" and run.client.text().endswith("All done.")
        calls = _calls(run)
        notes = str(run.cwd / "notes.txt")
        assert (calls["r1"].kind, calls["r1"].title) == ("read", "Read notes.txt")
        assert calls["r1"].locations[0].path == notes  # absolute on the wire
        assert (calls["e1"].kind, calls["b1"].kind) == ("edit", "execute")
        assert calls["b1"].title == "echo from-bash"
        read_done = _final(run, "r1")
        assert read_done.status == "completed" and "alpha\nbeta" in read_done.content[0].content.text
        edit_done = _final(run, "e1")
        diff = edit_done.content[0]
        assert (diff.type, diff.path) == ("diff", notes)
        assert (diff.old_text, diff.new_text) == ("alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n")
        assert edit_done.locations[0].path == notes and edit_done.locations[0].line == 2
        bash_done = _final(run, "b1")
        assert bash_done.status == "completed" and "from-bash" in bash_done.content[0].content.text
        assert (run.cwd / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"


async def test_write_shows_a_diff_from_nothing(acp_agent):
    script = [
        {"toolCalls": [{"id": "w1", "name": "write", "arguments": {"path": "sub/new.txt", "content": "fresh\n"}}]},
        {"text": "ok"},
    ]
    async with acp_agent(script=script) as run:
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "write it")
        diff = _final(run, "w1").content[0]
        assert (diff.path, diff.old_text, diff.new_text) == (str(run.cwd / "sub" / "new.txt"), None, "fresh\n")


async def test_cancel_during_a_tool_ends_the_turn_cancelled(acp_agent):
    script = [
        {"toolCalls": [{"id": "slow", "name": "bash", "arguments": {"command": "echo started; sleep 30"}}]},
        {"text": "never"},
    ]
    async with acp_agent(script=script) as run:
        await run.initialize()
        session = await run.new_session()
        running = run.client.when(
            lambda u: (
                u.session_update == "tool_call_update"
                and u.tool_call_id == "slow"
                and u.status == "in_progress"
                and u.content
            )
        )
        result = await run.prompt_then_cancel(session.session_id, "run the slow thing", running.wait)
        assert result.stop_reason == "cancelled"
        assert _final(run, "slow").status == "failed"
        assert "never" not in run.client.text()


async def test_permissions_allow_and_reject(acp_agent):
    script = [
        {"toolCalls": [{"id": "w1", "name": "write", "arguments": {"path": "allowed.txt", "content": "yes\n"}}]},
        {"toolCalls": [{"id": "b1", "name": "bash", "arguments": {"command": "touch rejected.txt"}}]},
        {"toolCalls": [{"id": "r1", "name": "read", "arguments": {"path": "allowed.txt"}}]},
        {"text": "finished"},
    ]
    async with acp_agent(script=script, settings={"acp": {"permissions": "ask-writes"}}) as run:
        run.client.permission_answers = ["allow", "reject"]
        await run.initialize()
        session = await run.new_session()
        assert (await run.prompt(session.session_id, "go")).stop_reason == "end_turn"
        asked = [call.tool_call_id for call, _ in run.client.permission_requests]
        assert asked == ["w1", "b1"]  # read is not a write: not asked under ask-writes
        write_call, options = run.client.permission_requests[0]
        assert {o.kind for o in options} == {"allow_once", "allow_always", "reject_once"}
        assert write_call.content[0].new_text == "yes\n" and write_call.content[0].path == str(run.cwd / "allowed.txt")
        assert (run.cwd / "allowed.txt").read_text() == "yes\n"
        assert not (run.cwd / "rejected.txt").exists()
        rejected = _final(run, "b1")
        assert rejected.status == "failed" and "rejected" in rejected.content[0].content.text
        assert _final(run, "r1").status == "completed"


async def test_ask_all_and_allow_always(acp_agent):
    script = [
        {"toolCalls": [{"id": "r1", "name": "read", "arguments": {"path": "a.txt"}}]},
        {"toolCalls": [{"id": "r2", "name": "read", "arguments": {"path": "a.txt"}}]},
        {"text": "done"},
    ]
    async with acp_agent(script=script, settings={"acp": {"permissions": "ask-all"}}) as run:
        (run.cwd / "a.txt").write_text("A\n")
        run.client.permission_answers = ["allow_always"]
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "read twice")
        assert [c.tool_call_id for c, _ in run.client.permission_requests] == ["r1"]
        assert _final(run, "r2").status == "completed"


async def test_fs_delegation_reads_unsaved_buffers_and_writes_to_the_editor(acp_agent):
    script = [
        {"toolCalls": [{"id": "r1", "name": "read", "arguments": {"path": "draft.py"}}]},
        {
            "toolCalls": [
                {
                    "id": "e1",
                    "name": "edit",
                    "arguments": {"path": "draft.py", "edits": [{"oldText": "unsaved", "newText": "edited"}]},
                }
            ]
        },
        {"toolCalls": [{"id": "w1", "name": "write", "arguments": {"path": "out.txt", "content": "to the editor\n"}}]},
        {"text": "done"},
    ]
    async with acp_agent(script=script) as run:
        draft = run.cwd / "draft.py"
        draft.write_text("print('on disk')\n")
        run.client.buffers[str(draft)] = "print('unsaved')\n"
        await run.initialize(fs=True)
        session = await run.new_session()
        await run.prompt(session.session_id, "look at my draft")
        assert "print('unsaved')" in _final(run, "r1").content[0].content.text
        assert (str(draft), "print('edited')\n") in run.client.writes
        assert (str(run.cwd / "out.txt"), "to the editor\n") in run.client.writes
        edit_diff = _final(run, "e1").content[0]
        assert (edit_diff.old_text, edit_diff.new_text) == ("print('unsaved')\n", "print('edited')\n")
        assert draft.read_text() == "print('on disk')\n"  # the editor owns the file now
        assert not (run.cwd / "out.txt").exists()
        assert str(draft) in run.client.reads


async def test_cancel_ends_a_pending_permission_request(acp_agent):
    script = [
        {"toolCalls": [{"id": "w1", "name": "write", "arguments": {"path": "held.txt", "content": "no\n"}}]},
        {"text": "never"},
    ]
    async with acp_agent(script=script, settings={"acp": {"permissions": "ask-writes"}}) as run:
        run.client.permission_answers = ["hold"]  # this client never answers
        await run.initialize()
        session = await run.new_session()

        async def asked() -> None:
            while not run.client.permission_requests:
                await anyio.sleep(0.01)

        result = await run.prompt_then_cancel(session.session_id, "write it", asked)
        assert result.stop_reason == "cancelled"
        assert not (run.cwd / "held.txt").exists()
        assert _final(run, "w1").status == "failed"
