"""What the interactive mode shows of a conversation (issue 37): a resumed session's whole
branch (answers, tool calls with their output, ``!`` commands, compaction), line breaks kept in
answers, tool output collapsed to its last lines with Ctrl+O to expand and ``Took``, thinking
shown or hidden with Ctrl+T, queued messages back in the editor with Alt+Up, the external
editor (Ctrl+G), the startup header and upstream's footer."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from .interactive_support import idle, roles_texts, running_app, type_and_enter, until

pytestmark = pytest.mark.anyio


def _plain(widget) -> str:
    return widget.body_text.plain


async def _conversation_with_everything(tmp_path: Path, faux_script) -> str:
    """A session file holding a prompt, a tool call and its result, an answer with a line
    break, a ``!`` command and a compaction; returns its path."""
    script = faux_script(
        [
            {"text": "Checking.", "toolCalls": [{"name": "bash", "arguments": {"command": "seq 1 12"}}]},
            {"text": "First line of the answer\nSecond line of the answer"},
        ]
    )
    # a small keepRecentTokens so that the few turns here leave something to compact
    (tmp_path / "agent" / "settings.json").write_text('{"compaction": {"keepRecentTokens": 10}}')
    async with running_app(tmp_path, faux_script=script, session_dir=str(tmp_path / "sessions")) as (app, pilot):
        await type_and_enter(pilot, "count to twelve")
        await until(pilot, lambda: idle(app) and "Second line" in roles_texts(app)[-1][1], timeout=20)
        for n in range(3):
            await type_and_enter(pilot, f"more talk {n} " + "words " * 40)
            await until(pilot, lambda n=n: idle(app) and roles_texts(app)[-1][1].startswith(f"You said: more talk {n}"))
        await type_and_enter(pilot, "!echo from-bang")
        await until(pilot, lambda: any(m.get("role") == "bashExecution" for m in app.session.get_messages()))
        await type_and_enter(pilot, "/compact")
        try:
            await until(
                pilot, lambda: any(e.get("type") == "compaction" for e in app.session.session.get_entries()), 20
            )
        except AssertionError:
            from pi_rpc.modes.interactive.transcript import Notice

            raise AssertionError([n.text for n in app.query(Notice)]) from None
        await type_and_enter(pilot, "after the compaction")
        await until(
            pilot, lambda: idle(app) and roles_texts(app)[-1] == ("assistant", "You said: after the compaction")
        )
        return str(app.session.session.session_file)


async def test_a_resumed_session_shows_its_whole_branch(isolated_env, tmp_path, faux_script):
    from pi_rpc.modes.interactive.transcript import AssistantText, Notice, ToolCall, UserMessage

    path = await _conversation_with_everything(tmp_path, faux_script)
    async with running_app(tmp_path, session=path, session_dir=str(tmp_path / "sessions")) as (app, pilot):
        await pilot.pause(0.2)
        notices = [n.text for n in app.query(Notice)]
        assert any(text.startswith("[compaction] Compacted from") for text in notices), notices
        assert "Session compacted 1 time" in notices
        answers = [w.text for w in app.query(AssistantText)]
        assert "You said: after the compaction" in answers
        assert [w.text for w in app.query(UserMessage)][-1] == "after the compaction"
        # the printed copy (scrollback / fullscreen exit) carries the answer, not an empty block
        from rich.console import Console

        console = Console(width=80, record=True, file=open(os.devnull, "w"))
        console.print(*app.transcript.renderables())
        assert "You said: after the compaction" in console.export_text()
    # the branch before the compaction is shown from its kept messages in a session without one
    first = await _first_turns_only(tmp_path, faux_script)
    async with running_app(tmp_path, session=first, session_dir=str(tmp_path / "sessions")) as (app, pilot):
        await pilot.pause(0.2)
        calls = list(app.query(ToolCall))
        assert calls and calls[0].done and "12" in calls[0].output
        assert any("from-bang" in call.output for call in calls)  # the ! command
        assert ["Checking.", "First line of the answer\nSecond line of the answer"] == [
            w.text for w in app.query(AssistantText)
        ][:2]
        assert [w.text for w in app.query(UserMessage)] == ["count to twelve"]


async def _first_turns_only(tmp_path: Path, faux_script) -> str:
    script = faux_script(
        [
            {"text": "Checking.", "toolCalls": [{"name": "bash", "arguments": {"command": "seq 1 12"}}]},
            {"text": "First line of the answer\nSecond line of the answer"},
        ]
    )
    sessions = str(tmp_path / "sessions")
    async with running_app(tmp_path, faux_script=script, session_dir=sessions) as (app, pilot):
        await type_and_enter(pilot, "count to twelve")
        await until(pilot, lambda: idle(app) and "Second line" in roles_texts(app)[-1][1], timeout=20)
        await type_and_enter(pilot, "!echo from-bang")
        await until(pilot, lambda: any(m.get("role") == "bashExecution" for m in app.session.get_messages()))
        return str(app.session.session.session_file)


async def test_line_breaks_in_an_answer_are_kept_live_and_in_the_printed_copy(isolated_env, tmp_path, faux_script):
    from rich.console import Console

    from pi_rpc.modes.interactive.transcript import AssistantText

    script = faux_script([{"text": "Line one here\nLine two here\n\nA paragraph"}])
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "answer in lines")
        await until(pilot, lambda: idle(app) and len(app.query(AssistantText)) == 1)
        await pilot.pause(0.2)
        (answer,) = app.query(AssistantText)
        live = [strip.text.strip() for strip in answer.render_lines(answer.region.reset_offset)]
        assert live[:2] == ["Line one here", "Line two here"]  # the paragraph's two lines, live
        console = Console(width=80, record=True, file=open(os.devnull, "w"))
        console.print(*app.transcript.renderables())
        printed = [line.strip() for line in console.export_text().splitlines()]
        assert "Line one here" in printed and "Line two here" in printed  # two lines, not one


async def test_tool_output_is_collapsed_to_its_last_lines_and_ctrl_o_expands_it(isolated_env, tmp_path, faux_script):
    from pi_rpc.modes.interactive.transcript import ToolCall

    script = faux_script([{"toolCalls": [{"name": "bash", "arguments": {"command": "seq 1 12"}}]}, {"text": "counted"}])
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "count")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1] == ("assistant", "counted"))
        (call,) = app.query(ToolCall)
        lines = _plain(call).split("\n")
        assert lines[0] == "$ seq 1 12"
        assert lines[1] == "... (7 earlier lines, ctrl+o to expand)"
        assert lines[2:7] == ["8", "9", "10", "11", "12"]
        assert lines[-1].startswith("Took ") and lines[-1].endswith("s")
        await pilot.press("ctrl+o")
        await pilot.pause(0.05)
        expanded = _plain(call).split("\n")
        assert expanded[1:13] == [str(n) for n in range(1, 13)]
        await pilot.press("ctrl+o")
        await pilot.pause(0.05)
        assert "earlier lines" in _plain(call)


async def test_ctrl_t_hides_and_shows_thinking_and_saves_the_setting(isolated_env, tmp_path, faux_script):
    import json

    from pi_rpc.modes.interactive.transcript import Thinking

    script = faux_script([{"thinking": "deep thoughts", "text": "answer"}])
    async with running_app(tmp_path, faux_script=script, model="faux/faux-reasoner", thinking="low") as (app, pilot):
        await type_and_enter(pilot, "think")
        await until(pilot, lambda: idle(app) and len(app.query(Thinking)) == 1)
        (block,) = app.query(Thinking)
        assert not block.collapsed and block.text == "deep thoughts"  # upstream shows thinking by default
        await pilot.press("ctrl+t")
        await pilot.pause(0.05)
        assert block.collapsed
        settings = json.loads((isolated_env / "settings.json").read_text())
        assert settings["hideThinkingBlock"] is True
        await pilot.press("ctrl+t")
        await pilot.pause(0.05)
        assert not block.collapsed


async def test_alt_up_puts_the_queued_messages_back_in_the_editor(isolated_env, tmp_path, faux_script):
    slow = {"text": "y" * 300, "delayMs": 20, "chunkChars": 1}
    script = faux_script([slow, {"text": "done"}])
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "start slowly")
        await until(pilot, lambda: app.session.is_streaming)
        await app.session.prompt("queued one", None, "followUp")
        await app.session.prompt("queued two", None, "followUp")
        app.editor.load_text("draft")
        await pilot.press("alt+up")
        await until(pilot, lambda: app.editor.text == "queued one\n\nqueued two\n\ndraft")
        assert app.session.queue.pending_message_count == 0
        await app.session.abort()


async def test_ctrl_g_edits_the_prompt_in_the_external_editor(isolated_env, tmp_path, monkeypatch):
    editor = tmp_path / "fake-editor"
    editor.write_text('#!/bin/sh\nprintf "edited: %s\\n" "$(cat "$1")" > "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("VISUAL", str(editor))
    async with running_app(tmp_path) as (app, pilot):
        app.editor.load_text("original")
        await pilot.press("ctrl+g")
        await until(pilot, lambda: app.editor.text == "edited: original")
    failing = tmp_path / "failing-editor"
    failing.write_text("#!/bin/sh\nexit 3\n")
    failing.chmod(failing.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("VISUAL", str(failing))
    from pi_rpc.modes.interactive.transcript import Notice

    async with running_app(tmp_path) as (app, pilot):
        app.editor.load_text("keep me")
        await pilot.press("ctrl+g")
        await until(pilot, lambda: any("exited with code 3" in n.text for n in app.query(Notice)))
        assert app.editor.text == "keep me"


async def test_startup_header_and_upstreams_footer(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.transcript import Header

    cwd = tmp_path / "home" / "repo"  # under HOME: shown as ~/repo
    (cwd / ".git").mkdir(parents=True)
    (cwd / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    async with running_app(cwd) as (app, pilot):
        (header,) = app.query(Header)
        assert "escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more" in _plain(header)
        await pilot.press("ctrl+o")
        await pilot.pause(0.05)
        assert "shift+tab to cycle thinking level" in _plain(header)
        footer = str(app.areas["footer"].render())
        first, second = footer.split("\n")[:2]
        assert first.strip() == f"~{os.sep}repo (feature-x)"
        assert "0.0%/128k (auto)" in second and second.rstrip().endswith("faux-1")
        await type_and_enter(pilot, "hello")
        await until(pilot, lambda: idle(app) and "↑" in str(app.areas["footer"].render()))


async def test_quiet_startup_hides_the_header(isolated_env, tmp_path):
    import json

    from pi_rpc.modes.interactive.transcript import Header

    (isolated_env / "settings.json").write_text(json.dumps({"quietStartup": True}))
    async with running_app(tmp_path) as (app, pilot):
        assert not app.query(Header)


async def test_a_failed_compaction_is_reported_once(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.transcript import Notice

    async with running_app(tmp_path) as (app, pilot):
        await app.transcript.handle(
            {"type": "compaction_end", "reason": "threshold", "errorMessage": "Compaction failed: boom"}
        )
        assert [n.text for n in app.query(Notice)][-1] == "Compaction failed: boom"


async def test_an_empty_text_block_before_a_tool_call_does_not_stall_the_app(isolated_env, tmp_path, faux_script):
    """Regression: an empty text delta used to start a Markdown stream that text_end cancelled
    before it ran; the CancelledError stopped the transcript's handler and the app hung."""
    from pi_rpc.modes.interactive.transcript import AssistantText, ToolCall

    script = faux_script(
        [{"text": "", "toolCalls": [{"name": "bash", "arguments": {"command": "echo e"}}]}, {"text": "ran it"}]
    )
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "run")
        await until(pilot, lambda: idle(app) and ("assistant", "ran it") in roles_texts(app))
        await pilot.pause(0.1)
        assert [w.text for w in app.query(AssistantText)] == ["ran it"]
        assert len(app.query(ToolCall)) == 1
