"""Session listeners with a second, synchronous way in.

``AgentSession.emit_now`` sends what an extension causes synchronously (upstream emits those at
once, so they stay in order with the extension's own UI requests): a listener that is an
``ImmediateListener`` gets the event at once through ``emit_nowait``; any other listener gets
it in the background. Kept apart from ``runtime.events`` (types only) so that importing it costs
no TypedDict classes at startup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.runtime.events import SessionEvent, SessionListener


class ImmediateListener:
    """A session listener (``await listener(event)``) that also takes events at once. Subclasses
    define both methods; ``__call__`` may be ``async def`` (no wrapper frame per event)."""

    __slots__ = ()

    def __call__(self, event: SessionEvent) -> Awaitable[None]:
        raise NotImplementedError

    def emit_nowait(self, event: SessionEvent) -> None:
        raise NotImplementedError


class PairedListener(ImmediateListener):
    """An ``ImmediateListener`` made of two functions: one awaited, one called at once."""

    __slots__ = ("_emit", "_emit_nowait")

    def __init__(self, emit: SessionListener, emit_nowait: Callable[[SessionEvent], None]) -> None:
        self._emit = emit
        self._emit_nowait = emit_nowait

    def __call__(self, event: SessionEvent) -> Awaitable[None]:
        return self._emit(event)

    def emit_nowait(self, event: SessionEvent) -> None:
        self._emit_nowait(event)
