"""Keyboard shortcuts of the interactive mode: upstream's action ids and defaults
(``docs/keybindings.md``) for the actions this mode has, overridden by the user's
``<agent-dir>/keybindings.json`` (an action id -> one key or a list of keys; a configured value
replaces the default, an empty list disables the action). Keys are written upstream's way
(``ctrl+shift+x``, ``alt+enter``, ``pageUp``, ``esc``) and matched against Textual's key names.

Application actions become Textual bindings on the app (``app_bindings``); the editor's own
actions (submit, follow-up, new line, abort, completion, history) are looked up by the prompt
editor (``editor_action``). The text-editing keys inside the editor are Textual's ``TextArea``
keys and are not configurable here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

KEYBINDINGS_FILE = "keybindings.json"


@dataclass(frozen=True)
class Action:
    id: str
    keys: tuple[str, ...]
    description: str
    app_action: str | None = None  # a Textual action on the app; None: the editor handles it
    priority: bool = False
    fullscreen_only: bool = False  # upstream's tui.altScreen.* actions: bound only in fullscreen


ACTIONS: tuple[Action, ...] = (
    Action("tui.input.submit", ("enter",), "Send (while the agent works: queue a steer)"),
    Action("app.message.followUp", ("alt+enter",), "Queue a follow-up message"),
    Action("tui.input.newLine", ("shift+enter", "ctrl+j"), "Insert new line"),
    Action("tui.input.tab", ("tab",), "Complete a /command or an @file path"),
    Action("tui.editor.cursorUp", ("up",), "Cursor up; older prompt history on the first line"),
    Action("tui.editor.cursorDown", ("down",), "Cursor down; newer prompt history on the last line"),
    Action("tui.editor.historyPrevious", (), "Previous prompt history entry"),
    Action("tui.editor.historyNext", (), "Next prompt history entry"),
    Action("app.interrupt", ("escape",), "Cancel / abort"),
    Action("app.clear", ("ctrl+c",), "Clear editor (first) / exit (second)", "interrupt", True),
    Action("app.exit", ("ctrl+d",), "Exit (when editor empty)", "quit_if_empty"),
    Action("app.model.select", ("ctrl+l",), "Open model selector", "pick_model"),
    Action("app.model.cycleForward", ("ctrl+p",), "Cycle to next model", "cycle_model"),
    # priority: the screen's own shift+tab (focus previous) would take the focus from the editor
    Action("app.thinking.cycle", ("shift+tab",), "Cycle thinking level", "cycle_thinking", True),
    Action(
        "app.clipboard.pasteImage",
        ("ctrl+v",),
        "Paste an image (as a temp file path) or text from the clipboard",
        "paste_clipboard",
    ),
    Action(
        "app.message.copy", ("ctrl+x",), "Copy the selection (fullscreen) or the last assistant message", "copy", True
    ),
    Action("app.tools.expand", ("ctrl+o",), "Collapse or expand tool output", "toggle_tools", True),
    Action("app.thinking.toggle", ("ctrl+t",), "Collapse or expand thinking blocks", "toggle_thinking", True),
    Action("app.message.dequeue", ("alt+up",), "Restore queued messages to editor", "dequeue", True),
    Action("app.editor.external", ("ctrl+g",), "Open in external editor", "external_editor", True),
    Action("app.session.new", (), "Start a new session (/new)", "slash('new')"),
    Action("app.session.tree", (), "Open session tree navigator (/tree)", "slash('tree')"),
    Action("app.session.fork", (), "Fork current session (/fork)", "slash('fork')"),
    Action("app.session.resume", (), "Open session resume picker (/resume)", "slash('resume')"),
    # fullscreen: the transcript scrolls inside the window (priority over the editor's keys)
    *(
        Action(f"tui.altScreen.{name}", keys, text, f"scroll_transcript('{how}')", True, True)
        for name, keys, text, how in (
            ("pageUp", ("pageUp",), "Scroll the transcript up by one page", "page_up"),
            ("pageDown", ("pageDown",), "Scroll the transcript down by one page", "page_down"),
            ("halfPageUp", (), "Scroll the transcript up by half a page", "half_up"),
            ("halfPageDown", (), "Scroll the transcript down by half a page", "half_down"),
            ("lineUp", (), "Scroll the transcript up by one line", "line_up"),
            ("lineDown", (), "Scroll the transcript down by one line", "line_down"),
            ("top", ("ctrl+home",), "Scroll to the beginning of the transcript", "top"),
            ("bottom", ("ctrl+end",), "Scroll to the transcript end and follow new output", "bottom"),
        )
    ),
)
BY_ID = {action.id: action for action in ACTIONS}

_ALIASES = {"esc": "escape", "return": "enter", "pageup": "pageup", "pagedown": "pagedown"}


def textual_key(key: str) -> str:
    """Upstream's ``ctrl+shift+x`` as Textual names it (modifiers sorted, symbols named)."""
    from textual.keys import _character_to_key

    parts = key.strip().split("+")
    # "ctrl++" names the plus key
    if key.endswith("++"):
        parts = [*key[:-2].split("+"), "+"]
    base = parts[-1]
    mods = sorted({m.lower() for m in parts[:-1] if m})
    lowered = base.lower()
    base = _ALIASES.get(lowered, lowered if len(base) > 1 else base)
    if len(base) == 1:
        if base.isalpha() and mods == ["shift"]:
            return base.upper()  # Textual reports shift+l as "L"
        base = _character_to_key(base.lower() if base.isalpha() else base)
    return "+".join([*mods, base])


