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
