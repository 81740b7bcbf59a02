"""``ExtensionState``: the one state object a session's extension parts share (anyio's owned
stream state is the model): the live runner and mode binding, the tool loadout, messages held
for the next turn or the turn's end, the prompt a ``before_agent_start`` forced, and work
deferred while ``agent_settled`` handlers run; plus the plumbing every part needs (background
work, error reports, notifications nobody awaits).

``SessionExtensions`` (lifecycle and the session's hooks), ``ExtensionActions`` (what ``pi``
and ``ctx`` do) and ``AgentHooks`` (agent loop and stream hooks) each hold this object; none
holds another part.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, cast

from pi_rpc.extensions.api import error_message
from pi_rpc.extensions.bus import EventBus
from pi_rpc.extensions.host import ModeBinding
from pi_rpc.log import logger
from pi_rpc.runtime.tool_loadout import ToolLoadout

if TYPE_CHECKING:
    from pi_rpc.ai.types import CustomMessage, Message
    from pi_rpc.extensions.events import ExtensionEvent
    from pi_rpc.extensions.runner import ExtensionRunner
    from pi_rpc.runtime.extension_port import SessionPort


def now_ms() -> int:
    return int(time.time() * 1000)


def custom_message(message: dict[str, object]) -> CustomMessage:
    """An extension's message (``customType``, ``content``, ``display``, ``details``) as the
    ``custom`` role message the session records; absent fields stay absent."""
    out: dict[str, object] = {"role": "custom", "customType": message.get("customType")}
    content = message.get("content")
    out["content"] = content if content is not None else []
    if message.get("display") is not None:
        out["display"] = message["display"]
    if message.get("details") is not None:
        out["details"] = message["details"]
    out["timestamp"] = now_ms()
    return cast("CustomMessage", out)  # built key by key in upstream's order


class ExtensionState:
    """What the extension parts of one session share; ``port`` is the session as they see it,
    ``start`` the session's task starter (``SessionWiring.spawn``)."""

    def __init__(self, port: SessionPort, start: Callable[..., bool]) -> None:
        self.port = port
        self._start = start
        options = port.state.options
        self.preloaded = options.preloaded_extensions
        self.bus = self.preloaded.runtime.bus if self.preloaded is not None else EventBus()
        self.runner: ExtensionRunner | None = None
        self.binding = ModeBinding()
        self.bound = False  # the runner is bound: tool refreshes apply
        self.loadout = ToolLoadout(options)
        self.loadout.attach(port.state.resources)
        self.loadout.on_error = lambda path, error: self.report(path, "prepare_loadout", error)
        # pi.send_message deliveries: with the next prompt, or once the running turn ended.
        self.next_turn_messages: list[Message] = []
        self.pending_custom_messages: list[CustomMessage] = []
        self.forced_system_prompt: str | None = None
        # systemPromptOptions while before_agent_start handlers run (ctx.get_system_prompt).
        self.options_in_flight: dict[str, object] | None = None
        self.turn_index = 0
        self.emitting_settled = False
        self.deferred: list[Callable[[], Awaitable[object]]] = []

    # ------------------------------------------------------------------ background work

    def spawn(self, coro: Coroutine[object, object, object]) -> None:
        """Run ``coro`` in the session's task group (closed unrun before one is bound); a
        failure is written to stderr, never raised into the session. Work a TypeScript
        extension starts waits for the barrier its call set (the rest of the calling handler's
        synchronous JavaScript runs first, as it would in upstream's single thread)."""
        runner = self.runner
        barrier = runner.runtime.spawn_barrier if runner is not None else None
        if barrier is not None:
            coro = _after(barrier(), coro)
        if not self._start(self._guarded, coro):
            coro.close()

    @staticmethod
    async def _guarded(coro: Coroutine[object, object, object]) -> None:
        try:
            await coro
        except Exception as exc:  # noqa: BLE001 - background extension work never kills the session
            logger().error(f"pi: extension background task failed: {exc!r}")

    def after_settled(self, action: Callable[[], Awaitable[object]]) -> bool:
        """Work requested while ``agent_settled`` handlers run starts after all of them
        finished (upstream defers it); returns True when deferred."""
        if self.emitting_settled:
            self.deferred.append(action)
            return True
        return False

    async def run_reporting(self, event: str, action: Callable[[], Awaitable[object]]) -> None:
        """Run ``action``; a failure is reported as an extension error of ``<runtime>``."""
        try:
            await action()
        except Exception as exc:  # noqa: BLE001 - reported as upstream does
            self.report("<runtime>", event, exc)

    def deliver_pending_custom_messages(self) -> None:
        """Custom messages sent while a turn ran (``triggerTurn: False``) land after it."""
        pending, self.pending_custom_messages = self.pending_custom_messages, []
        for message in pending:
            self.port.append_custom_message_now(message)

    # ------------------------------------------------------------------ reporting and notifying

    def report(self, path: str, event: str, error: BaseException | str) -> None:
        """An extension error (``extension_error`` in RPC mode); nothing before the runner exists."""
        if self.runner is not None:
            text = error if isinstance(error, str) else error_message(error)
            self.runner.emit_error({"extensionPath": path, "event": event, "error": text})

    async def emit(self, event: ExtensionEvent) -> object:
        """Dispatch ``event`` to the extensions' handlers (upstream's combined result)."""
        runner = self.runner
        if runner is None:
            return None
        return await runner.emit(event)

    def emit_later(self, event: ExtensionEvent) -> None:
        """A notification whose handlers are not awaited (upstream ``void emit``)."""
        runner = self.runner
        if runner is not None and runner.has_handlers(event["type"]):
            self.spawn(runner.emit(event))


async def _after(barrier: Awaitable[object], coro: Coroutine[object, object, object]) -> object:
    try:
        await barrier
    except Exception:  # noqa: BLE001 - a barrier that fails only lets the work start sooner
        pass
    return await coro
