"""The terminal's second pass (issue 37): upstream's fullscreen default (``tuiMode``,
``--tui-mode``, the ``fullscreen*`` settings), the transcript's scrolling keys, what is left in
the terminal on quitting (the transcript, the resume hint) and Shift+Tab. Pilot tests over the
real session runtime, and tmux tests that read the screen and the scrollback of a real terminal
at 100x30 and 80x24."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import _env
from .interactive_support import Tmux, idle, roles_texts, running_app, type_and_enter, until

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
SIZES = [(100, 30), (80, 24)]


def _wait_file(path: Path, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return path.read_text().strip() if path.exists() else ""


def _pi(tmp_path: Path, args: str = "", settings: dict | None = None) -> tuple[str, Path]:
    marker = tmp_path / "exit-code"
    if settings is not None:
        (tmp_path / "agent").mkdir(parents=True, exist_ok=True)
        (tmp_path / "agent" / "settings.json").write_text(json.dumps(settings))
    command = f"{sys.executable} -m pi_rpc --model faux/faux-1 {args}; echo $? > {marker}; sleep 60"
    return command, marker


# ------------------------------------------------------------------ the command line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tui-mode", "wide"], 'Error: Invalid TUI mode "wide". Valid values: regular, fullscreen'),
        (["--tui-mode"], "Error: --tui-mode requires regular or fullscreen"),
        (["--tui-mode", "--print"], "Error: --tui-mode requires regular or fullscreen"),
    ],
)
def test_a_bad_tui_mode_is_refused_as_upstream_refuses_it(tmp_path, argv, message):
    done = subprocess.run(
        [sys.executable, "-m", "pi_rpc", *argv, "-p", "hi"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert message in done.stderr


def test_the_mode_comes_from_the_flag_over_the_setting():
    from pi_rpc.modes.interactive import display

    assert display.tui_mode({}) == "fullscreen"
    assert display.tui_mode({"tuiMode": "regular"}) == "regular"
    assert display.tui_mode({"tuiMode": "bogus"}) == "fullscreen"
    assert display.tui_mode({"tuiMode": "regular"}, "fullscreen") == "fullscreen"
    assert display.tui_mode({}, "regular") == "regular"
    assert display.wheel_scroll_lines({"fullscreenWheelScrollLines": 500}) == 100
    assert display.wheel_scroll_lines({"fullscreenWheelScrollLines": "auto"}) is None
    assert display.fullscreen_exit_output({"fullscreenExitOutput": "resume-hint"}) == "resume-hint"
    assert display.fullscreen_exit_output({}) == "transcript"


# ------------------------------------------------------------------ pilot


@pytest.mark.anyio
async def test_fullscreen_starts_the_conversation_at_the_top_and_keeps_every_message(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.transcript import UserMessage

    async with running_app(tmp_path, fullscreen=True) as (app, pilot):
        await type_and_enter(pilot, "first")
        await until(pilot, lambda: idle(app) and ("assistant", "You said: first") in roles_texts(app))
        await pilot.pause(0.1)
        (user,) = app.query(UserMessage)
        assert user.region.y <= 8  # right under the header at the top, not pushed to the bottom
        assert app.editor.region.bottom <= app.size.height - 1  # the editor stays fixed above the footer
        for i in range(12):
            await type_and_enter(pilot, f"more {i}")
            await until(pilot, lambda i=i: idle(app) and ("assistant", f"You said: more {i}") in roles_texts(app))
        await pilot.pause(0.1)
        assert len(app.query(UserMessage)) == 13  # nothing left the window for a scrollback
        assert app.transcript.max_scroll_y > 0 and app.transcript.scroll_y == app.transcript.max_scroll_y


@pytest.mark.anyio
async def test_page_up_scrolls_back_and_new_output_does_not_pull_the_reader_down(isolated_env, tmp_path):
    async with running_app(tmp_path, fullscreen=True) as (app, pilot):
        for i in range(10):
            await type_and_enter(pilot, f"line {i}")
            await until(pilot, lambda i=i: idle(app) and ("assistant", f"You said: line {i}") in roles_texts(app))
        await pilot.pause(0.1)
        bottom = app.transcript.max_scroll_y
        await pilot.press("pageup")
        await pilot.pause(0.1)
        scrolled = app.transcript.scroll_y
        assert scrolled < bottom and not app.transcript.follow
        await type_and_enter(pilot, "while reading")
        await until(pilot, lambda: idle(app) and ("assistant", "You said: while reading") in roles_texts(app))
        await pilot.pause(0.1)
        assert app.transcript.scroll_y == scrolled  # the reader's place is kept
        await pilot.press("ctrl+end")
        await pilot.pause(0.1)
        assert app.transcript.scroll_y == app.transcript.max_scroll_y and app.transcript.follow
        await pilot.press("ctrl+home")
        await pilot.pause(0.1)
        assert app.transcript.scroll_y == 0


@pytest.mark.anyio
@pytest.mark.parametrize("copy_on_select", [None, False])
async def test_a_selection_in_the_transcript_is_copied_unless_copy_on_select_is_off(
    isolated_env, tmp_path, copy_on_select
):
    """``fullscreenCopyOnSelect`` (default on): text selected with the mouse in the fullscreen
    transcript goes to the clipboard at once; off, the clipboard is left alone."""
    from textual.events import TextSelected
    from textual.selection import SELECT_ALL

    if copy_on_select is not None:
        (isolated_env / "settings.json").write_text(json.dumps({"fullscreenCopyOnSelect": copy_on_select}))
    async with running_app(tmp_path, fullscreen=True) as (app, pilot):
        await type_and_enter(pilot, "select me")
        await until(pilot, lambda: idle(app) and ("assistant", "You said: select me") in roles_texts(app))
        await pilot.pause(0.1)
        app.copy_to_clipboard("before")
        # what a mouse drag over the whole transcript leaves: every widget in it selected
        app.screen.selections = {widget: SELECT_ALL for widget in [app.transcript, *app.transcript.query("*")]}
        await pilot.pause(0.05)
        assert "You said: select me" in (app.screen.get_selected_text() or "")
        app.screen.post_message(TextSelected())
        await pilot.pause(0.2)
        if copy_on_select is None:
            assert "You said: select me" in app.clipboard
        else:
            assert app.clipboard == "before"


@pytest.mark.anyio
async def test_page_keys_are_the_editors_in_regular_mode(isolated_env, tmp_path):
    async with running_app(tmp_path, fullscreen=False) as (app, pilot):
        keys = {binding.key for _, binding in app._bindings}
        assert "pageup" not in keys and "ctrl+home" not in keys


@pytest.mark.anyio
async def test_shift_tab_cycles_the_thinking_level_and_the_editor_keeps_the_focus(isolated_env, tmp_path):
    async with running_app(tmp_path, model="faux/faux-reasoner", thinking="low") as (app, pilot):
        before = app.session.thinking_level
        await pilot.press("shift+tab")
        await pilot.pause(0.1)
        assert app.session.thinking_level != before
        assert app.focused is app.editor
        await pilot.press("a", "b", "c")
        await pilot.pause(0.05)
        assert app.editor.text == "abc"  # nothing typed next is lost
        assert f"faux-reasoner • {app.session.thinking_level}" in str(app.areas["footer"].render())


@pytest.mark.anyio
async def test_shift_tab_on_a_model_without_thinking_says_so(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.transcript import Notice

    async with running_app(tmp_path) as (app, pilot):
        await pilot.press("shift+tab")
        await until(pilot, lambda: any("does not support thinking" in n.text for n in app.query(Notice)))
        assert app.focused is app.editor


# ------------------------------------------------------------------ a real terminal


@needs_tmux
@pytest.mark.parametrize("size", SIZES)
def test_fullscreen_is_the_default_and_leaves_the_transcript_and_the_resume_hint(tmp_path, size):
    command, marker = _pi(tmp_path)
    term = Tmux(tmp_path, command, size=size)
    try:
        term.wait_for("faux-1")
        term.type("hello fullscreen")
        shown = term.wait_for("You said: hello fullscreen")
        rows = shown.split("\n")
        assert any("hello fullscreen" in row for row in rows[:9]), shown  # the transcript starts at the top
        assert "▀▀█  v1.6.0" in rows[1] or "▀▀█  v1.6.0" in rows[0]  # under upstream's header
        assert "╭" in "\n".join(rows[-8:]), shown  # the editor at the bottom
        term.keys("C-d")
        assert _wait_file(marker) == "0"
        history = term.history()
        assert history.count("You said: hello fullscreen") == 1, history  # the transcript, printed once
        session_id = re.search(r"To resume this session:\n(pi --session (\S+))", history)
        assert session_id, history
        (file,) = (tmp_path / "agent" / "sessions").rglob("*.jsonl")
        assert session_id.group(2) in file.name
    finally:
        term.kill()


@needs_tmux
def test_exported_columns_and_lines_do_not_override_the_terminals_size(tmp_path):
    """A shell that exports COLUMNS=80/LINES=24 (tmux does, for a client without a terminal): the
    app still fills the 100x30 window, and follows it when it is resized."""
    command, _ = _pi(tmp_path)
    term = Tmux(tmp_path, f"export COLUMNS=80 LINES=24; {command}", size=(100, 30))
    try:
        rows = term.wait_for("faux-1").rstrip("\n").split("\n")
        assert len(rows) >= 29 and rows[-1].rstrip().endswith("faux-1"), rows  # the footer on the last row
        assert any(len(row) == 100 and row.startswith("╭") for row in rows), rows  # the editor, 100 wide
        term.resize(90, 26)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            rows = term.screen().rstrip("\n").split("\n")
            if any(len(row) == 90 and row.startswith("╭") for row in rows):
                break
            time.sleep(0.2)
        assert any(len(row) == 90 and row.startswith("╭") for row in rows), rows
    finally:
        term.kill()


@needs_tmux
def test_fullscreen_exit_output_resume_hint_leaves_only_the_hint(tmp_path):
    command, marker = _pi(tmp_path, settings={"fullscreenExitOutput": "resume-hint"})
    term = Tmux(tmp_path, command)
    try:
        term.wait_for("faux-1")
        term.type("quiet exit please")
        term.wait_for("You said: quiet exit please")
        term.keys("C-d")
        assert _wait_file(marker) == "0"
        history = term.history()
        assert "You said: quiet exit please" not in history
        assert "To resume this session:" in history
    finally:
        term.kill()


@needs_tmux
def test_the_resume_hint_names_a_custom_session_dir(tmp_path):
    sessions = tmp_path / "my sessions"
    command, marker = _pi(tmp_path, f"--tui-mode regular --session-dir '{sessions}'")
    term = Tmux(tmp_path, command)
    try:
        term.wait_for("faux-1")
        term.type("where am i")
        term.wait_for("You said: where am i")
        term.keys("C-d")
        assert _wait_file(marker) == "0"
        history = term.history()
        assert f"pi --session-dir '{sessions}' --session " in history, history
    finally:
        term.kill()


@needs_tmux
def test_no_resume_hint_without_a_session_file(tmp_path):
    command, marker = _pi(tmp_path, "--no-session")
    term = Tmux(tmp_path, command)
    try:
        term.wait_for("faux-1")
        term.keys("C-d")
        assert _wait_file(marker) == "0"
        assert "To resume this session" not in term.history()
    finally:
        term.kill()


@needs_tmux
def test_the_terminal_is_restored_after_sigterm_in_fullscreen(tmp_path):
    pid_file = tmp_path / "pid"
    marker = tmp_path / "exit-code"
    inner = f"echo \\$\\$ > {pid_file}; exec {sys.executable} -m pi_rpc --model faux/faux-1"
    command = (
        f'sh -c "{inner}"; echo $? > {marker}; '
        f"stty -a | tr ';' '\\n' | grep -c -- '-icanon' > {tmp_path / 'raw'}; sleep 60"
    )
    term = Tmux(tmp_path, command)
    try:
        term.wait_for("faux-1")
        subprocess.run(["kill", "-TERM", _wait_file(pid_file)], check=True)
        assert _wait_file(marker) == "143"
        assert _wait_file(tmp_path / "raw") == "0"  # canonical mode again: the terminal was restored
        assert "\x1b[?1049h" not in term.screen(escapes=True)
    finally:
        term.kill()


def _alternate_screen(term: Tmux) -> bool:
    out = subprocess.run(
        [*term.tmux, "display-message", "-p", "-t", term.name, "#{alternate_on}"], capture_output=True, text=True
    )
    return out.stdout.strip() == "1"


def _switch_in_settings(term: Tmux, mode: str) -> None:
    term.type("/settings")
    term.wait_for("Auto-compact")
    for ch in "tui":
        term.keys(ch)
    term.wait_for("> tui")
    term.keys("Enter")
    term.wait_for("✓ ")
    for ch in mode:
        term.keys(ch)
    term.wait_for(f"> {mode}")
    term.keys("Enter")
    term.wait_for(f"TUI mode: {mode}")
    term.keys("Escape")  # the settings list comes back: close it
    time.sleep(0.8)


def test_tui_mode_switches_live_from_settings(tmp_path):
    """As upstream's switchTuiMode: /settings moves the running app to the alternate screen
    (the conversation shown again there) and back to inline output (the conversation printed
    into the scrollback), and prompts keep working in each."""
    command, marker = _pi(tmp_path, "--tui-mode regular --no-session")
    term = Tmux(tmp_path, command, size=(80, 24))
    try:
        term.wait_for("faux-1")
        term.type("first prompt")
        term.wait_for("first prompt")
        assert not _alternate_screen(term)
        _switch_in_settings(term, "fullscreen")
        assert _alternate_screen(term)
        shown = term.wait_for("first prompt")
        assert "faux-1" in shown
        term.type("second prompt")
        term.wait_for("second prompt")
        _switch_in_settings(term, "regular")
        assert not _alternate_screen(term)
        term.type("third prompt")
        term.wait_for("third prompt")
        time.sleep(0.5)
        history = term.history()
        # the fullscreen part of the conversation is in the scrollback once the app is inline
        assert "second prompt" in history and "third prompt" in history
        assert history.count("╭") == 1  # one editor frame: no ghost of the fullscreen frame
        term.keys("C-d")
        assert _wait_file(marker).strip() == "0"
    finally:
        term.kill()
