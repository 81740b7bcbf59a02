"""Command handlers and what they get to work with.

A handler is ``async def handler(ctx: CommandContext, cmd: dict) -> data``:
- ``cmd`` is the validated command exactly as received (camelCase keys, ``id``/``type``
  included);
- return a dict (or any JSON value) for ``data``, ``None`` for "no data key", or ``JSON_NULL``
  for ``data: null``;
- raise ``CommandError(message)`` for ``success:false`` with that exact message;
- events that must precede the response are emitted with ``await ctx.emit(event)`` before
  returning (the output is FIFO).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_rpc.errors import CommandError

if TYPE_CHECKING:
    from pi_rpc.modes.rpc.events import EventEmitter

__all__ = ["JSON_NULL", "CommandContext", "CommandError", "Handler", "HandlerRegistry", "response_head"]


def response_head(has_id: bool, cmd_id: Any, has_type: bool, ctype: Any) -> dict[str, Any]:
    """A response's leading keys in upstream's order (``id`` when the command had one, ``type``,
    ``command`` when it had a type), with ``success`` false until the handler succeeds."""
    response: dict[str, Any] = {"id": cmd_id} if has_id else {}
    response["type"] = "response"
    if has_type:
        response["command"] = ctype
    response["success"] = False
    return response


class _JsonNull:
    __slots__ = ()

    def __repr__(self) -> str:
        return "JSON_NULL"


JSON_NULL: Any = _JsonNull()
"""Return this from a handler to answer ``"data": null`` (cycle_model / cycle_thinking_level)."""


@dataclass
class CommandContext:
    """Per-command context passed to handlers."""

    command_type: str
    has_id: bool
    id: Any
    events: EventEmitter
    extras: dict[str, Any] = field(default_factory=dict)

    async def emit(self, event: Mapping[str, object]) -> None:
        """Write a session event (before this command's response, if awaited first)."""
        await self.events.emit(event)

    def emit_nowait(self, event: Mapping[str, object]) -> None:
        self.events.emit_nowait(event)

    def with_id(self, event: dict[str, Any]) -> dict[str, Any]:
        """``event`` with this command's id inserted after ``type`` when the command had one
        (``bash_execution_update`` carries the bash command's id)."""
        if not self.has_id:
            return event
        out: dict[str, Any] = {}
        for key, value in event.items():
            out[key] = value
            if key == "type":
                out["id"] = self.id
        return out


Handler = Callable[[CommandContext, dict[str, Any]], Awaitable[Any]]


class HandlerRegistry:
    """Maps command ``type`` to its handler. Later registrations replace earlier ones, so a
    runtime backend can override the in-memory defaults command by command."""

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}

    def register(self, command_type: str, handler: Handler | None = None) -> Any:
        """``registry.register("get_state", fn)`` or as a decorator ``@registry.register("x")``."""
        if handler is not None:
            self._handlers[command_type] = handler
            return handler

        def decorate(fn: Handler) -> Handler:
            self._handlers[command_type] = fn
            return fn

        return decorate

    def unregister(self, command_type: str) -> None:
        self._handlers.pop(command_type, None)

    def get(self, command_type: str) -> Handler | None:
        return self._handlers.get(command_type)

    def __contains__(self, command_type: object) -> bool:
        return command_type in self._handlers

    def __iter__(self) -> Iterator[str]:
        return iter(self._handlers)
