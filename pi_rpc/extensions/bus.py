"""``pi.events``: a channel bus shared by every extension of a process, for extensions that talk
to each other (upstream ``createEventBus``). A handler that raises is reported like any other
extension error instead of breaking the emitter."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

BusHandler = Callable[[Any], Any]


class EventBus:
    """Channels to handlers; ``emit`` calls the handlers of a channel in subscription order.
    Async handlers are started and not awaited (upstream's emit does not wait either)."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[BusHandler]] = {}
        # Runs a coroutine in the background; set by the runtime once a task group exists.
        self.spawn: Callable[[Any], None] | None = None

    def on(self, channel: str, handler: BusHandler) -> Callable[[], None]:
        handlers = self._handlers.setdefault(channel, [])
        handlers.append(handler)

        def unsubscribe() -> None:
            if handler in handlers:
                handlers.remove(handler)

        return unsubscribe

    def emit(self, channel: str, data: Any = None) -> None:
        for handler in list(self._handlers.get(channel, ())):
            result = handler(data)
            if inspect.isawaitable(result):
                if self.spawn is not None:
                    self.spawn(result)
                else:  # no event loop work possible: do not leave a never-awaited coroutine
                    close = getattr(result, "close", None)
                    if close is not None:
                        close()

    def clear(self) -> None:
        self._handlers.clear()
