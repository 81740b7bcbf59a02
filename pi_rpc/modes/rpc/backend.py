"""What the RPC server needs from the rest of pi, and a minimal in-memory stand-in.

A backend registers command handlers and may run background work (agent runs) in the task
group it is given. The runtime's backend replaces ``InMemoryBackend`` (see
``main.create_backend``); until then, ``get_state`` and ``set_session_name`` work and every
other command answers ``Not implemented yet: <type>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pi_rpc.ai.models.catalog import placeholder_model
from pi_rpc.modes.rpc.registry import CommandContext, CommandError, HandlerRegistry
from pi_rpc.session.ids import uuid7

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from pi_rpc.config.settings import Settings
    from pi_rpc.modes.rpc.event_options import EventOptions
    from pi_rpc.modes.rpc.events import EventEmitter


def _no_shutdown() -> None:
    return None


@dataclass
class ServerHandle:
    """Given to ``Backend.start``: the event stream, a task group that lives until shutdown
    (cancelled after ``Backend.aclose`` returns), ``request_shutdown()`` to stop reading
    stdin and shut down as at EOF (an extension's ``ctx.shutdown()``), and the
    ``set_event_options`` state (None on --listen, where each connection has its own)."""

    events: EventEmitter
    task_group: TaskGroup
    request_shutdown: Callable[[], None] = field(default=_no_shutdown)
    event_options: EventOptions | None = None
    # --listen (modes.rpc.listen): the event stream of the session with this handle, fanned out
    # to the connections attached to it; None: every session writes to ``events``.
    session_events: Callable[[str], EventEmitter] | None = None


class Backend(Protocol):
    def register(self, registry: HandlerRegistry) -> None:
        """Register command handlers (``registry.register("get_state", handler)``)."""

    async def start(self, server: ServerHandle) -> None:
        """Called once inside the event loop, before stdin is read.

        :raises ~pi_rpc.errors.StartupError: a fatal startup problem (message to stderr, exit code)
        """

    async def aclose(self) -> None:
        """Shutdown: abort runs, wait for idle, release resources. Events are already off."""

    # Optional: ``input_closed()`` is called (if defined) when stdin ended or a shutdown was
    # requested, before the in-flight commands are awaited.


_LINE_BREAKS = re.compile(r"[\r\n]+")


def normalise_session_name(raw: str) -> str:
    """Upstream: trim; then each run of CR/LF becomes one space; trim again. Raises
    ``CommandError("Session name cannot be empty")`` when nothing is left."""
    name = raw.strip()
    if not name:
        raise CommandError("Session name cannot be empty")
    return _LINE_BREAKS.sub(" ", name).strip()


class InMemoryBackend:
    """No model, no session file: enough for ``get_state`` and ``set_session_name``."""

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        session_name: str | None = None,
        session_id: str | None = None,
    ) -> None:
        self.settings = settings
        self.session_id = session_id or uuid7()
        self.session_name: str | None = None
        if session_name:
            try:
                self.session_name = normalise_session_name(session_name)
            except CommandError:
                self.session_name = None
        self.ui_responses: list[dict[str, object]] = []
        self.closed = False

    def register(self, registry: HandlerRegistry) -> None:
        registry.register("get_state", self.get_state)
        registry.register("set_session_name", self.set_session_name)
        registry.register("extension_ui_response", self.extension_ui_response)

    async def start(self, server: ServerHandle) -> None:
        self.server = server

    async def aclose(self) -> None:
        self.closed = True

    # ------------------------------------------------------------------ handlers

    async def get_state(self, ctx: CommandContext, cmd: dict[str, object]) -> dict[str, object]:
        settings = self.settings
        state: dict[str, object] = {
            "model": placeholder_model(),
            # The placeholder is non-reasoning, so any level clamps to "off".
            "thinkingLevel": "off",
            "isStreaming": False,
            "isCompacting": False,
            "steeringMode": settings.steering_mode if settings else "one-at-a-time",
            "followUpMode": settings.follow_up_mode if settings else "one-at-a-time",
            "sessionId": self.session_id,
        }
        if self.session_name is not None:
            state["sessionName"] = self.session_name
        state["autoCompactionEnabled"] = settings.compaction_enabled if settings else True
        state["messageCount"] = 0
        state["pendingMessageCount"] = 0
        return state

    async def set_session_name(self, ctx: CommandContext, cmd: dict[str, Any]) -> None:
        name = normalise_session_name(cmd["name"])
        self.session_name = name
        await ctx.emit({"type": "session_info_changed", "name": name})
        return None

    async def extension_ui_response(self, ctx: CommandContext, cmd: dict[str, Any]) -> None:
        # No extensions yet: nothing is pending, so every answer is stale and ignored.
        self.ui_responses.append(cmd)
