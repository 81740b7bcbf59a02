"""Session-file write faults as session events, and the retries that end them.

The store (``SessionManager``) keeps every entry it could not write (read-only directory,
full disk, ``RLIMIT_FSIZE``) in memory and reports each change of its fault state. This
module turns those reports into events, in order with the session's other events:

- ``{"type": "session_write_error", "sessionFile", "error", "pendingEntries"}`` when a fault
  begins (or its error text changes);
- ``{"type": "session_write_resumed", "sessionFile", "writtenEntries"}`` once everything it
  held back is in the file.

Reports arrive synchronously from inside the store; they are queued and emitted before the
session's next event, or at the end of the command that caused them (``flush``). A store that
writes off the event loop (a database server's: ``SessionManager.defer_writes``) is settled
first (``settle``): its commit, or its fault, comes before what follows. While a
fault lasts, a background task retries the writes with a growing interval, so an idle
session's backlog reaches the file soon after the fault is gone. A session replaced while its
entries are still held back (new_session, switch, fork during the fault) is kept and retried
the same way until they are written, then closed (``retire``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.session.manager import deferred_writes

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from pi_rpc.session.manager import SessionManager

RETRY_FIRST_DELAY_S = 0.25
RETRY_MAX_DELAY_S = 2.0


class StoreFaultReporter:
    def __init__(
        self,
        emit: Callable[[dict[str, Any]], Awaitable[None]],
        task_group: Callable[[], TaskGroup | None],
    ) -> None:
        self._emit = emit
        self._task_group = task_group
        self._notices: list[dict[str, Any]] = []
        self._store: SessionManager | None = None
        self._retired: list[SessionManager] = []
        self._retrying = False

    @property
    def has_notices(self) -> bool:
        return bool(self._notices)

    def attach(self, store: SessionManager) -> None:
        """Listen to ``store`` (the session's current one); a fault it already has is
        reported now (e.g. a fork whose copy could not be written)."""
        if self._store is not None and self._store is not store:
            self._store.on_write_state = None
        self._store = store
        store.on_write_state = self._on_write_state
        deferred = deferred_writes(store)
        if deferred is not None:
            deferred.defer_writes()
        if store.write_error is not None:
            self._on_write_state(store.write_error, store.pending_entry_count(), 0)

    def retire(self, store: SessionManager) -> None:
        """``store`` is no longer the session's: close it, or keep retrying what a fault
        still holds back and close it once that is written."""
        if store is self._store:
            self._store = None
        if store.write_error is None or store.pending_entry_count() == 0:
            store.on_write_state = None
            store.close()
            return
        store.on_write_state = lambda error, pending, written: self._report(store, error, pending, written)
        self._retired.append(store)
        self._start_retrying()

    def close(self) -> None:
        """Shutdown: last attempt for retired stores (``close`` reports what is lost)."""
        retired, self._retired = self._retired, []
        for store in retired:
            store.close()

    def _on_write_state(self, error: str | None, pending: int, written: int) -> None:
        if self._store is not None:
            self._report(self._store, error, pending, written)

    def _report(self, store: SessionManager, error: str | None, pending: int, written: int) -> None:
        session_file = store.session_file or ""
        if error is not None:
            self._notices.append(
                {"type": "session_write_error", "sessionFile": session_file, "error": error, "pendingEntries": pending}
            )
            self._start_retrying()
        else:
            self._notices.append(
                {"type": "session_write_resumed", "sessionFile": session_file, "writtenEntries": written}
            )

    @property
    def needs_settle(self) -> bool:
        """Reports are queued, or the session's store has a write in flight."""
        return bool(self._notices) or _in_flight(self._store)

    def generation(self) -> tuple[int, int]:
        """Which store is the session's and how many deferred writes it started (``since``)."""
        deferred = deferred_writes(self._store) if self._store is not None else None
        return (id(deferred), deferred.write_generation) if deferred is not None else (0, 0)

    def needs_settle_since(self, generation: tuple[int, int]) -> bool:
        """Reports are queued, or a write started after ``generation`` is in flight: what a
        command's response must wait for (a command that wrote nothing answers at once, even
        while a run's write waits on the database)."""
        return bool(self._notices) or (_in_flight(self._store) and self.generation() != generation)

    async def settle(self) -> None:
        """Before an event or a response: the store's writes in flight committed (or their
        fault known), then the queued reports emitted."""
        await _settle(self._store)
        await self.flush()

    async def flush(self) -> None:
        """Emit the queued reports (before the event or response that follows them)."""
        while self._notices:
            notices, self._notices = self._notices, []
            for notice in notices:
                await self._emit(notice)

    def _start_retrying(self) -> None:
        if self._retrying:
            return
        tg = self._task_group()
        if tg is None:
            return  # no background work possible: the next append retries
        self._retrying = True
        tg.start_soon(self._retry_loop)

    async def _retry_loop(self) -> None:
        delay = RETRY_FIRST_DELAY_S
        try:
            while True:
                await anyio.sleep(delay)
                for store in list(self._retired):
                    if _retry(store):
                        self._retired.remove(store)
                        store.on_write_state = None
                        store.close()
                current = self._store
                if current is not None and current.write_error is not None:
                    _retry(current)
                    await _settle(current)  # a deferred retry: its outcome now
                await self.flush()
                if not self._retired and (self._store is None or self._store.write_error is None):
                    return
                delay = min(delay * 2, RETRY_MAX_DELAY_S)
        finally:
            self._retrying = False


def _in_flight(store: SessionManager | None) -> bool:
    deferred = deferred_writes(store) if store is not None else None
    return deferred is not None and deferred.writes_in_flight


async def _settle(store: SessionManager | None) -> None:
    """The store's writes in flight committed, or their fault known (and reported)."""
    deferred = deferred_writes(store) if store is not None else None
    if deferred is not None and deferred.writes_in_flight:
        await deferred.settle()


def _retry(store: SessionManager) -> bool:
    try:
        return store.retry_writes()
    except Exception:  # noqa: BLE001 - e.g. the lock taken by another process meanwhile
        return False
