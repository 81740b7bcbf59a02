"""The in-process SDK (pi_rpc.runtime.open_session) against the offline faux model, with an
isolated agent dir; real session files under tmp."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from pi_rpc.runtime import PiSession, PromptResult, RuntimeCommandError, StartupProblem, open_session

from .modes_support import read_jsonl, session_files, user_texts


@pytest.mark.anyio
async def test_prompt_and_wait_returns_the_runs_events_and_reply(isolated_env, tmp_path, faux_script):
    script = faux_script([{"text": "hello from faux"}])
    async with open_session(cwd=tmp_path, model="faux/faux-1", faux_script=script) as session:
        assert isinstance(session, PiSession)
        result = await session.prompt_and_wait("hi")
        assert isinstance(result, PromptResult)
        types = [e["type"] for e in result.events]
        assert types[0] == "agent_start" and types[-1] == "agent_settled"
        assert result.text == "hello from faux"
        assert result.ok and result.stop_reason == "stop" and not result.aborted
        assert [m["role"] for m in result.messages] == ["system", "user", "assistant"]
        assert session.get_last_assistant_text() == "hello from faux"
        assert session.model["id"] == "faux-1"
        assert not session.is_streaming
        assert session.session_file is None  # in memory by default


@pytest.mark.anyio
async def test_listeners_sync_and_async_and_unsubscribe(isolated_env, tmp_path):
    seen_sync: list[str] = []
    seen_async: list[str] = []

    async def async_listener(event: dict[str, Any]) -> None:
        await anyio.sleep(0)
        seen_async.append(event["type"])

    async with open_session(cwd=tmp_path, model="faux/faux-1") as session:
        unsubscribe = session.subscribe(lambda e: seen_sync.append(e["type"]))
        session.subscribe(async_listener)
        first = await session.prompt_and_wait("one")
        unsubscribe()
        await session.prompt_and_wait("two")
    assert seen_sync == [e["type"] for e in first.events]
    assert seen_async.count("agent_settled") == 2


@pytest.mark.anyio
async def test_error_reply_is_reported_not_raised(isolated_env, tmp_path, faux_script):
    script = faux_script([{"error": {"status": 400, "body": "broken"}}])
    async with open_session(cwd=tmp_path, model="faux/faux-1", faux_script=script) as session:
        result = await session.prompt_and_wait("hi")
    assert not result.ok
    assert result.stop_reason == "error" and result.error_message == "400 broken"


@pytest.mark.anyio
async def test_session_file_fork_and_header(isolated_env, tmp_path, faux_script):
    script = faux_script([{"text": "A1"}, {"text": "A2"}, {"text": "A3"}])
    sessions = tmp_path / "sessions-here"
    async with open_session(
        cwd=tmp_path, model="faux/faux-1", session_dir=str(sessions), faux_script=script
    ) as session:
        await session.prompt_and_wait("q1")
        await session.prompt_and_wait("q2")
        original = session.session_file
        assert original is not None
        assert read_jsonl(Path(original))[0] == session.header
        forkable = session.get_fork_messages()
        assert [f["text"] for f in forkable] == ["q1", "q2"]
        result = await session.fork(forkable[-1]["entryId"])
        assert result == {"text": "q2", "cancelled": False}
        assert session.session_file != original
        after = await session.prompt_and_wait("q2 again")
        assert after.text == "A3"
        assert user_texts(session.get_entries()) == ["q1", "q2 again"]
    files = sorted(sessions.rglob("*.jsonl"))
    assert len(files) == 2
    assert session_files(isolated_env) == []  # nothing in the default dir


@pytest.mark.anyio
async def test_a_session_database(isolated_env, tmp_path, faux_script):
    script = faux_script([{"text": "A1"}, {"text": "A2"}])
    db = tmp_path / "sessions.db"
    async with open_session(
        cwd=tmp_path, model="faux/faux-1", session_store="sqlite", session_db=db, faux_script=script
    ) as session:
        await session.prompt_and_wait("q1")
        original = session.session_file
        assert original == f"sqlite:{db}#{session.session_id}"
        await session.fork(session.get_fork_messages()[0]["entryId"])
        assert session.session_file != original and session.header["parentSession"] == original
        await session.prompt_and_wait("q1 again")
    async with open_session(cwd=tmp_path, model="faux/faux-1", session=original) as again:
        assert user_texts(again.get_entries()) == ["q1"]
    assert sorted(tmp_path.rglob("*.jsonl")) == [] and session_files(isolated_env) == []
    with pytest.raises(ValueError, match="Unknown session store: csv"):
        async with open_session(cwd=tmp_path, session_store="csv"):
            pass


@pytest.mark.anyio
async def test_abort_a_running_prompt(isolated_env, tmp_path, faux_script):
    script = faux_script([{"text": "z" * 3000, "chunkChars": 1, "delayMs": 10}])
    streaming = anyio.Event()

    def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "message_update":
            streaming.set()

    async with open_session(cwd=tmp_path, model="faux/faux-1", faux_script=script) as session:
        session.subscribe(on_event)
        assert await session.prompt("go") == "started"
        with anyio.fail_after(20):
            await streaming.wait()
        assert session.is_streaming
        with pytest.raises(RuntimeCommandError, match="Agent is already processing"):
            await session.prompt("again")
        await session.abort()
        assert not session.is_streaming
        last = session.get_messages()[-1]
        assert last["role"] == "assistant" and last["stopReason"] == "aborted"


@pytest.mark.anyio
async def test_compact(isolated_env, tmp_path, faux_script):
    # Keep almost nothing recent so a two-exchange session has something to summarise.
    (isolated_env / "settings.json").write_text('{"compaction": {"keepRecentTokens": 1}}')
    script = faux_script([{"text": "first reply " * 20}, {"text": "second reply " * 20}, {"text": "SUMMARY"}])
    events: list[str] = []
    async with open_session(cwd=tmp_path, model="faux/faux-1", faux_script=script) as session:
        await session.prompt_and_wait("one")
        await session.prompt_and_wait("two")
        session.subscribe(lambda e: events.append(e["type"]))
        result = await session.compact()
        assert "SUMMARY" in result["summary"]
    assert "compaction_start" in events and "compaction_end" in events


@pytest.mark.anyio
async def test_startup_problem_and_invalid_options(isolated_env, tmp_path):
    with pytest.raises(StartupProblem, match='Model "nosuch/model" not found'):
        async with open_session(cwd=tmp_path, model="nosuch/model"):
            pass
    with pytest.raises(ValueError, match="Unknown tool"):
        async with open_session(cwd=tmp_path, tools=["read", "teleport"]):
            pass
    with pytest.raises(ValueError, match="fork cannot be combined"):
        async with open_session(cwd=tmp_path, fork="abc", no_session=True):
            pass


@pytest.mark.anyio
async def test_errors_in_the_block_propagate_unwrapped(isolated_env, tmp_path):
    with pytest.raises(KeyError):
        async with open_session(cwd=tmp_path, model="faux/faux-1"):
            raise KeyError("from the host")


def test_sdk_example_runs(tmp_path):
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp_path), PI_CODING_AGENT_DIR=str(tmp_path / "agent"), PI_OFFLINE="1")
    env["PYTHONPATH"] = str(root)
    proc = subprocess.run(
        [sys.executable, str(root / "examples" / "sdk_example.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "[tool] bash {'command': 'ls'}" in proc.stdout
    assert "assistant: You're welcome." in proc.stdout
    assert "forked; re-editable text was 'Thanks!'" in proc.stdout


@pytest.mark.anyio
async def test_navigate_tree_with_branch_summary(isolated_env, tmp_path, faux_script):
    script = faux_script(
        [
            {"text": "Answer one."},
            {"text": "Answer two, explored the database layer."},
            {"text": "The branch looked at the database layer.", "match": "<conversation>"},
            {"text": "Back on the main line."},
        ]
    )
    sessions = tmp_path / "nav-sessions"
    async with open_session(
        cwd=tmp_path, model="faux/faux-1", session_dir=str(sessions), faux_script=script
    ) as session:
        await session.prompt_and_wait("first question")
        await session.prompt_and_wait("explore the database")
        second_user = session.get_fork_messages()[1]["entryId"]
        result = await session.navigate_tree(second_user, summarize=True)
        assert result == {"cancelled": False, "editorText": "explore the database"}
        entries = session.get_entries()
        summary = entries[-1]
        assert summary["type"] == "branch_summary"
        assert "database layer" in summary["summary"]
        assert summary["details"] == {"readFiles": [], "modifiedFiles": []}
        roles = [m["role"] for m in session.get_messages()]
        assert roles == ["system", "user", "assistant", "branchSummary"]
        after = await session.prompt_and_wait("continue on main")
        assert after.text == "Back on the main line."
        # the summary is in the projection the model sees, and in the file after a reload
        lines = read_jsonl(Path(session.session_file))
        assert any(e.get("type") == "branch_summary" for e in lines)
        tree_children = [e for e in session.get_entries() if e.get("parentId") == summary["id"]]
        assert tree_children and tree_children[0]["message"]["role"] == "user"


@pytest.mark.anyio
async def test_navigate_tree_without_summary_and_errors(isolated_env, tmp_path, faux_script):
    script = faux_script([{"text": "A1"}, {"text": "A2"}])
    async with open_session(cwd=tmp_path, model="faux/faux-1", faux_script=script) as session:
        await session.prompt_and_wait("q1")
        await session.prompt_and_wait("q2")
        assistant_one = [
            e for e in session.get_entries() if e.get("type") == "message" and e["message"]["role"] == "assistant"
        ][0]["id"]
        result = await session.navigate_tree(assistant_one, label="checkpoint")
        assert result == {"cancelled": False}
        assert [m["role"] for m in session.get_messages()] == ["system", "user", "assistant"]
        assert session.agent_session.session.get_label(assistant_one) == "checkpoint"
        with pytest.raises(RuntimeCommandError, match="Entry nope not found"):
            await session.navigate_tree("nope")


@pytest.mark.anyio
async def test_extensions_load_into_an_sdk_session(isolated_env, tmp_path, faux_script):
    from pi_rpc.extensions import ExtensionUI

    ext = tmp_path / "sdk_ext.py"
    ext.write_text(
        "def setup(pi):\n"
        "    async def gate(event, ctx):\n"
        "        if event['toolName'] == 'bash' and not await ctx.ui.confirm('Run?', event['input']['command']):\n"
        "            return {'block': True, 'reason': 'denied by ' + ctx.mode}\n"
        "    pi.on('tool_call', gate)\n"
        "    pi.on('turn_start', lambda e, ctx: 1 / 0)\n"
        "    pi.register_tool({'name': 'shout', 'label': 'Shout', 'description': 'Upper-case text',\n"
        "                      'parameters': {'type': 'object', 'required': ['text'], 'properties': {'text': {'type': 'string'}}},\n"
        "                      'execute': lambda i, p, s, u, c: {'content': [{'type': 'text', 'text': p['text'].upper()}]}})\n"
    )
    script = faux_script(
        [
            {
                "toolCalls": [
                    {"name": "shout", "arguments": {"text": "hi"}, "id": "c1"},
                    {"name": "bash", "arguments": {"command": "echo no"}, "id": "c2"},
                ]
            },
            {"text": "done"},
        ]
    )

    class AlwaysNo(ExtensionUI):
        has_ui = True

        async def confirm(self, title, message, timeout=None, signal=None):
            return False

    errors: list[dict[str, Any]] = []
    async with open_session(
        cwd=tmp_path,
        model="faux/faux-1",
        faux_script=script,
        extensions=[ext],
        tools=["read", "bash", "shout"],
        extension_ui=AlwaysNo(),
        extension_mode="sdk",
        on_extension_error=errors.append,
    ) as session:
        result = await session.prompt_and_wait("go")
        ends = {e["toolCallId"]: e for e in result.events if e["type"] == "tool_execution_end"}
        assert ends["c1"]["result"]["content"] == [{"type": "text", "text": "HI"}]
        assert ends["c2"]["isError"] and ends["c2"]["result"]["content"][0]["text"] == "denied by sdk"
        assert session.extension_errors == errors
        assert errors[0] == {"extensionPath": str(ext), "event": "turn_start", "error": "division by zero"}

    broken = tmp_path / "broken.py"
    broken.write_text("def setup(pi):\n    raise RuntimeError('no')\n")
    with pytest.raises(StartupProblem, match="broken.py"):
        async with open_session(cwd=tmp_path, model="faux/faux-1", extensions=[broken]):
            pass
