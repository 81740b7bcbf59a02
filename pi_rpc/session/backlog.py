"""The write-fault backlog every session store shares: what a store holds in memory while
storage refuses a write, and the ``write_error`` / ``on_write_state`` contract of ``store.py``.

A store built on ``WriteBacklog`` supplies four things: how an accepted entry is prepared for
storage (``_prepare``: a JSONL line, a database row), how a new session is created with its
header and first entries in one write (``_write_new``), how prepared items are written after
the session exists, all or nothing (``_write_items``), and which exceptions are storage
faults (``_FAULTS``, described by ``_fault_message``). Everything else is here, once:

- ``create`` with ``hold`` keeps the header and entries when the first write fails (the
  session is not ``created`` yet and ``pending_count`` is the entries without the header);
- ``append`` queues the prepared entries after whatever a fault already holds and writes the
  whole backlog in one go, so entries reach storage in the order they were accepted;
- ``retry`` (and the next append) writes the backlog once the fault is gone; a change of the
  fault's text is reported once, its end with the number of entries written;
- ``close`` gives the backlog a last chance, logs what is lost, syncs and releases. A closed
  store never writes again (no retry, no append, no lock taken again): once its lock is given
  up another store may own the session, and anything written then would interleave with it.

Deferred writing (``defer = True``, only for a store whose class is ``deferrable``): accepted
entries are only queued, and whoever holds the store writes them off its own thread in three
steps: ``take_batch`` (what is queued now, on the owner's thread), ``write_batch`` (the storage
transaction, which may wait for a lock; any thread, touches no backlog state) and
``settle_batch`` (the outcome applied and reported, on the owner's thread again). One batch at
a time per store; entries accepted while a batch is written wait for the next one. The RPC
runtime uses this so a database locked by another process (a write waiting for the busy
timeout) never stalls the event loop, and it writes the batch before it emits the events that
report the entries (``runtime/store_faults.py``).

``write_batch(batch, wait=False)`` is the same write on the owner's thread that never waits
for another writer: storage that is busy (another process's write lock), or that could only
be reached by waiting (no open connection yet), gives ``WouldWait`` instead of a fault:
nothing written, nothing reported, the batch still queued for a write that may wait, off the
owner's thread. A store supports it with ``_without_waiting`` and ``_is_busy``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from pi_rpc.log import logger
from pi_rpc.session.entries import Entry, SessionHeader, SessionLine
from pi_rpc.session.store import WriteStateListener

Item = TypeVar("Item")


class WouldWait(Exception):
    """``write_batch(wait=False)`` found storage busy, or reachable only by waiting: nothing
    was written and nothing is reported; the batch stays queued."""


@dataclass
class WriteBatch(Generic[Item]):
    """What ``take_batch`` handed out: either the first write (``new``: the header and the
    entries, ``result`` what the store's ``_commit_new`` returned) or queued ``items``."""

    new: list[SessionLine] | None
    items: list[Item]
    result: object = None


class WriteBacklog(Generic[Item]):
    """Base of a ``SessionStore``: the held backlog and the fault state (see the module
    docstring). ``Item`` is what one accepted entry becomes before it is written."""

    # Exceptions that mean "storage refused the write" (held), as opposed to bugs (raised).
    _FAULTS: ClassVar[tuple[type[Exception], ...]] = (OSError,)
    # Whether the store supports deferred writing (``_commit_new``/``_committed_new``/
    # ``_commit_items``, safe to run off the owner's thread).
    deferrable: ClassVar[bool] = False

    def __init__(self, *, read_only: bool) -> None:
        # Queue accepted entries for ``take_batch``/``write_batch``/``settle_batch`` instead of
        # writing them at once (see the module docstring).
        self.defer = False
        # The owner made its last attempt off its thread: ``close`` does not block on another.
        self.final_attempt_made = False
        self._read_only = read_only
        # The storage holds this session's header (written by us, or opened).
        self._flushed = False
        # Header and entries of the first write, while a fault keeps the session from being created.
        self._unwritten_new: list[SessionLine] | None = None
        # Entries accepted after the session was created but not yet stored (a fault).
        self._unwritten: list[Item] = []
        self.write_error: str | None = None
        self.on_write_state: WriteStateListener | None = None
        # Closed: the lock was given up; nothing is written any more.
        self._closed = False

    # ------------------------------------------------------------------ what a backend supplies

    @property
    def locator(self) -> str:
        raise NotImplementedError

    def _prepare(self, entry: SessionLine) -> Item:
        """An accepted entry as it will be stored (computed when accepted, not when written)."""
        raise NotImplementedError

    def _write_new(self, entries: Sequence[SessionLine]) -> None:
        """Create the session exclusively with ``entries`` (header first) in one write, or
        raise leaving nothing behind; sets ``_flushed``."""
        raise NotImplementedError

    def _write_items(self, items: list[Item]) -> None:
        """Store ``items`` after the stored entries, all of them or none (then raise)."""
        raise NotImplementedError

    def _fault_message(self, exc: Exception) -> str:
        """``write_error``'s text for a fault (``Could not write ...: <reason>``)."""
        raise NotImplementedError

    def _commit_new(self, entries: Sequence[SessionLine]) -> object:
        """Deferred writing: ``_write_new``'s transaction without touching the backlog's
        state (may run on another thread); returns what ``_committed_new`` applies."""
        raise NotImplementedError

    def _committed_new(self, result: object) -> None:
        """Deferred writing, on the owner's thread: the session now exists (sets ``_flushed``)."""
        raise NotImplementedError

    def _commit_items(self, items: list[Item]) -> None:
        """Deferred writing: ``_write_items`` (may run on another thread)."""
        raise NotImplementedError

    @contextmanager
    def _without_waiting(self) -> Iterator[None]:
        """Deferred writing on the owner's thread: the write inside never waits for another
        writer (raise ``WouldWait`` when that cannot be promised; by default it cannot)."""
        raise WouldWait(self.locator)
        yield  # (a generator: the context manager protocol)

    def _is_busy(self, exc: Exception) -> bool:
        """Whether a fault of a write made ``_without_waiting`` only means "another writer
        holds the storage now" (then it is ``WouldWait``, not a fault)."""
        return False

    def sync(self) -> None:
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ the shared contract

    @property
    def created(self) -> bool:
        return self._flushed

    @property
    def closed(self) -> bool:
        return self._closed

    def create(self, header: SessionHeader, entries: Sequence[Entry], *, hold: bool = True) -> bool:
        if not hold:
            self._refuse_closed()
            self._write_new([header, *entries])
            return True
        self._unwritten_new = [header, *entries]
        if self.defer:
            return self.write_error is None
        return self._write_pending()

    def append(self, entries: Iterable[Entry]) -> bool:
        self._unwritten.extend(self._prepare(entry) for entry in entries)
        if self.defer:
            return self.write_error is None
        return self._write_pending()

    def pending_count(self) -> int:
        """Entries accepted but not stored because of a write fault (0 when none)."""
        if not self._flushed:
            return len(self._unwritten_new) - 1 if self._unwritten_new is not None else 0
        return len(self._unwritten)

    def retry(self) -> bool:
        """Try to write what a fault kept off storage; True when nothing is pending any more."""
        if self.pending_count() == 0 and self.write_error is None:
            return True
        if self._read_only or self._closed:
            return False
        return self._write_pending()

    def _refuse_closed(self) -> None:
        """A closed store touches nothing: its lock is given up, the session may be another
        store's now (a bug elsewhere if reached; entries held stay counted as lost)."""
        if self._closed:
            from pi_rpc.session.errors import SessionError

            raise SessionError(f"Session {self.locator} was closed; nothing more is written to it")

    def _write_pending(self) -> bool:
        if self._closed:
            logger().error(f"pi: session {self.locator}: an entry was accepted after the session was closed")
            return False
        pending = self.pending_count()
        try:
            if self._unwritten_new is not None:
                self._write_new(self._unwritten_new)
                self._unwritten_new = None
            elif self._unwritten:
                self._write_items(self._unwritten)
                self._unwritten.clear()
        except self._FAULTS as exc:
            error = self._fault_message(exc)
            changed = error != self.write_error
            self.write_error = error
            if changed:
                self._notify_write_state(error, self.pending_count(), 0)
            return False
        if self.write_error is not None:
            self.write_error = None
            self._notify_write_state(None, 0, pending)
        return True

    # ------------------------------------------------------------------ deferred writing

    def take_batch(self) -> WriteBatch[Item] | None:
        """What is queued now (None when nothing is, or the store is read-only or closed)."""
        if self._read_only or self._closed:
            return None
        if self._unwritten_new is not None:
            return WriteBatch(list(self._unwritten_new), [])
        if self._unwritten:
            return WriteBatch(None, list(self._unwritten))
        return None

    def write_batch(self, batch: WriteBatch[Item], *, wait: bool = True) -> Exception | None:
        """Store ``batch`` (any thread): None when stored, the storage fault otherwise (a
        bug is raised). ``wait=False`` (the owner's thread): never wait for another writer;
        a ``WouldWait`` is returned when storage is busy (not a fault: do not settle it)."""
        try:
            with nullcontext() if wait else self._without_waiting():
                if batch.new is not None:
                    batch.result = self._commit_new(batch.new)
                else:
                    self._commit_items(batch.items)
        except WouldWait as exc:
            return exc
        except self._FAULTS as exc:
            if not wait and self._is_busy(exc):
                return WouldWait(self.locator)
            return exc
        return None

    def settle_batch(self, batch: WriteBatch[Item], fault: Exception | None) -> bool:
        """Apply ``write_batch``'s outcome (the owner's thread): a fault keeps everything
        queued and is reported as ``_write_pending`` reports it; success removes the batch
        from the queue and ends a fault. True when the batch was stored."""
        if fault is not None:
            error = self._fault_message(fault)
            changed = error != self.write_error
            self.write_error = error
            if changed:
                self._notify_write_state(error, self.pending_count(), 0)
            return False
        if batch.new is not None:
            written = len(batch.new) - 1
            self._committed_new(batch.result)
            # Entries accepted while the first write ran were re-queued with it (the manager
            # re-creates with everything until the session exists): they follow as items.
            extra = (self._unwritten_new or [])[len(batch.new) :]
            self._unwritten_new = None
            self._unwritten[:0] = [self._prepare(entry) for entry in extra]
        else:
            written = len(batch.items)
            del self._unwritten[: len(batch.items)]
        if self.write_error is not None:
            self.write_error = None
            self._notify_write_state(None, self.pending_count(), written)
        return True

    def _notify_write_state(self, error: str | None, pending: int, written: int) -> None:
        listener = self.on_write_state
        if listener is None:
            return
        try:
            listener(error, pending, written)
        except Exception as exc:  # noqa: BLE001 - a listener bug must not turn into a lost entry
            logger().error(f"pi: session write listener failed: {exc!r}")

    def close(self) -> None:
        """Write what a fault kept pending (last chance), sync, then ``release``."""
        if self._closed:
            return
        try:
            if self.final_attempt_made and self.write_error is not None:
                # The owner's last attempt (off its thread) failed: do not wait for the lock again.
                if self.pending_count():
                    logger().error(
                        f"pi: session {self.locator}: {self.pending_count()} entries could not be "
                        f"written and are lost ({self.write_error})"
                    )
            elif self.pending_count() and not self._read_only and not self._write_pending():
                logger().error(
                    f"pi: session {self.locator}: {self.pending_count()} entries could not be "
                    f"written and are lost ({self.write_error})"
                )
            self.sync()
        finally:
            self._closed = True
            self.release()
