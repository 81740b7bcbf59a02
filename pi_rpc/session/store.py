"""The storage seam under ``SessionManager``: what a backend that holds sessions must do.

``SessionManager`` owns one session's tree (entries, index, leaf, labels) and the rule of
*when* to write (nothing before the first user or assistant message; see
``SessionManager._persist_entry``). *How and where* entries are kept is a backend's: a
``SessionStore`` is one session's storage, held by its manager; a ``SessionBackend`` names
new sessions, binds stores to locators and lists and finds the sessions it holds. The
JSONL files (``jsonl_store.py``) are the default; ``sqlite_store.py`` implements the same
protocols on one database for many sessions (``sessionStore: "sqlite"``; ``backends.py``
says which backend a locator belongs to). The tree,
context building, compaction and the manager's callers do not know which backend holds the
entries; the write-fault backlog both stores share is ``backlog.py``.

Every backend keeps the write-fault contract: an entry the manager accepted is never lost
or half-written because storage failed; it is held, in order, and written at the next append
or ``retry()`` once the fault is gone. ``write_error`` names the fault while one is in effect
and ``on_write_state`` hears every change (the runtime turns them into
``session_write_error`` / ``session_write_resumed`` events).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from pi_rpc.session.entries import Entry, SessionHeader

if TYPE_CHECKING:
    from pi_rpc.session.backlog import WriteBatch
    from pi_rpc.session.index import EntryIndex
    from pi_rpc.session.listing import SessionInfo
    from pi_rpc.session.loader import LoadedFile

FsyncMode = Literal["none", "entry", "turn"]
FSYNC_MODES = ("none", "entry", "turn")

WriteStateListener = Callable[[str | None, int, int], None]
"""``(error, pending_entries, written_entries)``: a fault began or changed (``error`` set),
or the backlog was written (``error`` None, ``written_entries`` > 0)."""


def describe_os_error(exc: OSError) -> str:
    """``File too large (EFBIG)``: the OS text and the errno name, no traceback noise."""
    code = errno.errorcode.get(exc.errno or 0)
    text = exc.strerror or str(exc)
    return f"{text} ({code})" if code else text


class SessionStore(Protocol):
    """One session's storage. Unless opened read-only, the store holds the session's
    single-writer lock from its first read or write until ``close``/``release``; a second
    writer (another process) is refused with the holder's pid (``SessionLockedError``)."""

    write_error: str | None
    on_write_state: WriteStateListener | None
    # Deferred writing (``backlog.py``): supported by the class, switched on, last attempt made.
    deferrable: ClassVar[bool]
    defer: bool
    final_attempt_made: bool
    # Load and repair notes, appended to the list the manager reports (shared with it).
    diagnostics: list[str]

    @property
    def locator(self) -> str:
        """Where the session lives (a file path for JSONL); what ``session_file`` reports."""
        ...

    @property
    def directory(self) -> str | None:
        """The session directory the session belongs to (a file's folder; the one a database
        session was created in), None when not known."""
        ...

    @property
    def created(self) -> bool:
        """True once the storage holds this session's header (created, or opened)."""
        ...

    def load(self) -> tuple[LoadedFile | None, EntryIndex | None]:
        """Open: take the lock (unless read-only), read and repair crash damage. ``(None,
        None)`` when nothing is stored there yet; a stored empty session gives no entries;
        otherwise the header first and, for a current-format session, the index of the
        entries after it (the loaded entries then hold only the header)."""
        ...

    def create(self, header: SessionHeader, entries: Sequence[Entry], *, hold: bool = True) -> bool:
        """Create the session's storage exclusively with the header and ``entries`` in one
        write. ``hold``: a fault keeps them pending (False returned, ``write_error`` set);
        otherwise the fault is raised and nothing is left behind."""
        ...

    def append(self, entries: Iterable[Entry]) -> bool:
        """Append a batch after whatever a fault holds, all or nothing; False when held."""
        ...

    def rewrite(self, header: SessionHeader, entries: Sequence[Entry]) -> None:
        """Replace the whole stored session (migration, header for an empty file)."""
        ...

    def pending_count(self) -> int:
        """Entries accepted but held off storage by a fault (0 when none)."""
        ...

    def retry(self) -> bool:
        """Write what a fault holds; True when nothing is pending any more."""
        ...

    def take_batch(self) -> WriteBatch[Any] | None:
        """Deferred writing: what is queued now."""
        ...

    def write_batch(self, batch: WriteBatch[Any], *, wait: bool = True) -> Exception | None:
        """Deferred writing: store ``batch`` (any thread); the storage fault or None.
        ``wait=False``: never wait for another writer (``backlog.WouldWait`` when busy)."""
        ...

    def settle_batch(self, batch: WriteBatch[Any], fault: Exception | None) -> bool:
        """Deferred writing: apply ``write_batch``'s outcome (the owner's thread)."""
        ...

    def sync(self) -> None:
        """Per-turn durability point (``fsync="turn"``)."""
        ...

    def close(self) -> None:
        """Write what is held (last chance), sync, then ``release``."""
        ...

    def release(self) -> None:
        """Drop open handles and the single-writer lock without writing."""
        ...


class SessionBackend(Protocol):
    """Where a backend keeps many sessions: naming new ones, binding a store to a locator,
    listing and finding (``--continue``, ``--session <id>``)."""

    # Whether a session directory must exist on disk for sessions to be created in it.
    creates_directories: bool

    def exists(self, locator: str) -> bool:
        """Whether the session ``locator`` names is stored (its first write happened)."""
        ...

    def holder_pid(self, locator: str) -> int | None:
        """The pid of the live process holding the session's single-writer lock, or None."""
        ...

    def new_locator(self, session_dir: str, timestamp: str, session_id: str) -> str: ...

    def store(self, locator: str, *, fsync: FsyncMode, read_only: bool, diagnostics: list[str]) -> SessionStore: ...

    def list_sessions(
        self, session_dir: str, cwd_filter: str | None = None, *, with_texts: bool = False
    ) -> list[SessionInfo]: ...

    def list_all_sessions(
        self, sessions_root: str, *, custom: bool = False, with_texts: bool = False
    ) -> list[SessionInfo]: ...

    def query_sessions(
        self,
        session_dir: str,
        *,
        cwd_filter: str | None = None,
        every_project: bool = False,
        query: str | None = None,
        limit: int | None = None,
    ) -> list[SessionInfo]:
        """What ``list_sessions`` answers: the sessions of ``session_dir`` (``every_project``:
        of every project under the sessions root ``session_dir``, as ``list_all_sessions``),
        newest first, only those ``SessionInfo.matches(query)``, at most ``limit``. The
        summaries need not carry message texts."""
        ...

    def find_most_recent(self, session_dir: str, cwd: str | None = None) -> str | None: ...

    def find_by_id(self, session_dir: str, session_id: str, cwd: str | None = None) -> str | None: ...
