"""Regular (inline) mode in a real terminal (issue 37, part 1): a finished answer longer than the
screen stays in view above a bottom-anchored editor; a steer queued while an answer streams
leaves the answer's scrollback copy whole (and its notice); a resize while an answer streams
leaves no ghost copies in the scrollback. tmux at 100x30 and 80x24, the faux model streaming at a
realistic pace."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from .interactive_support import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
SIZES = [(100, 30), (80, 24)]
LINES = 40


def _answer(prefix: str) -> str:
    return "\n".join(f"{prefix} line {i} of the answer." for i in range(1, LINES + 1))


def _start(tmp_path: Path, size: tuple[int, int], turns: list[dict]) -> Tmux:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    command = f"{sys.executable} -m pi_rpc --model faux/faux-1 --tui-mode regular --no-session; sleep 60"
    term = Tmux(tmp_path, command, {"PI_FAUX_SCRIPT": str(script)}, size=size)
    term.wait_for("faux-1")
    return term


def _settled(term: Tmux, text: str, timeout: float = 40) -> str:
    """The screen once ``text`` is shown and nothing changed for a moment."""
    term.wait_for(text, timeout)
    previous, deadline = "", time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = term.screen()
        if shown == previous:
            return shown
        previous = shown
        time.sleep(0.5)
    return previous


def _counts(history: str, prefix: str) -> list[int]:
    return [history.count(f"{prefix} line {i} of the answer.") for i in range(1, LINES + 1)]


@pytest.mark.parametrize("size", SIZES)
def test_a_long_finished_answer_stays_in_view_above_the_editor(tmp_path, size):
    term = _start(tmp_path, size, [{"text": _answer("Long"), "delayMs": 15, "chunkChars": 8}])
    try:
        term.type("a long one")
        shown = _settled(term, f"Long line {LINES} of the answer.")
        rows = shown.rstrip("\n").split("\n")
        editor_top = max(i for i, row in enumerate(rows) if row.startswith("╭"))
        assert editor_top >= size[1] - 7, shown  # the editor is anchored at the bottom
        above = [row.strip() for row in rows[:editor_top] if row.strip()]
        assert len(above) >= size[1] - 8, shown  # no screenful of blank rows
        assert above[-1] == f"Long line {LINES} of the answer.", shown  # the end of the answer in view
        assert _counts(term.history(), "Long") == [1] * LINES
    finally:
        term.kill()


@pytest.mark.parametrize("size", SIZES)
def test_a_steer_while_streaming_keeps_the_whole_answer_in_the_scrollback(tmp_path, size):
    term = _start(
        tmp_path, size, [{"text": _answer("Streamed"), "delayMs": 25, "chunkChars": 8}, {"text": "steer answered"}]
    )
    try:
        term.type("stream please")
        term.wait_for("Streamed line 3 of the answer.")
        term.type("a steer")
        _settled(term, "steer answered")
        history = term.history()
        assert _counts(history, "Streamed") == [1] * LINES, history
        assert history.count("Queued as steer: a steer") == 1, history
        assert history.index(f"Streamed line {LINES} of the answer.") < history.index("steer answered")
    finally:
        term.kill()


@pytest.mark.parametrize("size", SIZES)
def test_a_resize_while_streaming_leaves_no_ghosts(tmp_path, size):
    term = _start(tmp_path, size, [{"text": _answer("Resized"), "delayMs": 25, "chunkChars": 8}])
    try:
        term.type("stream and resize")
        term.wait_for("Resized line 3 of the answer.")
        term.resize(size[0] - 25, size[1] - 4)
        time.sleep(0.6)
        term.resize(size[0] - 10, size[1] - 2)
        _settled(term, f"Resized line {LINES} of the answer.")
        history = term.history()
        assert _counts(history, "Resized") == [1] * LINES, history
        assert history.count("╭") == 1, history  # one editor frame, no old copies
        assert history.count("stream and resize") == 1, history
    finally:
        term.kill()


def test_ctrl_g_keeps_the_frame_whole_and_leaves_no_ghost(tmp_path):
    """Ctrl+G inline: while the editor runs, the whole frame stays with upstream's two lines
    under it (suspending used to erase from the cursor down: the frame was cut after the
    prompt's first line, a ghost top border); afterwards the frame is drawn once, in place."""
    editor = tmp_path / "editor.sh"
    release = tmp_path / "release"
    editor.write_text(
        f"#!/bin/sh\nwhile [ ! -e {release} ]; do sleep 0.1; done\nprintf 'edited line one\\nline two\\n' > \"$1\"\n"
    )
    editor.chmod(0o755)
    command = f"{sys.executable} -m pi_rpc --model faux/faux-1 --tui-mode regular --no-session; sleep 60"
    term = Tmux(tmp_path, command, {"EDITOR": str(editor)}, size=(80, 24))
    try:
        term.wait_for("faux-1")
        term.keys("a draft")
        term.wait_for("a draft")
        term.keys("C-g")
        shown = term.wait_for("Pi will resume when the editor exits.")
        deadline = time.monotonic() + 5  # a capture can land between the message and the frame's last paint
        while not any(row.startswith("╭") for row in shown.split("\n")) and time.monotonic() < deadline:
            time.sleep(0.1)
            shown = term.screen()
        rows = shown.rstrip("\n").split("\n")
        top = next((i for i, row in enumerate(rows) if row.startswith("╭")), None)
        assert top is not None, shown
        assert "a draft" in rows[top + 1] and rows[top + 2].startswith("╰"), shown
        assert any("Launching external editor: " in row for row in rows[top + 2 :]), shown
        release.touch()
        shown = term.wait_for("edited line one")
        time.sleep(0.5)
        history = term.history()
        assert history.count("╭") == 1 and history.count("╰") == 1, history
        assert "Launching external editor" not in history and "a draft" not in history, history
        rows = term.screen().rstrip("\n").split("\n")
        top = next(i for i, row in enumerate(rows) if row.startswith("╭"))
        assert "edited line one" in rows[top + 1] and "line two" in rows[top + 2] and rows[top + 3].startswith("╰")
    finally:
        term.kill()
