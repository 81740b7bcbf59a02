"""The prompt editor: multi-line, with history and slash-command completion.

Keys (upstream ``docs/keybindings.md``): Enter submits (a steer while the agent works),
Alt+Enter submits as a follow-up, Shift+Enter or Ctrl+J inserts a newline, Up/Down on the
first/last line walk the history, Tab completes a slash command or an ``@`` file path,
Escape aborts the running work (the app decides), Ctrl+C clears the editor.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import TextArea

HISTORY_LIMIT = 100
DEFAULT_KEYS = {
    "enter": "tui.input.submit",
    "alt+enter": "app.message.followUp",
    "shift+enter": "tui.input.newLine",
    "ctrl+j": "tui.input.newLine",
    "escape": "app.interrupt",
    "tab": "tui.input.tab",
    "up": "tui.editor.cursorUp",
    "down": "tui.editor.cursorDown",
}


@dataclass
class Completion:
    """What Tab would insert, and the candidates shown under the editor."""

    replacement: str | None
    candidates: list[str]


def complete_file(token: str, cwd: str) -> list[str]:
    """``@`` file references: paths under ``cwd`` starting with ``token`` (after the ``@``)."""
    directory, prefix = os.path.split(token)
    base = os.path.join(cwd, directory) if directory else cwd
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    out = []
    for name in names:
        if name.startswith(prefix) and (prefix.startswith(".") or not name.startswith(".")):
            path = os.path.join(directory, name)
            out.append(path + "/" if os.path.isdir(os.path.join(base, name)) else path)
    return out[:50]


class PromptEditor(TextArea):
    """``Submitted(text, follow_up)`` when the user sends; ``AbortRequested`` on Escape."""

    DEFAULT_CSS = """
    PromptEditor { height: auto; min-height: 3; max-height: 10; border: round $primary; padding: 0 1; }
    PromptEditor:focus { border: round $accent; }
    """

    class Submitted(Message):
        def __init__(self, text: str, follow_up: bool) -> None:
            super().__init__()
            self.text = text
            self.follow_up = follow_up

    class AbortRequested(Message):
        pass

    def __init__(self, complete: Callable[[str], Completion]) -> None:
        super().__init__(id="editor", soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        # A steady cursor, as upstream draws it: a blinking one repaints the editor twice a
        # second, the only thing that woke an idle pi (issue 37: 0.00 s of CPU while idle).
        self.cursor_blink = False
        self.prompt_history: list[str] = []
        self._prompt_index: int | None = None
        self._prompt_draft = ""
        self._pi_complete = complete

    def remember(self, text: str) -> None:
        if text.strip() and (not self.prompt_history or self.prompt_history[-1] != text):
            self.prompt_history.append(text)
            del self.prompt_history[:-HISTORY_LIMIT]
        self._prompt_index = None

    def _set(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _walk_history(self, step: int) -> bool:
        if not self.prompt_history:
            return False
        if self._prompt_index is None:
            if step > 0:
                return False
            self._prompt_draft = self.text
            index = len(self.prompt_history) - 1
        else:
            index = self._prompt_index + step
        if index >= len(self.prompt_history):
            self._prompt_index = None
            self._set(self._prompt_draft)
            return True
        self._prompt_index = max(0, index)
        self._set(self.prompt_history[self._prompt_index])
        return True

    def _submit(self, follow_up: bool) -> None:
        text = self.text
        if not text.strip():
            return
        self.remember(text)
        self.load_text("")
        self.post_message(self.Submitted(text, follow_up))

    async def _on_key(self, event: events.Key) -> None:
        # keybindings.json's keys for the editor's actions (keybindings.py); defaults without an app
        keys = getattr(self.app, "keymap", None)
        action = (keys.editor_actions if keys is not None else DEFAULT_KEYS).get(event.key)
        handled = True
        if action == "tui.input.submit":
            self._submit(False)
        elif action == "app.message.followUp":
            self._submit(True)
        elif action == "tui.input.newLine":
            self.insert("\n")
        elif action == "app.interrupt":
            self.post_message(self.AbortRequested())
        elif action == "tui.input.tab":
            completion = self._pi_complete(self.text)
            if completion.replacement is not None:
                self._set(completion.replacement)
        elif action == "tui.editor.cursorUp" and self.cursor_location[0] == 0:
            handled = self._walk_history(-1)
        elif action == "tui.editor.cursorDown" and self.cursor_location[0] == self.document.line_count - 1:
            handled = self._walk_history(1)
        elif action == "tui.editor.historyPrevious":
            self._walk_history(-1)
        elif action == "tui.editor.historyNext":
            self._walk_history(1)
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            return
        if event.key == "escape":
            event.stop()  # unbound Escape: TextArea would move the focus away from the editor
            return
        await super()._on_key(event)
