"""The interactive mode (``pi`` in a terminal) driven headless with Textual's pilot over the
real session runtime and the offline faux model: prompts with tool calls, steering, abort,
model switch, /tree, /fork, /resume, an extension's confirm dialog; plus the lazy import of
Textual and a real terminal (tmux) run of ``python -m pi_rpc``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from typing import Any

import pytest

from .conftest import _env
from .interactive_support import idle, roles_texts, running_app, type_and_enter, until

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
        assert "faux/faux-1" in str(app.areas["footer"].render())


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
        assert "faux/faux-reasoner" in str(app.areas["footer"].render())
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


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
def test_real_terminal_prompt_answer_and_clean_quit(tmp_path):
    name = f"pi-test-{uuid.uuid4().hex[:8]}"
    env = _env(tmp_path)
    env.pop("TMUX", None)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    marker = tmp_path / "exit-code"
    command = f"{sys.executable} -m pi_rpc --no-session --model faux/faux-1; echo $? > {marker}; sleep 30"
    env_args = [
        arg
        for key, value in env.items()
        if key in ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_FAUX_SCRIPT", "PYTHONPATH", "PATH")
        for arg in ("-e", f"{key}={value}")
    ]
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-c", str(cwd), *env_args, command],
        check=True,
    )

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout

    def wait_for(text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not on screen:\n{screen()}")

    try:
        wait_for("faux/faux-1")
        subprocess.run(["tmux", "send-keys", "-t", name, "-l", "hello terminal"], check=True)
        time.sleep(0.3)
        subprocess.run(["tmux", "send-keys", "-t", name, "Enter"], check=True)
        shown = wait_for("You said: hello terminal")
        assert "╭" in shown  # the editor is drawn
        subprocess.run(["tmux", "send-keys", "-t", name, "-l", "/quit"], check=True)
        time.sleep(0.3)
        subprocess.run(["tmux", "send-keys", "-t", name, "Enter"], check=True)
        deadline = time.monotonic() + 15
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.read_text().strip() == "0"
        # The terminal is back to normal: the shell's output lands on a clean line.
        assert "You said: hello terminal" in screen()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
