"""Structural abort: an ``AbortController`` whose signal cancels anyio cancel scopes.

Work that must stop on abort runs inside ``with signal.scope():``. ``abort()`` cancels every
scope registered at that moment (and any scope entered later), so the provider's HTTP read, a
tool's subprocess wait or a retry sleep stop at their next checkpoint, without polling a flag.
After the scope exits, ``signal.aborted`` tells the caller why it ended.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio


class AbortSignal:
    def __init__(self) -> None:
        self._aborted = False
        self.reason: str | None = None
        self._scopes: set[anyio.CancelScope] = set()
        self._callbacks: list[Callable[[], None]] = []
        self._event: anyio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    @contextmanager
    def scope(self) -> Iterator[anyio.CancelScope]:
        """A cancel scope that is cancelled when (or if already) this signal aborts."""
        with anyio.CancelScope() as cs:
            if self._aborted:
                cs.cancel()
            self._scopes.add(cs)
            try:
                yield cs
            finally:
                self._scopes.discard(cs)

    def add_callback(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` on abort (at once if already aborted). Returns an unsubscribe."""
        if self._aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    async def wait(self) -> None:
        if self._aborted:
            return
        if self._event is None:
            self._event = anyio.Event()
        await self._event.wait()

    def _fire(self, reason: str | None) -> None:
        if self._aborted:
            return
        self._aborted = True
        self.reason = reason
        for cs in list(self._scopes):
            cs.cancel()
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb()
        if self._event is not None:
            self._event.set()


class AbortController:
    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str | None = None) -> None:
        self.signal._fire(reason)
