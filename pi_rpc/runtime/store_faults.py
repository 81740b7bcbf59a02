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
the same way until they are written, then closed (``retire``). When the session shuts down
(``close``) the retries stop for good: each store gets its last chance, and what it still
could not write is returned (``Unwritten``), never written later behind another owner's back.

A store that supports deferred writing (a session database: a write may wait up to the busy
timeout for another process's lock) is switched to it when attached: its entries are queued
when accepted and written here, in a worker thread, one batch at a time and in order
(``commit``). ``AgentSession.emit`` and the end of every command await ``commit`` before the
event or response goes out, so an entry is in the database before anything that reports it
reaches a client, while the event loop keeps serving every other session. While a fault lasts,
``commit`` leaves the queue to the retry loop (the fault was reported; events go on).

Nothing here waits for another process's lock on the event loop: an event emitted
synchronously (``commit_now``) has its entry written on the loop only when that needs no
waiting (``WouldWait`` otherwise: a background ``commit`` writes it), and a replaced session's
queue is written in the background before its store is closed (``retire``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from pi_rpc.session.backlog import WouldWait
from pi_rpc.session.manager import store_writer

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from pi_rpc.runtime.events import EmitEvent, SessionWriteErrorEvent, SessionWriteResumedEvent
    from pi_rpc.session.manager import SessionManager

RETRY_FIRST_DELAY_S = 0.25
RETRY_MAX_DELAY_S = 2.0


@dataclass(frozen=True)
class Unwritten:
    """What a closed session could not write: its entries are lost (``close_session`` says so)."""

    session_file: str
    entries: int
    error: str | None


class StoreFaultReporter:
    def __init__(
        self,
        emit: EmitEvent,
        task_group: Callable[[], TaskGroup | None],
    ) -> None:
        self._emit = emit
        self._task_group = task_group
        self._notices: list[SessionWriteErrorEvent | SessionWriteResumedEvent] = []
        self._store: SessionManager | None = None
        self._retired: list[SessionManager] = []
        self._retrying = False
        self._closed = False  # the session shut down: no retry ever again
        self._closing = False  # drain ran: only its own last attempts write
        # One deferred batch at a time (entries reach the database in the order accepted).
        self._write_lock = anyio.Lock()
        # The current store writes deferred (a session database).
        self._deferred = False

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
        self._deferred = store.deferred_writes.enable()
        deferred = store_writer(store)
        if deferred is not None:
            deferred.defer_writes()
        if store.write_error is not None:
            self._on_write_state(store.write_error, store.pending_entry_count(), 0)

    def retire(self, store: SessionManager) -> None:
        """``store`` is no longer the session's: close it, or keep retrying what a fault
        still holds back and close it once that is written. What a session database's queue
        still holds (entries the last events did not commit, e.g. a ``session_shutdown``
        handler's) is written off the event loop at once, then the store is closed."""
        if store is self._store:
            self._store = None
        if store.pending_entry_count() == 0 or (store.write_error is None and not store.deferred_writes.enabled):
            store.on_write_state = None
            store.close()
            return
        store.on_write_state = lambda error, pending, written: self._report(store, error, pending, written)
        self._retired.append(store)
        tg = self._task_group() if store.deferred_writes.enabled and store.write_error is None else None
        if tg is not None and not self._closed:
            tg.start_soon(self._write_retired, store)
        else:
            self._start_retrying()

    async def _write_retired(self, store: SessionManager) -> None:
        """A retired store's queue written now (in a worker thread), then the store closed; a
        fault is reported and left to the retry loop."""
        if await self._retry(store):
            if store in self._retired:
                self._retired.remove(store)
                store.on_write_state = None
                store.close()
        elif store.write_error is None:
            self._start_retrying()  # not written for another reason (closing): as any retired store
        await self.flush()

    @property
    def needs_commit(self) -> bool:
        """Whether ``commit`` has anything to do (checked without a coroutine: every event,
        each streamed delta included, asks)."""
        store = self._store
        return (
            self._deferred
            and store is not None
            and store.write_error is None
            and (self._write_lock.locked() or store.pending_entry_count() > 0)
        )

    async def commit(self) -> None:
        """Write what the session's store queued (deferred writing) in a worker thread;
        nothing to do when nothing is queued, or while a fault lasts (the retry loop writes
        then)."""
        store = self._store
        if store is not None and self.needs_commit:
            await self._write(store, retrying=False)

    def commit_now(self) -> None:
        """``commit`` without awaiting, for events emitted synchronously (an extension's
        ``appendEntry``): written on the event loop when that needs no waiting (the entry is
        stored before its event goes out). Never waits for another writer there: when the
        database is busy (another process's write lock), or a batch is being written, the
        entry is written by a ``commit`` in the background, and every later event and
        response waits for it as usual."""
        store = self._store
        if (
            store is None
            or not store.deferred_writes.enabled
            or store.write_error is not None
            or not store.pending_entry_count()
        ):
            return
        if not self._write_lock.locked():
            batch = store.deferred_writes.take()
            if batch is None:
                return
            fault = store.deferred_writes.write_without_waiting(batch)
            if not isinstance(fault, WouldWait):
                store.deferred_writes.settle(batch, fault)
                return
        tg = self._task_group()
        if tg is not None and not (self._closing or self._closed):
            tg.start_soon(self._commit_store, store)

    async def _commit_store(self, store: SessionManager) -> None:
        """``commit`` of ``store`` if it is still the session's (a replaced one is retired:
        its queue is written there)."""
        if store is self._store:
            await self.commit()
            await self.flush()  # a fault it met, reported now (as the retry loop does)

    @property
    def needs_settle(self) -> bool:
        """Before an event: reports are queued, the session database's queue holds entries, or
        the session's store has a write of its own in flight (a PostgreSQL store)."""
        return bool(self._notices) or self.needs_commit or _in_flight(self._store)

    def generation(self) -> tuple[int, int]:
        """Which store is the session's and how many writes of its own it started (``since``)."""
        deferred = store_writer(self._store) if self._store is not None else None
        return (id(deferred), deferred.write_generation) if deferred is not None else (0, 0)

    def needs_settle_since(self, generation: tuple[int, int]) -> bool:
        """What a command's response must wait for: reports, the queue, or a store's own write
        started after ``generation`` (a command that wrote nothing answers at once, even while
        a run's write waits on the database)."""
        return bool(self._notices) or self.needs_commit or (_in_flight(self._store) and self.generation() != generation)

    async def settle(self) -> None:
        """Before an event or a response: what was accepted is stored (or its fault known),
        then the queued reports emitted."""
        if self.needs_commit:
            await self.commit()
        await _settle(self._store)
        await self.flush()

    async def _write(self, store: SessionManager, *, retrying: bool, final: bool = False) -> bool:
        """One batch of ``store``'s queue through a worker thread; True when nothing is
        queued any more. Once the session is closing only ``drain``'s last attempts write
        (a closed store must never be written behind another owner's back)."""
        async with self._write_lock:
            if (self._closing or self._closed) and not final:
                return False
            if store.write_error is not None and not retrying:
                return False
            batch = store.deferred_writes.take()
            if batch is None:
                return store.pending_entry_count() == 0
            fault = await anyio.to_thread.run_sync(store.deferred_writes.write, batch)
            store.deferred_writes.settle(batch, fault)
            return store.pending_entry_count() == 0

    async def drain(self) -> None:
        """Shutdown: the last attempt for every deferred queue, off the event loop (``close``
        then does not wait for the database again, it reports what is lost). From here on the
        retry loop writes nothing more."""
        self._closing = True
        for store in [*self._retired, *([self._store] if self._store is not None else [])]:
            if store.deferred_writes.enabled:
                while store.pending_entry_count() and await self._write(store, retrying=True, final=True) is False:
                    if store.write_error is not None:
                        break
                store.deferred_writes.mark_final_attempt()

    def close(self, current: SessionManager | None = None) -> list[Unwritten]:
        """Shutdown: stop retrying for good, give every store (the retired ones and
        ``current``, the session's own) its last chance and close it; returns what each could
        still not write (also logged by the store)."""
        self._closed = True
        if self._store is not None:
            self._store.on_write_state = None
            self._store = None
        retired, self._retired = self._retired, []
        lost: list[Unwritten] = []
        for store in [*retired, *([current] if current is not None else [])]:
            store.on_write_state = None
            try:
                store.close()
            finally:
                if store.pending_entry_count():
                    lost.append(Unwritten(store.session_file or "", store.pending_entry_count(), store.write_error))
        return lost

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

    async def flush(self) -> None:
        """Emit the queued reports (before the event or response that follows them)."""
        while self._notices:
            notices, self._notices = self._notices, []
            for notice in notices:
                await self._emit(notice)

    def _start_retrying(self) -> None:
        if self._retrying or self._closed:
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
                if self._closed or self._closing:
                    return
                for store in list(self._retired):
                    if await self._retry(store) and store in self._retired:
                        self._retired.remove(store)
                        store.on_write_state = None
                        store.close()
                current = self._store
                if current is not None and current.write_error is not None:
                    await self._retry(current)
                    await _settle(current)  # a store's own deferred retry: its outcome now
                await self.flush()
                if not self._retired and (self._store is None or self._store.write_error is None):
                    return
                delay = min(delay * 2, RETRY_MAX_DELAY_S)
        finally:
            self._retrying = False

    async def _retry(self, store: SessionManager) -> bool:
        if not store.deferred_writes.enabled:
            return _retry(store)
        try:
            return await self._write(store, retrying=True)
        except Exception:  # noqa: BLE001 - as _retry: the next round tries again
            return False


def _in_flight(store: SessionManager | None) -> bool:
    deferred = store_writer(store) if store is not None else None
    return deferred is not None and deferred.writes_in_flight


async def _settle(store: SessionManager | None) -> None:
    """The store's writes in flight committed, or their fault known (and reported)."""
    deferred = store_writer(store) if store is not None else None
    if deferred is not None and deferred.writes_in_flight:
        await deferred.settle()


def _retry(store: SessionManager) -> bool:
    try:
        return store.retry_writes()
    except Exception:  # noqa: BLE001 - e.g. the lock taken by another process meanwhile
        return False
