"""What the interactive app follows over ``pi attach``, as it follows a local session's holder:
the handle's one ``RemoteSession`` as ``current`` (a replacement over the wire keeps that object
and re-reads its state), its events, and the replacements made through this connection."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.modes.attach.remote_session import Listener, RemoteSession


class RemoteHolder:
    """``current``, ``subscribe`` and ``on_replaced`` for one attached handle."""

    def __init__(self, session: RemoteSession) -> None:
        self.current = session
        self._replaced: list[Callable[[Any], Any]] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self.current.subscribe(listener)

    def on_replaced(self, callback: Callable[[Any], Any]) -> Callable[[], None]:
        self._replaced.append(callback)

        def stop() -> None:
            if callback in self._replaced:
                self._replaced.remove(callback)

        return stop

    async def announce_replaced(self) -> None:
        """Tell the app the session's messages were replaced (it shows them again)."""
        for callback in list(self._replaced):
            outcome = callback(self.current)
            if inspect.isawaitable(outcome):
                await outcome
