"""The SQLite session backend: many sessions in one database file (standard library
``sqlite3``), each entry kept as the exact JSON line the JSONL backend would write.

A session is named by its locator ``sqlite:<real absolute database path>#<session id>``.

Layout (``PRAGMA application_id`` = ``APPLICATION_ID``, ``PRAGMA user_version`` = the schema
version, raised one migration at a time, each in its own ``BEGIN IMMEDIATE`` transaction):

- ``sessions``: one row per session: the header line, the session directory it was created
  in (the folder the JSONL store would have put its file in; listings and lookups are
  scoped by it as they are by folder for files), and what a listing shows, kept current by
  every write: cwd, creation time, parent session, name, message count, first message, last
  activity, ``modified`` (as ``listing.build_session_info`` computes it) and ``written_at``
  (the wall clock of the last write: a file's mtime, for ``--continue``).
- ``entries``: ``(session_id, seq)`` -> the entry's line (its JSON and the LF, exactly
  ``jsonfmt.dumps_line``), with its id, parent id, type and timestamp as columns.
- ``texts``, ``sessions.name_folded`` and (when the build has FTS5 trigram) ``texts_fts``:
  the search index of version 2 (``sqlite_search``), written in the same transactions.

The summary columns are accumulated with ``info_scan``'s per-entry rules, so a listing
answered from them equals the JSONL listing of the same session.

Connections: WAL, ``busy_timeout`` 5 s, ``synchronous`` from the ``fsync`` setting (``none``
-> NORMAL, ``entry``/``turn`` -> FULL: every commit durable), autocommit with short explicit
``BEGIN IMMEDIATE`` write transactions (one per batch: all or nothing). The file is created
0600 before SQLite opens it (its ``-wal``/``-shm`` files take the same mode). Crash recovery
is SQLite's own: an interrupted transaction is rolled back when the database is next opened.

One writer per session across processes: ``fcntl.flock`` on the sidecar
``<database>.<session id>.lock`` (``lock.py``), held from the first read or write until
close; a second writer is refused with the holder's pid, and a dead holder's lock is free.

Write faults (a read-only directory, a full disk, a database locked past the timeout) are
the shared ``backlog.WriteBacklog``'s: nothing accepted is lost, entries are held in order and
written once the fault is gone, with the same ``write_error`` / ``on_write_state`` reports.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import sqlite3
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote

from pi_rpc.session.backlog import WouldWait, WriteBacklog
from pi_rpc.session.entries import Entry, SessionHeader, SessionLine, header_of
from pi_rpc.session.errors import SessionError, SessionInvalidError, SessionReadOnlyError
from pi_rpc.session.ids import SESSION_ID_RE, iso_to_ms
from pi_rpc.session.info_scan import ScannedSession, absorb_entry, scan_session
from pi_rpc.session.jsonl_store import read_and_index
from pi_rpc.session.lock import SessionLock, holder_pid
from pi_rpc.session.sqlite_search import entry_text, insert_texts, listing_rows, migrate_to_v2
from pi_rpc.session.store import FsyncMode, describe_os_error
from pi_rpc.session.store_rows import (
    SESSION_ROW_COLUMNS,
    SUMMARY_COLUMNS,
    entry_line,
    listing_info,
    normdir,
    now_ms,
    session_row_values,
    summary_values,
)

if TYPE_CHECKING:
    from pi_rpc.session.index import EntryIndex
    from pi_rpc.session.listing import SessionInfo
    from pi_rpc.session.loader import LoadedFile

LOCATOR_PREFIX = "sqlite:"
APPLICATION_ID = 0x50695250  # "PiRP": marks the file as a pi_rpc session database
SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 5000
_NAME_MAX = 255  # bytes in a file name (NAME_MAX of the usual file systems)

# Schema version -> the statements (or the function, run in the same transaction) that
# bring the previous version to it.
_MIGRATIONS: tuple[tuple[int, tuple[str, ...] | Callable[[sqlite3.Connection], None]], ...] = (
    (
        1,
        (
            """CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                header TEXT NOT NULL,
                dir TEXT,
                cwd TEXT NOT NULL,
                created_at TEXT,
                parent_session TEXT,
                name TEXT,
                message_count INTEGER NOT NULL,
                first_message TEXT NOT NULL,
                last_activity REAL,
                modified REAL NOT NULL,
                written_at INTEGER NOT NULL,
                next_seq INTEGER NOT NULL
            ) WITHOUT ROWID""",
            """CREATE TABLE entries (
                session_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                id TEXT,
                parent_id TEXT,
                type TEXT,
                timestamp TEXT,
                line TEXT NOT NULL,
                PRIMARY KEY (session_id, seq)
            ) WITHOUT ROWID""",
            # Few indexes on purpose: every append commits the pages of each index the
            # sessions row's summary touches. Entries are found by position (the tree lives
            # in memory); sessions by directory or cwd, newest first, and by parent.
            "CREATE INDEX sessions_by_dir_modified ON sessions(dir, modified DESC)",
            "CREATE INDEX sessions_by_cwd_modified ON sessions(cwd, modified DESC)",
            "CREATE INDEX sessions_by_parent ON sessions(parent_session)",
        ),
    ),
    # The search index (``sqlite_search``): texts, folded names, FTS5 trigram when available.
    (2, migrate_to_v2),
)

# One stored entry: (id, parent id, type, timestamp, line, the text a search reads or None).
Row = tuple[object, object, object, object, str, str | None]
# An accepted entry waiting to be written: its row and the session's summary as of it.
Pending = tuple[Row, "ScannedSession | None"]


class SessionDatabaseError(SessionError):
    """A database file that is not a pi_rpc session database, or one of a newer format."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"Session database {path}: {reason}")
        self.path = path


