"""The interactive mode's slash-command registry.

A command is an async function ``run(app, args)`` registered with ``@command(name, description)``
in any module of this package: every module here is imported once, when the first lookup
happens, so adding a command is adding a module (no edit to the core). Commands the session
itself knows (prompt templates, skills, extension commands: ``AgentSession.get_commands``) are
not registered here: the app sends ``/name args`` as a prompt and the session expands it, as in
every other mode. Command handlers run as Textual workers, so they may await dialogs
(``app.pick``, ``app.ask_text``...).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

Handler = Callable[["PiApp", str], Awaitable[None]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    run: Handler


REGISTRY: dict[str, SlashCommand] = {}
_loaded = False


def command(name: str, description: str) -> Callable[[Handler], Handler]:
    """Register ``/name``; a second registration of one name is a programming error."""

    def register(fn: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"slash command /{name} registered twice")
        REGISTRY[name] = SlashCommand(name, description, fn)
        return fn

    return register


def builtin_commands() -> dict[str, SlashCommand]:
    """Every command of this package's modules (imported on first use)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for info in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{info.name}")
    return REGISTRY


def find(session: object, name: str) -> SlashCommand | None:
    """``/name`` for the app driving ``session``. A session served elsewhere (``pi attach``'s
    ``RemoteSession``) may carry its own variants of built-ins (``slash_overrides``: the ones
    that need the network or the server's files), so no command branches on where it runs."""
    overrides = getattr(session, "slash_overrides", None) or {}
    return overrides.get(name) or builtin_commands().get(name)


def get(session: object, name: str) -> SlashCommand:
    """``find`` for a name that must exist (a key binding's command)."""
    found = find(session, name)
    if found is None:
        raise KeyError(name)
    return found


def split(text: str) -> tuple[str, str]:
    """``"/name rest"`` -> ``("name", "rest")``."""
    head, _, rest = text[1:].partition(" ")
    return head.strip(), rest.strip()


def all_commands(session_commands: list[dict[str, object]]) -> list[tuple[str, str]]:
    """(name, description) of the built-ins, then the session's own commands, sorted by name."""
    seen = {name: cmd.description for name, cmd in builtin_commands().items()}
    for entry in session_commands:
        name = str(entry.get("name", ""))
        if name and name not in seen:
            seen[name] = str(entry.get("description") or entry.get("source") or "")
    return sorted(seen.items())
