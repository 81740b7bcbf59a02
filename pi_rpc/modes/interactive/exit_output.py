"""What ``pi`` leaves in the terminal after quitting, as upstream does: in fullscreen with
``fullscreenExitOutput: "transcript"`` (the default) the conversation is printed on the main
screen, where it joins the terminal's scrollback; then, in both modes, the resume hint

    To resume this session:
    pi --session <id>

(``--session-dir <dir>`` first when the session is not in the default directory for its cwd).
Like upstream, the hint is written only to a terminal and only for a session file that exists.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession

DIM = "\x1b[2m"
RESET = "\x1b[22m"


def resume_command(session: AgentSession) -> str | None:
    """``pi [--session-dir <dir>] --session <id>``, or None when there is nothing to resume."""
    from pi_rpc.config.paths import default_session_dir

    manager = session.session
    locator = manager.session_file
    if not manager.is_persisted() or not locator:
        return None
    if "#" in locator and not os.path.exists(locator):
        return f"pi --session {shlex.quote(locator)}"  # a database locator names the store too
    if not os.path.isfile(locator):
        return None
    args = ["pi"]
    agent_dir = session.options.agent_dir
    default = default_session_dir(agent_dir, manager.cwd) if agent_dir is not None else None
    if default is None or Path(manager.session_dir).resolve() != Path(default).resolve():
        args += ["--session-dir", shlex.quote(manager.session_dir)]
    args += ["--session", manager.session_id]
    return " ".join(args)


def print_exit_output(
    session: AgentSession,
    renderables: list[Any],
    *,
    color: bool,
    stream: IO[str] | None = None,
    command: str | None = None,
) -> None:
    """The transcript (when given) and the resume hint, on ``stream`` (stdout); ``command``
    replaces the hint's command (``pi attach`` names the server and the handle)."""
    out = stream or sys.stdout
    if renderables:
        from rich.console import Console

        console = Console(file=out, force_terminal=color, no_color=not color, highlight=False)
        for renderable in renderables:
            console.print(renderable)
    if not out.isatty():
        return
    command = command if command is not None else resume_command(session)
    if command:
        hint = "To resume this session:"
        out.write(f"{DIM}{hint}{RESET}\n{command}\n" if color else f"{hint}\n{command}\n")
    out.flush()
