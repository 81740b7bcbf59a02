"""Ctrl+G: the prompt in an external editor, as upstream does it: the ``externalEditor``
setting, else ``$VISUAL``, else ``$EDITOR``, else ``nano``; the text goes to ``prompt.md`` in a
fresh temporary folder, the editor runs on the terminal (the app suspended meanwhile), and an
exit code other than 0 leaves the prompt unchanged."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any


def editor_command(settings: Any) -> str:
    configured = settings.get("externalEditor")
    if isinstance(configured, str) and configured.strip():
        return configured
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "nano"


@dataclass(frozen=True)
class EditResult:
    content: str | None  # the edited prompt, or None when it stays as it was
    message: str | None = None  # why not (upstream's words)


def announcement(command: str) -> str:
    """Upstream's lines under the frame while the editor runs."""
    return f"Launching external editor: {command}\nPi will resume when the editor exits."


def edit_in_external_editor(command: str, content: str, announce: bool = True) -> EditResult:
    """Run ``command prompt.md`` in the foreground (the caller has given it the terminal);
    ``announce``: print ``announcement`` first (the inline app writes it itself)."""
    folder = tempfile.mkdtemp(prefix="pi-editor-")
    path = os.path.join(folder, "prompt.md")
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content)
        argv = [*shlex.split(command), path]
        if announce:
            print(announcement(command), flush=True)
        try:
            code = subprocess.call(argv)
        except OSError:
            return EditResult(None, f"Failed to launch external editor: {command}")
        if code != 0:
            reason = f"code {code}" if code > 0 else f"signal {-code}"
            return EditResult(None, f"External editor exited with {reason}; prompt unchanged")
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read()
        return EditResult(text[:-1] if text.endswith("\n") else text)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def edit_inline(app: Any, driver: Any, command: str) -> EditResult:
    """Ctrl+G inline, as upstream: the whole frame stays on the screen while the editor
    runs, with upstream's two lines under it, and the frame is drawn again in place
    afterwards (those lines erased). Suspending the driver erases the screen from the
    cursor down, and the cursor is in the prompt: the frame was cut after the prompt's
    first line (a ghost top border) and the lines were lost (Textual captures stdout)."""
    from rich.cells import cell_len
    from textual.geometry import Offset

    _, y = app._previous_cursor_position  # the cursor, relative to the frame's top-left
    height = app._previous_inline_height or app.screen.outer_size.height
    below = max(0, height - 1 - y)
    lines = announcement(command).split("\n")
    # down to the frame's last row, then below it (a new line scrolls when it is the last)
    driver.write((f"\x1b[{below}B" if below else "") + "\r\n" + "".join(f"{line}\r\n" for line in lines))
    driver.flush()
    driver.suspend_application_mode()
    try:
        return edit_in_external_editor(command, app.editor.text, announce=False)
    finally:
        driver.resume_application_mode()  # (writes INLINE_PADDING new lines)
        # the lines take more rows when they wrap (a long editor path)
        width = max(1, app.size.width)
        rows = sum(max(1, -(-cell_len(line) // width)) for line in lines)
        driver.write(f"\x1b[{height + rows + app.INLINE_PADDING}A\r\x1b[J")
        driver.flush()
        app._previous_cursor_position = Offset(0, 0)
        app._previous_inline_height = None
        app.screen.refresh(layout=True)