# ---------------------------------------------------------------------- locators


def is_locator(value: str) -> bool:
    return value.startswith(LOCATOR_PREFIX)


def database_path(path: str) -> str:
    """The real absolute path a locator names a database by."""
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def make_locator(db_path: str, session_id: str) -> str:
    """``sqlite:<real absolute database path>#<session id>``."""
    return f"{LOCATOR_PREFIX}{database_path(db_path)}#{session_id}"


def parse_locator(locator: str) -> tuple[str, str]:
    """``(database path, session id)``; the id follows the last ``#`` (a path may hold one)."""
    if not is_locator(locator):
        raise ValueError(f"not a SQLite session locator: {locator!r}")
    db, sep, session_id = locator[len(LOCATOR_PREFIX) :].rpartition("#")
    if not sep or not db or not session_id:
        raise ValueError(f"SQLite session locator without '#<session id>': {locator!r}")
    return database_path(db), session_id


def lock_path_for(db_path: str, session_id: str) -> str:
    """The single-writer sidecar of one session: ``<db>.<id>.lock`` (an id that is not a
    plain file name, or would make the name longer than a file name may be, is hashed)."""
    plain = SESSION_ID_RE.match(session_id) and len(os.path.basename(db_path)) + len(session_id) + 6 <= _NAME_MAX
    name = session_id if plain else hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{db_path}.{name}.lock"


# ---------------------------------------------------------------------- connections


def _uri(path: str, mode: str) -> str:
    return f"file:{quote(path)}?mode={mode}"


def _pragma(conn: sqlite3.Connection, name: str) -> Any:
    row = conn.execute(f"PRAGMA {name}").fetchone()
    return row[0] if row else None


def _has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_schema LIMIT 1").fetchone() is not None


def _check_format(conn: sqlite3.Connection, path: str) -> int:
    """The schema version of an opened database; raises for a foreign or newer file."""
    app_id = _pragma(conn, "application_id")
    version = int(_pragma(conn, "user_version") or 0)
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and version == 0 and _has_tables(conn)):
        raise SessionDatabaseError(path, "not a pi session database")
    if version > SCHEMA_VERSION:
        raise SessionDatabaseError(path, f"written by a newer pi (format {version}, this one reads {SCHEMA_VERSION})")
    return version


