"""The interactive mode (``pi`` in a terminal) driven headless with Textual's pilot over the
real session runtime and the offline faux model: prompts with tool calls, steering, abort,
model switch, /tree, /fork, /resume, an extension's confirm dialog; plus the lazy import of
Textual and a real terminal (tmux) run of ``python -m pi_rpc``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import _env
from .interactive_support import Tmux, idle, roles_texts, running_app, type_and_enter, until

pytestmark = pytest.mark.anyio


async def test_prompt_with_a_tool_call_shows_the_call_its_output_and_the_answer(isolated_env, tmp_path, faux_script):
    from pi_rpc.modes.interactive.transcript import AssistantText, ToolCall, UserMessage

    script = faux_script(
        [
            {
                "thinking": "plan",
                "text": "Let me look.",
                "toolCalls": [{"name": "bash", "arguments": {"command": "echo hi-from-bash"}}],
            },
            {"text": "All **done**."},
        ]
    )
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "list it")
        await until(pilot, lambda: any(m[0] == "assistant" and "done" in m[1] for m in roles_texts(app)))
        await until(pilot, lambda: idle(app) and len(app.query(AssistantText)) == 2)
        await pilot.pause(0.1)
        assert [w.text for w in app.query(UserMessage)] == ["list it"]
        (call,) = app.query(ToolCall)
        assert call.tool_name == "bash" and call.done and not call.is_error
        assert "hi-from-bash" in call.output
        assert [w.text for w in app.query(AssistantText)] == ["Let me look.", "All **done**."]
        assert "faux-1" in str(app.areas["footer"].render())


async def test_enter_while_streaming_steers_and_escape_aborts(isolated_env, tmp_path, faux_script):
    slow = {"text": "x" * 400, "delayMs": 20, "chunkChars": 1}
    script = faux_script([slow, {"text": "steered reply"}, slow])
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "start")
        await until(pilot, lambda: app.session.is_streaming)
        await type_and_enter(pilot, "go left instead")
        await until(pilot, lambda: idle(app) and ("assistant", "steered reply") in roles_texts(app), timeout=20)
        texts = roles_texts(app)
        assert ("user", "go left instead") in texts
        assert texts.index(("user", "go left instead")) < texts.index(("assistant", "steered reply"))
        # Esc aborts the next run mid-stream.
        await type_and_enter(pilot, "again")
        await until(pilot, lambda: app.session.is_streaming)
        await pilot.pause(0.2)
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        last = app.session.get_messages()[-1]
        assert last["role"] == "assistant" and last["stopReason"] == "aborted"


async def test_model_switch_through_the_picker(isolated_env, tmp_path):
    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "/model")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        for ch in "reasoner":
            await pilot.press(ch)
        await pilot.press("enter")
        await until(pilot, lambda: app.session.model["id"] == "faux-reasoner")
        await pilot.pause(0.05)
        assert "faux-reasoner" in str(app.areas["footer"].render())
        await type_and_enter(pilot, "/thinking high")
        await until(pilot, lambda: app.session.thinking_level == "high")


async def _pick(pilot: Any, filter_text: str) -> None:
    app = pilot.app
    await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
    for ch in filter_text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.press("enter")


async def test_tree_navigation_moves_the_leaf_and_puts_the_message_in_the_editor(isolated_env, tmp_path):
    async with running_app(tmp_path, session_dir=str(tmp_path / "sessions")) as (app, pilot):
        for text in ("first question", "second question"):
            await type_and_enter(pilot, text)
            await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        await type_and_enter(pilot, "/tree")
        await _pick(pilot, "user: second")
        await _pick(pilot, "continue from here")
        await until(pilot, lambda: app.editor.text == "second question")
        assert [t for r, t in roles_texts(app) if r == "user"] == ["first question"]
        # Labels: /tree, pick an entry, "Set label…".
        await type_and_enter(pilot, "/tree")
        await _pick(pilot, "user: first")
        await _pick(pilot, "label")
        await until(pilot, lambda: type(app.screen).__name__ == "InputScreen")
        await pilot.press(*"keep")
        await pilot.press("enter")
        store = app.session.session
        first_id = store.get_fork_messages()[0]["entryId"]
        await until(pilot, lambda: store.get_label(first_id) == "keep")


async def test_fork_and_resume(isolated_env, tmp_path):
    async with running_app(tmp_path, session_dir=str(tmp_path / "sessions")) as (app, pilot):
        for text in ("alpha", "beta"):
            await type_and_enter(pilot, text)
            await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        original = app.session.session.session_file
        await type_and_enter(pilot, "/fork")
        await _pick(pilot, "beta")
        await until(pilot, lambda: app.session.session.session_file != original)
        assert app.editor.text == "beta"
        assert [t for r, t in roles_texts(app) if r == "user"] == ["alpha"]
        # /resume brings the original session (both questions) back.
        app.editor.load_text("")
        await type_and_enter(pilot, "/resume")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        options = app.screen.options
        index = next(i for i, (_, path) in enumerate(options) if path == original)
        await pilot.press(*(["down"] * index), "enter")
        await until(pilot, lambda: app.session.session.session_file == original)
        assert [t for r, t in roles_texts(app) if r == "user"] == ["alpha", "beta"]


GATE = """
def setup(pi):
    @pi.on("tool_call")
    async def gate(event, ctx):
        ok = await ctx.ui.confirm("Run it?", event["input"]["command"])
        ctx.ui.notify(f"gate saw {ok}")
        if not ok:
            return {"block": True, "reason": "Blocked by user"}
