"""``/hotkeys`` (the keys of this mode) and ``/quit``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

HOTKEYS = """\
Enter            send (while the agent works: queue a steer)
Alt+Enter        queue a follow-up (delivered when the agent finishes)
Shift+Enter      new line (also Ctrl+J)
Esc              abort the running turn, compaction or ! command
Up / Down        prompt history (on the first / last line)
Tab              complete a /command or an @file path
Ctrl+L           select model        Ctrl+P  next model
Shift+Tab        next thinking level
Ctrl+C           clear the editor; twice to quit
Ctrl+D           quit (empty editor)
!cmd / !!cmd     run a shell command (!! keeps the output out of the context)"""


@command("hotkeys", "Show keyboard shortcuts")
async def hotkeys(app: PiApp, args: str) -> None:
    await app.say(HOTKEYS)


@command("quit", "Quit pi")
async def quit_(app: PiApp, args: str) -> None:
    app.exit(0)