def check_database(path: str) -> None:
    """Refuse what is not a pi session database before any connection that could change it
    (switch it to WAL, create ``-wal``/``-shm`` files, roll back its journal): a directory, a
    FIFO or a device, a file that is not SQLite, another application's database. A missing
    or empty file is fine (a new database).

    The file is only read through SQLite (never opened and closed by hand: closing a
    descriptor of a database this process has open would drop the POSIX locks its
    connections hold), first as ``immutable`` (the main file alone: no lock, no file
    created), then, when that finds no schema or no valid header but a WAL file exists,
    read-only (the schema may still be in the WAL, or the main file be mid-checkpoint; the
    WAL file is there already)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SessionDatabaseError(path, f"cannot be read: {describe_os_error(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise SessionDatabaseError(path, "is a directory, not a session database")
    if not stat.S_ISREG(st.st_mode):
        raise SessionDatabaseError(path, "is not a regular file")
    if st.st_size == 0:
        return
    wal = os.path.exists(f"{path}-wal")
    try:
        version: int | None = _read_format(path, _uri(path, "ro") + "&immutable=1")
    except SessionDatabaseError:
        if not wal:
            raise
        version = None  # the main file alone may be mid-checkpoint: ask with the WAL
    if version in (None, 0) and wal:
        _read_format(path, _uri(path, "ro"))


def _read_format(path: str, uri: str) -> int:
    """``_check_format`` through a read-only connection opened by ``uri``."""
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise SessionDatabaseError(path, f"cannot be read: {_describe_sqlite_error(exc)}") from None
    try:
        return _check_format(conn, path)
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorname", None) == "SQLITE_NOTADB":
            raise SessionDatabaseError(path, "not a pi session database (not an SQLite database)") from None
        raise SessionDatabaseError(path, f"cannot be read: {_describe_sqlite_error(exc)}") from None
    finally:
        conn.close()


def _migrate(conn: sqlite3.Connection, path: str) -> None:
    version = _check_format(conn, path)
    for target, step in _MIGRATIONS:
        if version >= target:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            version = _check_format(conn, path)
            if version < target:
                if callable(step):
                    step(conn)
                else:
                    for statement in step:
                        conn.execute(statement)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {target}")
                version = target
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # no transaction was open (BEGIN or COMMIT itself failed and ended it)


def connect_writer(path: str, fsync: FsyncMode) -> sqlite3.Connection:
    """A connection that writes: the file created 0600 if missing, WAL, the synchronous
    level of ``fsync``, the schema migrated to ``SCHEMA_VERSION``. What is not a pi session
    database is refused before anything is changed (``check_database``)."""
    check_database(path)
    if not os.path.exists(path):
        # Created (0600) only when missing: closing a descriptor of a database this process
        # has open would drop every POSIX lock its connections hold on it (the WAL-mode
        # shared lock among them), and another process closing its last connection would
        # then think itself the last one and remove the WAL under us ("disk I/O error").
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            pass  # created meanwhile by another process
        else:
            os.close(fd)
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if str(_pragma(conn, "journal_mode = WAL")).lower() != "wal":
            # WAL needs shared memory (no network file systems): a rollback journal then,
            # and FULL so a commit is still durable when it returns.
            conn.execute("PRAGMA synchronous = FULL")
        else:
            conn.execute(f"PRAGMA synchronous = {'NORMAL' if fsync == 'none' else 'FULL'}")
        _migrate(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def connect_reader(path: str) -> sqlite3.Connection | None:
    """A connection that only reads (never creates the file): None when the database does
    not exist; read-write access is used when granted (a WAL reader may need to create the
    ``-shm`` file), read-only otherwise."""
    if not os.path.exists(path):
        return None
    check_database(path)
    try:
        conn = sqlite3.connect(
            _uri(path, "rw"), uri=True, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
        )
    except sqlite3.OperationalError:
        conn = sqlite3.connect(
            _uri(path, "ro"), uri=True, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
        )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if _check_format(conn, path) == 0:
            conn.close()
            return None  # an empty database: no session stored yet
    except BaseException:
        conn.close()
        raise
    return conn


def _describe_sqlite_error(exc: sqlite3.Error) -> str:
    """``attempt to write a readonly database (SQLITE_READONLY)``, as ``describe_os_error``."""
    name = getattr(exc, "sqlite_errorname", None)
    return f"{exc} ({name})" if name else str(exc)


# ---------------------------------------------------------------------- summaries


def _column(value: Any) -> Any:
    """An entry field as a column value: a string or number as is; anything else (an array,
    an object, a bool, from a hand-edited file) is not a key any lookup uses: NULL. The line
    keeps the value."""
    cls = value.__class__
    if cls is str or cls is float or (cls is int and -(2**63) <= value < 2**63):
        return value
    return None


def _row_of(entry: SessionLine, line: str | None = None) -> Row:
    return (
        _column(entry.get("id")),
        _column(entry.get("parentId")),
        _column(entry.get("type")),
        _column(entry.get("timestamp")),
        entry_line(entry) if line is None else line,
        entry_text(entry),
    )


def insert_session_row(
    conn: sqlite3.Connection,
    session_id: str,
    header_line: str,
    session_dir: str | None,
    summary: ScannedSession,
    *,
    written_at: int,
    next_seq: int,
) -> None:
    """The ``sessions`` row of a session (``sqlite3.IntegrityError`` when one of that id is
    stored), in the caller's write transaction."""
    conn.execute(
        f"INSERT INTO sessions ({', '.join(SESSION_ROW_COLUMNS)}) VALUES ({', '.join('?' * len(SESSION_ROW_COLUMNS))})",
        session_row_values(session_id, header_line, session_dir, summary, written_at, next_seq),
    )


def insert_rows(conn: sqlite3.Connection, session_id: str, first_seq: int, rows: Sequence[Row]) -> None:
    """Entries at ``first_seq`` on, and their texts in the search index."""
    conn.executemany(
        "INSERT INTO entries (session_id, seq, id, parent_id, type, timestamp, line) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(session_id, first_seq + n, *row[:5]) for n, row in enumerate(rows)],
    )
    texts = [row[5] for row in rows if row[5] is not None]
    if texts:
        insert_texts(conn, session_id, texts)