"""


async def test_an_extensions_confirm_dialog_is_a_modal(isolated_env, tmp_path, faux_script):
    from pi_rpc.modes.interactive.transcript import Notice, ToolCall

    ext = tmp_path / "gate.py"
    ext.write_text(GATE)
    script = faux_script(
        [
            {"toolCalls": [{"name": "bash", "arguments": {"command": "echo should-not-run"}}]},
            {"text": "ok"},
        ]
    )
    async with running_app(tmp_path, faux_script=script, extensions=[str(ext)], approve=True) as (app, pilot):
        await until(pilot, lambda: app.session.ext is None or app.ui is not None)
        await pilot.pause(0.2)  # extensions bound by the app's startup worker
        await type_and_enter(pilot, "run it")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        assert app.screen.message == "echo should-not-run"
        await pilot.press("down", "enter")  # "No"
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1] == ("assistant", "ok"))
        await pilot.pause(0.1)
        (call,) = app.query(ToolCall)
        assert call.is_error and "Blocked by user" in call.output
        assert any(n.text == "gate saw False" for n in app.query(Notice))


@pytest.mark.parametrize("mode_args", [("--mode", "json", "hi"), ("-p", "hi"), ("--mode", "rpc")])
def test_other_modes_import_nothing_of_textual(tmp_path, mode_args):
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_rpc", "--no-session", *mode_args],
        cwd=tmp_path,
        env=_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line]
    assert "pi_rpc.cli" in imported  # the import log is there
    assert not [m for m in imported if m.split(".")[0] == "textual"]
    assert not [m for m in imported if m.startswith("pi_rpc.modes.interactive")]


def _wait_file(path: Path, timeout: float = 15) -> str:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return path.read_text().strip() if path.exists() else ""


def _only_greys(screen_with_escapes: str) -> bool:
    """Every SGR colour is a grey (256-palette 232-255, black/white, or equal RGB)."""
    for params in re.findall(r"\x1b\[([0-9;]*)m", screen_with_escapes):
        values = [int(v) for v in params.split(";") if v]
        for i, value in enumerate(values):
            if value in (38, 48) and values[i + 1 : i + 2] == [5] and i + 2 < len(values):
                if not (values[i + 2] >= 232 or values[i + 2] in (0, 7, 8, 15, 16)):
                    return False
            if value in (38, 48) and values[i + 1 : i + 2] == [2]:
                r, g, b = values[i + 2 : i + 5]
                if not r == g == b:
                    return False
    return True


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


@needs_tmux
@pytest.mark.parametrize("no_color", [False, True])
def test_real_terminal_prompt_answer_and_clean_quit(tmp_path, no_color):
    marker = tmp_path / "exit-code"
    command = f"{sys.executable} -m pi_rpc --no-session --model faux/faux-1; echo $? > {marker}; sleep 30"
    term = Tmux(tmp_path, command, {"NO_COLOR": "1"} if no_color else None)
    try:
        term.wait_for("faux-1")
        term.type("hello terminal")
        term.wait_for("You said: hello terminal")  # printed into the scrollback above the region
        shown = term.wait_for("╭")  # the editor is drawn again below it
        assert "You said: hello terminal" in shown
        if no_color:
            assert _only_greys(term.screen(escapes=True))
        term.type("/quit")
        assert _wait_file(marker) == "0"
        assert "You said: hello terminal" in term.screen()  # the last frame stays
    finally:
        term.kill()


@needs_tmux
def test_hangup_ends_the_process(tmp_path):
    pid_file = tmp_path / "pid"
    command = f"echo $$ > {pid_file}; exec {sys.executable} -m pi_rpc --no-session --model faux/faux-1"
    term = Tmux(tmp_path, command)
    try:
        term.wait_for("faux-1")
        pid = int(_wait_file(pid_file))
    finally:
        term.kill()  # SIGHUP to the process on the terminal
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, 9)
    raise AssertionError("pi did not exit after SIGHUP")


@needs_tmux
def test_finished_messages_go_to_the_scrollback_once(tmp_path):
    """Answers leave the live region for the terminal's scrollback; after quitting every prompt
    and answer is there exactly once (more than one screen of conversation in 24 rows)."""
    marker = tmp_path / "exit-code"
    command = (
        f"{sys.executable} -m pi_rpc --no-session --model faux/faux-1 --tui-mode regular; echo $? > {marker}; sleep 30"
    )
    term = Tmux(tmp_path, command)
    prompts = [f"question number {i}" for i in range(8)]
    try:
        term.wait_for("faux-1")
        for prompt in prompts:
            term.type(prompt)
            term.wait_for(f"You said: {prompt}")
        term.type("/quit")
        assert _wait_file(marker) == "0"
        history = subprocess.run(
            [*term.tmux, "capture-pane", "-p", "-S", "-", "-t", term.name], capture_output=True, text=True
        ).stdout
        for prompt in prompts:
            assert history.count(f"You said: {prompt}") == 1, history
            assert history.count(f"{prompt}\n") + history.count(f"{prompt} ") >= 2, history
        assert history.index("You said: question number 0") < history.index("You said: question number 7")
    finally:
        term.kill()


VIRTUAL_ROUTER = """
def setup(pi):
    def route(request, ctx):
        return {"model": ctx.model_registry.find("faux", "faux-reasoner"), "thinkingLevel": "high"}

    pi.register_virtual_model({"provider": "pyrouter", "id": "auto", "thinkingLevels": ["off", "low"], "route": route})
"""


async def test_the_footer_shows_where_a_virtual_model_routed_the_latest_response(isolated_env, tmp_path, faux_script):
    ext = tmp_path / "router.py"
    ext.write_text(VIRTUAL_ROUTER)
    script = faux_script([{"text": "routed answer"}])
    async with running_app(
        tmp_path, size=(120, 24), faux_script=script, extensions=[str(ext)], model="pyrouter/auto", thinking="low"
    ) as (app, pilot):
        await pilot.pause(0.2)  # extensions bound by the app's startup worker
        before = str(app.areas["footer"].render())
        assert "auto • low" in before and "→" not in before  # no response yet
        await type_and_enter(pilot, "hi")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1] == ("assistant", "routed answer"))
        await pilot.pause(0.1)
        app.refresh_footer()
        # upstream's form: the selection, then `→ <routed model id> • <its level>`
        assert "auto • low → faux-reasoner • high" in str(app.areas["footer"].render())