@dataclass
class Keymap:
    """The effective keys of every action, and the warnings of reading keybindings.json."""

    keys: dict[str, list[str]]
    warnings: list[str] = field(default_factory=list)
    # keybindings.json as written (every id, this mode's or not): what extensions' components get
    user: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, agent_dir: Path | None) -> Keymap:
        keys = {action.id: list(action.keys) for action in ACTIONS}
        warnings: list[str] = []
        user: dict[str, Any] = {}
        path = agent_dir / KEYBINDINGS_FILE if agent_dir is not None else None
        if path is not None and path.exists():
            try:
                data: Any = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
            except (OSError, ValueError) as exc:
                return cls(keys, [f"Ignoring {path}: {exc}"])
            user = dict(data)
            for action_id, value in data.items():
                if action_id.startswith("$"):
                    continue
                if action_id not in BY_ID:
                    continue  # upstream's actions this mode does not have (tree filters, search...)
                values = [value] if isinstance(value, str) else value
                if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                    warnings.append(f"{path}: {action_id} must be a key or a list of keys")
                    continue
                keys[action_id] = list(values)
        return cls(keys, warnings, user)

    @cached_property
    def editor_actions(self) -> dict[str, str]:
        """Textual key -> action id, for the editor's own actions."""
        out: dict[str, str] = {}
        for action in ACTIONS:
            if action.app_action is None:
                for key in self.keys[action.id]:
                    out.setdefault(textual_key(key), action.id)
        return out

    def app_bindings(self, *, fullscreen: bool = False) -> list[Any]:
        """Textual bindings of the application actions. A key the editor (Textual's
        ``TextArea``) also binds gets priority: the user's keybindings.json choice wins. The
        transcript's scrolling actions exist only in fullscreen."""
        from textual.binding import Binding
        from textual.widgets import TextArea

        editor_keys = {
            key.strip()
            for binding in TextArea.BINDINGS
            if isinstance(binding, Binding)
            for key in binding.key.split(",")
        }
        out = []
        for action in ACTIONS:
            if action.app_action is None or (action.fullscreen_only and not fullscreen):
                continue
            for key in (textual_key(k) for k in self.keys[action.id]):
                priority = action.priority or key in editor_keys
                out.append(Binding(key, action.app_action, action.description, show=False, priority=priority))
        return out

    def key(self, action_id: str) -> str:
        """The first key of an action as upstream writes it in hints (``ctrl+o``)."""
        keys = self.keys.get(action_id) or []
        return keys[0] if keys else "(unbound)"

    def startup_hints(self) -> tuple[str, str]:
        """Upstream's startup header hints: the compact line and the expanded list."""
        k = self.key
        compact = " · ".join(
            (
                f"{k('app.interrupt')} interrupt",
                f"{k('app.clear')}/{k('app.exit')} clear/exit",
                "/ commands",
                "! bash",
                f"{k('app.tools.expand')} more",
            )
        )
        expanded = "\n".join(
            (
                f"{k('app.interrupt')} to interrupt",
                f"{k('app.clear')} to clear",
                f"{k('app.clear')} twice to exit",
                f"{k('app.exit')} to exit (empty)",
                f"{k('app.thinking.cycle')} to cycle thinking level",
                f"{k('app.model.cycleForward')} to cycle models",
                f"{k('app.model.select')} to select model",
                f"{k('app.tools.expand')} to expand tools",
                f"{k('app.thinking.toggle')} to expand thinking",
                f"{k('app.editor.external')} for external editor",
                "/ for commands",
                "! to run bash",
                "!! to run bash (no context)",
                f"{k('app.message.followUp')} to queue follow-up",
                f"{k('app.message.dequeue')} to edit all queued messages",
                f"{k('app.clipboard.pasteImage')} to paste images or text",
            )
        )
        return compact, expanded

    def describe(self) -> str:
        """The /hotkeys table: every action with its effective keys."""
        rows = []
        for action in ACTIONS:
            keys = ", ".join(self.keys[action.id]) or "(none)"
            rows.append(f"{keys:<22} {action.description}  [{action.id}]")
        rows.append("!cmd / !!cmd           run a shell command (!! keeps the output out of the context)")
        return "\n".join(rows)