def import_session(
    conn: sqlite3.Connection,
    header: SessionHeader,
    header_line: str,
    entries: Sequence[tuple[SessionLine, str]],
    *,
    session_dir: str | None,
    written_at: int,
) -> bool:
    """Store a session read from elsewhere, each entry as its given line (``pi sessions
    import``: the file's own bytes), in the caller's write transaction. False (nothing
    stored) when the database holds a session of that id already."""
    summary = ScannedSession(header)
    rows: list[Row] = []
    for entry, line in entries:
        absorb_entry(summary, entry, False)
        rows.append(_row_of(entry, line))
    session_id = str(header["id"])
    try:
        insert_session_row(
            conn, session_id, header_line, session_dir, summary, written_at=written_at, next_seq=len(rows)
        )
    except sqlite3.IntegrityError:
        return False
    insert_rows(conn, session_id, 0, rows)
    return True


@dataclass(frozen=True)
class StoredSession:
    """One session as the JSONL store would hold it (``pi sessions export``)."""

    id: str
    cwd: str
    created_at: str | None  # the header's timestamp (names the file)
    written_at: int  # ms: the last write (an exported file's mtime)
    data: bytes  # the whole file: header and entry lines


def stored_session_ids(conn: sqlite3.Connection) -> list[str]:
    return [session_id for (session_id,) in conn.execute("SELECT id FROM sessions ORDER BY id")]


