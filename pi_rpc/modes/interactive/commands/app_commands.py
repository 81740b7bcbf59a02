"""``/hotkeys`` (the keys of this mode) and ``/quit``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

EDITING_KEYS = """\
Text editing inside the editor (Textual's keys, not configurable): arrows, Home/End,
Ctrl+A/E line start/end, Ctrl+W/Alt+Backspace delete word, Ctrl+U/K delete to line start/end,
Ctrl+Z undo. Dialogs: Up/Down move, Enter select, Esc cancel, type to filter."""


@command("hotkeys", "Show keyboard shortcuts")
async def hotkeys(app: PiApp, args: str) -> None:
    # the effective keys (keybindings.json over upstream's defaults), then the fixed ones
    await app.say(app.keymap.describe() + "\n" + EDITING_KEYS)


@command("quit", "Quit pi")
async def quit_(app: PiApp, args: str) -> None:
    app.exit(0)
