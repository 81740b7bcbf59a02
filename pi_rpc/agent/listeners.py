"""``Listeners``: the subscribers of an event source (the agent, a session), kept as a tuple that
is replaced on every change, so that each event iterates ``all`` without copying it, and a
listener added or removed while an event is delivered counts from the next event on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

L = TypeVar("L")


class Listeners(Generic[L]):
    __slots__ = ("all",)

    def __init__(self) -> None:
        self.all: tuple[L, ...] = ()

    def subscribe(self, listener: L) -> Callable[[], None]:
        """Add ``listener``; the returned function removes it (once; later calls do nothing)."""
        self.all = (*self.all, listener)

        def unsubscribe() -> None:
            if listener in self.all:
                listeners = list(self.all)
                listeners.remove(listener)
                self.all = tuple(listeners)

        return unsubscribe