def read_stored_session(conn: sqlite3.Connection, session_id: str) -> StoredSession | None:
    """The session's lines as one file's bytes (one read transaction), None when not stored."""
    conn.execute("BEGIN")
    try:
        row = conn.execute(
            "SELECT header, cwd, created_at, written_at FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if row is None:
            return None
        lines = [
            line
            for (line,) in conn.execute("SELECT line FROM entries WHERE session_id = ? ORDER BY seq", (session_id,))
        ]
    finally:
        _rollback(conn)
    header, cwd, created_at, written_at = row
    return StoredSession(session_id, cwd, created_at, int(written_at), "".join((header, *lines)).encode("utf-8"))


@contextmanager
def immediate_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A ``BEGIN IMMEDIATE`` write transaction: committed when the block ends, rolled back
    when it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise


# ---------------------------------------------------------------------- the store


class SqliteSessionStore(WriteBacklog[Pending]):
    """One session in a session database (a ``SessionStore``): its connection, its
    single-writer lock and what a write fault holds back (rows not yet stored)."""

    # sqlite3.DatabaseError: SQLITE_READONLY, SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY past the
    # timeout, SQLITE_CANTOPEN...; OSError: the lock file or the database file not creatable.
    # SessionDatabaseError: the path names something that is not a pi session database (held
    # and reported like any fault: nothing accepted is lost, the process keeps serving).
    _FAULTS: ClassVar[tuple[type[Exception], ...]] = (OSError, sqlite3.DatabaseError, SessionDatabaseError)
    # Writes may wait for another process's lock up to the busy timeout: the runtime writes
    # them off the event loop (``backlog``'s deferred writing).
    deferrable: ClassVar[bool] = True

    def __init__(
        self,
        db_path: str,
        session_id: str,
        *,
        fsync: FsyncMode = "none",
        read_only: bool = False,
        diagnostics: list[str] | None = None,
        session_dir: str | None = None,
    ) -> None:
        super().__init__(read_only=read_only)
        self._db = database_path(db_path)
        self._session_id = session_id
        self._locator = make_locator(self._db, session_id)
        self._fsync: FsyncMode = fsync
        self._session_dir = os.path.normpath(os.path.abspath(session_dir)) if session_dir else None
        self.diagnostics: list[str] = diagnostics if diagnostics is not None else []
        self._conn: sqlite3.Connection | None = None
        self._lock: SessionLock | None = None
        # The listing summary of everything accepted (stored, or held by a fault).
        self._summary: ScannedSession | None = None

    @property
    def locator(self) -> str:
        return self._locator

    @property
    def database(self) -> str:
        return self._db

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def lock_path(self) -> str:
        return lock_path_for(self._db, self._session_id)

    @property
    def directory(self) -> str | None:
        """The session directory the session was created in (known once created or loaded)."""
        return self._session_dir

    # ------------------------------------------------------------------ connection and lock

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            if self._read_only:
                conn = connect_reader(self._db)
                if conn is None:
                    raise FileNotFoundError(errno.ENOENT, "no session database", self._db)
                self._conn = conn
            else:
                self._conn = connect_writer(self._db, self._fsync)
        return self._conn

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error:
                pass  # closing a connection that failed: nothing left to keep

    def _ensure_lock(self) -> None:
        self._refuse_closed()  # a closed store never takes the lock again
        if self._lock is None:
            self._lock = SessionLock(self._locator, self.lock_path)
        if not self._lock.held:
            self._lock.acquire()
        if self._lock.stale_pid is not None:
            self.diagnostics.append(f"recovered a stale lock left by pid {self._lock.stale_pid}")
            self._lock.stale_pid = None

    @contextmanager
    def _write_transaction(self) -> Iterator[sqlite3.Connection]:
        """A short ``BEGIN IMMEDIATE`` transaction under the session's lock; a fault rolls
        it back and drops the connection (the next attempt starts afresh)."""
        if self._read_only:
            raise SessionReadOnlyError(self._locator)
        try:
            if self._conn is None:
                check_database(self._db)  # nothing next to a foreign database either (the lock file)
            self._ensure_lock()
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
        except self._FAULTS:
            self._drop_connection()
            raise

    @contextmanager
    def _without_waiting(self) -> Iterator[None]:
        """A write on the event loop's thread that never waits for another process's lock:
        the open connection's busy timeout is 0 for its duration (a lock held elsewhere is
        ``SQLITE_BUSY`` at once, ``_is_busy``). Without an open connection and lock, opening
        them could wait (the format check, the schema): ``WouldWait`` at once."""
        conn = self._conn
        if conn is None or self._lock is None or not self._lock.held:
            raise WouldWait(self._locator)
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            yield
        finally:
            if self._conn is conn:  # (a fault dropped it otherwise)
                try:
                    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                except sqlite3.Error:
                    self._drop_connection()  # the next write opens a fresh one

    def _is_busy(self, exc: Exception) -> bool:
        # SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
        return isinstance(exc, sqlite3.OperationalError) and getattr(exc, "sqlite_errorcode", 0) & 0xFF in (5, 6)

    # ------------------------------------------------------------------ open

    def load(self) -> tuple[LoadedFile | None, EntryIndex | None]:
        """Read the session under the single-writer lock (taken now unless read-only);
        ``(None, None)`` when the database does not hold it (and then no lock is kept)."""
        if not os.path.exists(self._db):
            return None, None
        try:
            if not self._read_only:
                self._ensure_lock()
                conn: sqlite3.Connection | None = self._connection()
            else:
                conn = self._conn = connect_reader(self._db)
            row, lines = self._read(conn) if conn is not None else (None, [])
            if row is None:
                self.release()
                return None, None
            header_line, message_count, first_message, name, last_activity, directory = row
            self._session_dir = directory or self._session_dir
            data = b"".join(line.encode("utf-8") for line in (header_line, *lines))
            loaded, index = read_and_index(io.BytesIO(data))
            if not loaded.entries or loaded.entries[0].get("type") != "session":
                raise SessionInvalidError(self._locator)
        except sqlite3.DatabaseError as exc:
            self.close()
            if getattr(exc, "sqlite_errorname", None) == "SQLITE_NOTADB":
                raise SessionDatabaseError(self._db, "not a pi session database") from exc
            raise
        except BaseException:
            self.close()
            raise
        self.diagnostics.extend(loaded.diagnostics)
        self._summary = ScannedSession(
            loaded.entries[0],
            message_count=message_count,
            first_message=first_message,
            name=name,
            last_activity=last_activity,
        )
        self._flushed = True
        return loaded, index

    def _read(self, conn: sqlite3.Connection) -> tuple[tuple[Any, ...] | None, list[str]]:
        # One read transaction: the header row and the lines are of the same commit.
        conn.execute("BEGIN")
        try:
            row = conn.execute(
                "SELECT header, message_count, first_message, name, last_activity, dir FROM sessions WHERE id = ?",
                (self._session_id,),
            ).fetchone()
            lines: list[str] = []
            if row is not None:
                lines = [
                    line
                    for (line,) in conn.execute(
                        "SELECT line FROM entries WHERE session_id = ? ORDER BY seq", (self._session_id,)
                    )
                ]
        finally:
            _rollback(conn)
        return row, lines

    # ------------------------------------------------------------------ writing (the backlog's hooks)

    def _prepare(self, entry: SessionLine) -> Pending:
        # The summary as of this entry, copied now: a deferred batch may be written while
        # later entries are accepted, and its sessions row must describe exactly its rows.
        summary = self._summary
        if summary is not None:
            absorb_entry(summary, entry, False)
            summary = replace(summary)
        return _row_of(entry), summary

    def _write_new(self, entries: Sequence[SessionLine]) -> None:
        self._committed_new(self._commit_new(entries))

    def _commit_new(self, entries: Sequence[SessionLine]) -> ScannedSession:
        """Insert the session row and its first entries in one transaction; a session of
        this id already in the database is refused as ``FileExistsError`` (the JSONL
        store's exclusive create). Touches no backlog state (deferred writing)."""
        header, rows, summary = self._rows_and_summary(entries)
        written_at = now_ms()
        with self._write_transaction() as conn:
            try:
                self._insert_session(conn, header, summary, written_at, len(rows))
            except sqlite3.IntegrityError:
                raise FileExistsError(errno.EEXIST, "session already stored", self._locator) from None
            self._insert_rows(conn, 0, rows)
        return summary

    def _committed_new(self, result: Any) -> None:
        self._summary = result
        self._flushed = True

    def _write_items(self, items: list[Pending]) -> None:
        if not self._flushed or self._summary is None:
            raise FileNotFoundError(errno.ENOENT, "session not stored yet", self._locator)
        self._commit_items(items)

    def _commit_items(self, items: list[Pending]) -> None:
        summary = items[-1][1]
        if summary is None:
            raise FileNotFoundError(errno.ENOENT, "session not stored yet", self._locator)
        written_at = now_ms()
        with self._write_transaction() as conn:
            # The next position is read inside the write transaction, not remembered: two
            # stores of one process may share a session (they share its lock, as files do).
            found = conn.execute("SELECT next_seq FROM sessions WHERE id = ?", (self._session_id,)).fetchone()
            if found is None:  # deleted under us: fail the batch, nothing half-stored
                raise FileNotFoundError(errno.ENOENT, "session no longer stored", self._locator)
            next_seq = int(found[0])
            self._insert_rows(conn, next_seq, [row for row, _ in items])
            assignments = ", ".join(f"{column} = ?" for column in SUMMARY_COLUMNS)
            conn.execute(
                f"UPDATE sessions SET {assignments}, next_seq = ? WHERE id = ?",
                (*summary_values(summary, written_at), next_seq + len(items), self._session_id),
            )

    def rewrite(self, header: SessionHeader, entries: Sequence[Entry]) -> None:
        """Replace the whole stored session (migration) in one transaction."""
        if self._read_only:
            return
        header, rows, summary = self._rows_and_summary([header, *entries])
        written_at = now_ms()
        try:
            with self._write_transaction() as conn:
                conn.execute("DELETE FROM entries WHERE session_id = ?", (self._session_id,))
                conn.execute("DELETE FROM sessions WHERE id = ?", (self._session_id,))
                self._insert_session(conn, header, summary, written_at, len(rows))
                self._insert_rows(conn, 0, rows)
        except self._FAULTS as exc:
            # Rolled back, the stored session unchanged: the opening fails with the reason (a
            # database locked past the busy timeout), not with a driver's traceback.
            raise SessionError(self._fault_message(exc)) from None
        self._summary = summary
        self._flushed = True

    @staticmethod
    def _rows_and_summary(entries: Sequence[SessionLine]) -> tuple[SessionHeader, list[Row], ScannedSession]:
        header = header_of(entries[0])
        summary = ScannedSession(header)
        rows: list[Row] = []
        for entry in entries[1:]:
            absorb_entry(summary, entry, False)
            rows.append(_row_of(entry))
        return header, rows, summary

    def _insert_session(
        self, conn: sqlite3.Connection, header: SessionHeader, summary: ScannedSession, written_at: int, next_seq: int
    ) -> None:
        insert_session_row(
            conn,
            self._session_id,
            entry_line(header),
            self._session_dir,
            summary,
            written_at=written_at,
            next_seq=next_seq,
        )

    def _insert_rows(self, conn: sqlite3.Connection, first_seq: int, rows: Sequence[Row]) -> None:
        insert_rows(conn, self._session_id, first_seq, rows)

    def _fault_message(self, exc: Exception) -> str:
        if isinstance(exc, sqlite3.Error):
            reason = _describe_sqlite_error(exc)
        else:
            reason = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
        return f"Could not write session {self._locator}: {reason}"

    # ------------------------------------------------------------------ sync / close

    def sync(self) -> None:
        """Nothing to do: every transaction is as durable as ``synchronous`` makes it when
        it commits (FULL for ``entry`` and ``turn``)."""

    def release(self) -> None:
        self._drop_connection()
        if self._lock is not None:
            self._lock.release()

    def holder_pid(self) -> int | None:
        """The pid of the live process holding this session's writer lock, or None."""
        return holder_pid(self._locator, self.lock_path)


# ---------------------------------------------------------------------- the backend


class SqliteBackend:
    """One session database as a ``SessionBackend``. A new session's locator remembers the
    session directory it was named for until its store is bound (stored with the session:
    listings and lookups by directory answer as the JSONL folders would)."""

    # Sessions live in the database file: no session directory is ever created for them.
    creates_directories = False

    def __init__(self, db_path: str) -> None:
        self._db = database_path(db_path)
        self._dirs: dict[str, str] = {}

    @property
    def database(self) -> str:
        return self._db

    def new_locator(self, session_dir: str, timestamp: str, session_id: str) -> str:
        locator = make_locator(self._db, session_id)
        self._dirs[locator] = session_dir
        return locator

    def store(self, locator: str, *, fsync: FsyncMode, read_only: bool, diagnostics: list[str]) -> SqliteSessionStore:
        db, session_id = parse_locator(locator)
        return SqliteSessionStore(
            db,
            session_id,
            fsync=fsync,
            read_only=read_only,
            diagnostics=diagnostics,
            session_dir=self._dirs.pop(locator, None),
        )

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection | None]:
        conn = connect_reader(self._db)
        try:
            yield conn
        finally:
            if conn is not None:
                conn.close()

    def _locator(self, session_id: str) -> str:
        return f"{LOCATOR_PREFIX}{self._db}#{session_id}"

    def _info(self, row: tuple[Any, ...], texts: tuple[str, ...] = ()) -> SessionInfo:
        """A listing row as the summary the JSONL listing makes (``texts``: its message texts)."""
        return listing_info(self._locator(row[0]), row, texts)

    def list_sessions(
        self, session_dir: str, cwd_filter: str | None = None, *, with_texts: bool = False
    ) -> list[SessionInfo]:
        """The sessions created in ``session_dir``, newest ``modified`` first, as
        ``listing.list_sessions`` lists a folder (the summary from the indexed columns;
        ``with_texts`` reads each session's lines for its message texts)."""
        from pi_rpc.session.listing import cwd_matches

        out: list[SessionInfo] = []
        with self._reading() as conn:
            if conn is None:
                return out
            conn.execute("BEGIN")  # one snapshot for the rows and their texts
            rows = conn.execute(
                "SELECT id, cwd, created_at, parent_session, name, message_count, first_message, modified"
                " FROM sessions WHERE dir = ? ORDER BY modified DESC, created_at DESC, id DESC",
                (normdir(session_dir),),
            ).fetchall()
            if cwd_filter is not None:
                rows = [row for row in rows if cwd_matches(row[1], cwd_filter)]
            texts_of = self._texts(conn, normdir(session_dir)) if with_texts else {}
            _rollback(conn)
            for session_id, cwd, created_at, parent, name, count, first, modified in rows:
                row = (session_id, cwd, iso_to_ms(created_at), parent, name, count, first, modified)
                out.append(self._info(row, texts_of.get(session_id, ())))
        return out

    def query_sessions(
        self,
        session_dir: str | None,
        *,
        cwd_filter: str | None = None,
        every_project: bool = False,
        query: str | None = None,
        limit: int | None = None,
    ) -> list[SessionInfo]:
        """``list_sessions`` with its ``query`` and ``limit`` answered by the database: the
        sessions of ``session_dir`` (None, or ``every_project``: every session of the
        database, which is the sessions root), newest first,
        only those whose name or a user/assistant text contains ``query`` (case-insensitive,
        ``SessionInfo.matches``), at most ``limit``. Indexed: a page of 50 out of 100,000
        reads 50 rows; a query uses the trigram index (``sqlite_search``). The summaries
        carry no message texts."""
        from pi_rpc.session.listing import cwd_matches

        out: list[SessionInfo] = []
        if limit is not None and limit <= 0:
            return out
        with self._reading() as conn:
            if conn is None:
                return out
            conn.execute("BEGIN")
            directory = None if session_dir is None or every_project else normdir(session_dir)
            rows = listing_rows(conn, directory, query)
            try:
                for row in rows:
                    if cwd_filter is not None and not cwd_matches(row[1], cwd_filter):
                        continue
                    out.append(self._info(row))
                    if limit is not None and len(out) >= limit:
                        break
            finally:
                rows.close()
                _rollback(conn)
        return out

    @staticmethod
    def _texts(conn: sqlite3.Connection, directory: str) -> dict[str, tuple[str, ...]]:
        """Every user/assistant text of each session of ``directory``, as the JSONL listing
        reads them (``info_scan.scan_session`` over the session's lines)."""
        headers = dict(conn.execute("SELECT id, header FROM sessions WHERE dir = ?", (directory,)).fetchall())
        lines: dict[str, list[str]] = {session_id: [header] for session_id, header in headers.items()}
        for session_id, line in conn.execute(
            "SELECT e.session_id, e.line FROM sessions s JOIN entries e ON e.session_id = s.id"
            " WHERE s.dir = ? AND e.type = 'message' ORDER BY e.session_id, e.seq",
            (directory,),
        ):
            lines[session_id].append(line)
        out: dict[str, tuple[str, ...]] = {}
        for session_id, parts in lines.items():
            scanned = scan_session("".join(parts).encode("utf-8"), with_texts=True)
            out[session_id] = tuple(scanned.texts) if scanned is not None else ()
        return out

    def find_most_recent(self, session_dir: str, cwd: str | None = None) -> str | None:
        """``--continue``: the session of ``session_dir`` written last (with ``cwd``, only
        sessions of that cwd)."""
        from pi_rpc.session.listing import cwd_matches

        with self._reading() as conn:
            if conn is None:
                return None
            for session_id, session_cwd in conn.execute(
                "SELECT id, cwd FROM sessions WHERE dir = ? ORDER BY written_at DESC, id DESC", (normdir(session_dir),)
            ):
                if cwd is None or cwd_matches(session_cwd, cwd):
                    return self._locator(session_id)
        return None

    def find_by_id(self, session_dir: str, session_id: str, cwd: str | None = None) -> str | None:
        from pi_rpc.session.listing import cwd_matches

        with self._reading() as conn:
            if conn is None:
                return None
            row = conn.execute(
                "SELECT cwd FROM sessions WHERE id = ? AND dir = ?", (session_id, normdir(session_dir))
            ).fetchone()
        if row is None or (cwd is not None and not cwd_matches(row[0], cwd)):
            return None
        return self._locator(session_id)

    def exists(self, locator: str) -> bool:
        """Whether the database holds the session ``locator`` names."""
        db, session_id = parse_locator(locator)
        conn = connect_reader(db)
        if conn is None:
            return False
        try:
            return conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None
        finally:
            conn.close()

    def holder_pid(self, locator: str) -> int | None:
        """The pid of the live process holding the session's writer lock, or None."""
        db, session_id = parse_locator(locator)
        return holder_pid(locator, lock_path_for(db, session_id))

    def delete(self, locator: str) -> bool:
        """Remove a session and its entries in one transaction, under its single-writer lock
        (``SessionLockedError`` names another process holding it); False when not stored."""
        db, session_id = parse_locator(locator)
        if not self.exists(locator):
            return False
        lock = SessionLock(locator, lock_path_for(db, session_id))
        lock.acquire()
        try:
            conn = connect_writer(db, "entry")  # FULL: the removal is durable when it returns
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    removed = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount
                    conn.execute("DELETE FROM entries WHERE session_id = ?", (session_id,))
                    conn.execute("COMMIT")
                except BaseException:
                    _rollback(conn)
                    raise
            finally:
                conn.close()
        finally:
            lock.release()
        return removed > 0

    def list_all_sessions(
        self, sessions_root: str, *, custom: bool = False, with_texts: bool = False
    ) -> list[SessionInfo]:
        """Every session of every project: the database is the sessions root, so every
        session it holds (``scope: "all"``, the last resort of ``--session <id>``); with
        ``custom`` (a flat session directory, as upstream lists it) only that directory's."""
        if custom:
            return self.list_sessions(sessions_root, with_texts=with_texts)
        with self._reading() as conn:
            if conn is None:
                return []
            dirs = [d for (d,) in conn.execute("SELECT DISTINCT dir FROM sessions WHERE dir IS NOT NULL")]
        infos = [info for directory in sorted(dirs) for info in self.list_sessions(directory, with_texts=with_texts)]
        return sorted(infos, key=lambda info: info.modified, reverse=True)

    def export_lines(self, session_id: str) -> bytes | None:
        """The session as the JSONL file the JSONL store would hold (header and lines)."""
        with self._reading() as conn:
            if conn is None:
                return None
            conn.execute("BEGIN")
            try:
                row = conn.execute("SELECT header FROM sessions WHERE id = ?", (session_id,)).fetchone()
                if row is None:
                    return None
                lines = [
                    line
                    for (line,) in conn.execute(
                        "SELECT line FROM entries WHERE session_id = ? ORDER BY seq", (session_id,)
                    )
                ]
            finally:
                _rollback(conn)
        return "".join((row[0], *lines)).encode("utf-8")


def integrity_check(db_path: str) -> str:
    """``PRAGMA integrity_check``'s first line (``ok`` for a sound database)."""
    conn = sqlite3.connect(_uri(database_path(db_path), "ro"), uri=True)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


__all__ = [
    "APPLICATION_ID",
    "LOCATOR_PREFIX",
    "SCHEMA_VERSION",
    "SessionDatabaseError",
    "SqliteBackend",
    "SqliteSessionStore",
    "StoredSession",
    "immediate_transaction",
    "import_session",
    "integrity_check",
    "is_locator",
    "lock_path_for",
    "make_locator",
    "parse_locator",
    "read_stored_session",
    "stored_session_ids",
]
