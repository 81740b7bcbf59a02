"""The PostgreSQL session backend: the sessions of a fleet of pi processes, on many machines,
in one database (psycopg 3, the ``pi-rpc[postgres]`` extra, imported only when this store is
used). Each entry is kept as the exact JSON line the JSONL backend would write.

Locator: ``postgres://<host>[:<port>]/<dbname>#<session id>`` (``postgres_locator.py``): the
server and database, never the user or password. Credentials come from the configured
conninfo (``--session-db`` / ``sessionDatabase``) or libpq's own sources (``PGPASSWORD``,
``PGSERVICE``, ``~/.pgpass``); a locator naming another server connects with libpq's defaults.

Layout, in the schema ``pi`` (created by pi; ``pi.meta`` holds the schema version, raised one
migration at a time under a transaction-level advisory lock, so two processes starting on an
empty database migrate once; a version newer than this pi knows is refused, never written):

- ``pi.sessions``: one row per session, the header line, the session directory it was created
  in and the listing summary (as the SQLite store keeps it: ``info_scan``'s per-entry rules,
  so a listing equals the JSONL listing of the same session), ``next_seq``;
- ``pi.entries``: ``(session_id, seq)`` -> the entry's line, with id, parent id, type and
  timestamp as columns;
- ``pi.texts``: every user/assistant text, casefolded by Python (``sqlite_search.fold``), with
  a ``pg_trgm`` GIN index (created by pi when the extension can be) for the text query;
- ``pi.holders``: who holds each session's writer lock (host, pid, backend pid, since).

One writer per session across hosts: ``pg_try_advisory_lock`` on the store's own connection,
taken at the first read or write and held while the session is open; the database drops it
when that connection ends (a crashed or killed host releases its sessions). A refused writer is
told the holder's host and pid (``pi.holders``). If the connection is lost the lock is gone with
it: it is taken again on reconnect before anything is written, and refused if another process
took the session meanwhile.

Every write is one transaction committed before ``append`` returns (before the event that
reports the entry is emitted). A lost connection or a refusing server is a write fault of the
shared ``backlog.WriteBacklog`` (held in order, ``session_write_error``, written by a later
retry). A retry after a fault is idempotent: a batch whose COMMIT reached the server but whose
answer was lost is recognised by its position and entry ids, never written twice.
"""

from __future__ import annotations

import errno
import io
import os
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

import psycopg
from psycopg import sql as _sql

from pi_rpc.log import logger
from pi_rpc.session.backlog import WriteBacklog
from pi_rpc.session.entries import Entry, SessionHeader, SessionLine, header_of
from pi_rpc.session.errors import SessionError, SessionInvalidError, SessionLockedError, SessionReadOnlyError
from pi_rpc.session.info_scan import ScannedSession, absorb_entry, scan_session
from pi_rpc.session.jsonfmt import dumps_line
from pi_rpc.session.jsonl_store import read_and_index
from pi_rpc.session.postgres_locator import (
    Target,
    advisory_key,
    make_locator,
    parse_locator,
    redact,
)
from pi_rpc.session.sqlite_search import entry_text, fold
from pi_rpc.session.sqlite_store import StoredSession  # (the export's shape, shared)
from pi_rpc.session.store import FsyncMode
from pi_rpc.session.store_rows import (
    SESSION_ROW_COLUMNS,
    SUMMARY_COLUMNS,
    entry_line,
    listing_info,
    normdir,
    now_ms,
    session_row_values,
    summary_values,
    text_or_none,
)

if TYPE_CHECKING:
    from pi_rpc.session.index import EntryIndex
    from pi_rpc.session.listing import SessionInfo
    from pi_rpc.session.loader import LoadedFile

SCHEMA = "pi"
SCHEMA_VERSION = 1
APPLICATION = "pi_rpc sessions"
# Seconds: how long a connection attempt may take (libpq's own minimum is 2).
CONNECT_TIMEOUT_S = 3
# Server-side bound on one statement (a write never waits long on a lock or a stuck server).
STATEMENT_TIMEOUT_MS = 10_000
# Seconds a deferred write may take before the event that follows it goes out anyway (with a
# session_write_error first); and how long closing waits for one in flight.
SETTLE_TIMEOUT_S = 5.0
CLOSE_WAIT_S = 15.0
# More matching texts than this: the needle is common, walking the sessions is faster.
CANDIDATE_CAP = 5000
# Connections of closed sessions kept per database for the next ones.
IDLE_CONNECTIONS = 8
# Key of the transaction-level advisory lock that serialises migrations.
_MIGRATION_LOCK = 0x50695250

_MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            f"""CREATE TABLE {SCHEMA}.sessions (
                id TEXT PRIMARY KEY,
                header TEXT NOT NULL,
                dir TEXT,
                cwd TEXT NOT NULL,
                created_at TEXT,
                created_ms DOUBLE PRECISION,
                parent_session TEXT,
                name TEXT,
                name_folded TEXT,
                message_count INTEGER NOT NULL,
                first_message TEXT NOT NULL,
                last_activity DOUBLE PRECISION,
                modified DOUBLE PRECISION NOT NULL,
                written_at BIGINT NOT NULL,
                next_seq INTEGER NOT NULL
            )""",
            f"""CREATE TABLE {SCHEMA}.entries (
                session_id TEXT NOT NULL REFERENCES {SCHEMA}.sessions(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                id TEXT,
                parent_id TEXT,
                type TEXT,
                timestamp TEXT,
                line TEXT NOT NULL,
                PRIMARY KEY (session_id, seq)
            )""",
            f"""CREATE TABLE {SCHEMA}.texts (
                session_id TEXT NOT NULL REFERENCES {SCHEMA}.sessions(id) ON DELETE CASCADE,
                folded TEXT NOT NULL
            )""",
            f"CREATE INDEX texts_by_session ON {SCHEMA}.texts(session_id)",
            f"""CREATE TABLE {SCHEMA}.holders (
                session_id TEXT PRIMARY KEY,
                host TEXT NOT NULL,
                pid INTEGER NOT NULL,
                backend_pid INTEGER NOT NULL,
                since TIMESTAMPTZ NOT NULL DEFAULT now()
            )""",
            # Listings are newest first with the JSONL listing's tie order; the indexes hold the
            # whole order, so a page of 50 is read off an index without sorting.
            f"CREATE INDEX sessions_by_dir_modified ON {SCHEMA}.sessions(dir, modified DESC, created_at DESC, id DESC)",
            f"CREATE INDEX sessions_by_modified ON {SCHEMA}.sessions(modified DESC, created_at DESC, id DESC)",
            f"CREATE INDEX sessions_by_dir_written ON {SCHEMA}.sessions(dir, written_at DESC, id DESC)",
            f"CREATE INDEX sessions_by_parent ON {SCHEMA}.sessions(parent_session)",
        ),
    ),
)

# What a listing row holds (``SqliteBackend._info``'s order).
LISTING_COLUMNS = "s.id, s.cwd, s.created_ms, s.parent_session, s.name, s.message_count, s.first_message, s.modified"
_ORDER = "ORDER BY s.modified DESC, s.created_at DESC, s.id DESC"

# An append in one statement: the entries, their texts and the summary, written only when the
# session holds exactly %(expected)s entries (the row locked first); answers whether it wrote.
_APPEND = f"""
WITH cur AS (
    SELECT next_seq FROM {SCHEMA}.sessions WHERE id = %(sid)s AND next_seq = %(expected)s FOR UPDATE
), ins AS (
    INSERT INTO {SCHEMA}.entries (session_id, seq, id, parent_id, type, timestamp, line)
    SELECT %(sid)s, cur.next_seq + u.n - 1, u.id, u.parent_id, u.type, u.stamp, u.line
    FROM cur, unnest(%(ids)s::text[], %(parents)s::text[], %(types)s::text[], %(stamps)s::text[],
                     %(lines)s::text[]) WITH ORDINALITY AS u(id, parent_id, type, stamp, line, n)
    RETURNING 1
), txt AS (
    INSERT INTO {SCHEMA}.texts (session_id, folded)
    SELECT %(sid)s, t FROM cur, unnest(%(texts)s::text[]) AS t
    RETURNING 1
), upd AS (
    UPDATE {SCHEMA}.sessions s SET name = %(name)s, message_count = %(message_count)s,
        first_message = %(first_message)s, last_activity = %(last_activity)s, modified = %(modified)s,
        written_at = %(written_at)s, name_folded = %(name_folded)s, next_seq = cur.next_seq + %(count)s
    FROM cur WHERE s.id = %(sid)s
    RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM upd), (SELECT count(*) FROM ins), (SELECT count(*) FROM txt)
"""

# One stored entry: (id, parent id, type, timestamp, line, the text a search reads or None).
Row = tuple[object, object, object, object, str, str | None]


class SessionDatabaseError(SessionError):
    """A database pi cannot use: a newer schema, or one that is not pi's."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"Session database {where}: {reason}")
        self.where = where


class SessionHeldError(SessionLockedError):
    """Another pi process (maybe on another host) holds the session's writer lock."""

    def __init__(self, locator: str, pid: int | None, host: str | None) -> None:
        super().__init__(locator, pid)
        self.host = host
        holder = f"pid {pid}" if pid is not None else "an unknown pid"
        if host:
            holder += f" on {host}"
        self.args = (f"Session file is in use by another pi process ({holder}): {locator}",)


def _describe(exc: BaseException, target: Target | None = None) -> str:
    """A driver error's text, first line, SQLSTATE when known; any password removed."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    state = getattr(exc, "sqlstate", None)
    if state:
        text = f"{text} (SQLSTATE {state})"
    return redact(text, target)


# ---------------------------------------------------------------------- connections


def connect(target: Target, *, application: str = "pi") -> psycopg.Connection[object]:
    """An autocommit connection with short timeouts (a dead server is a fault at once)."""
    conn = psycopg.connect(
        target.conninfo,
        autocommit=True,
        connect_timeout=CONNECT_TIMEOUT_S,
        application_name=application,
        keepalives=1,
        keepalives_idle=10,
        keepalives_interval=3,
        keepalives_count=3,
        tcp_user_timeout=15_000,
        # The server's side of the keepalives too: a holder whose host vanished (no FIN ever
        # comes) loses its connection, and so its session locks, within about 20 s.
        options=(
            f"-c statement_timeout={STATEMENT_TIMEOUT_MS} -c lock_timeout={STATEMENT_TIMEOUT_MS}"
            " -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=3 -c tcp_keepalives_count=3"
        ),
    )
    return conn


def schema_version(conn: psycopg.Connection[Any]) -> int:
    """0 when pi's schema is not there yet."""
    found = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"{SCHEMA}.meta",)).fetchone()
    if not found or not found[0]:
        return 0
    row = conn.execute(f"SELECT application, version FROM {SCHEMA}.meta").fetchone()
    if row is None:
        return 0
    if row[0] != APPLICATION:
        raise SessionDatabaseError(SCHEMA, "the schema 'pi' is not a pi session store")
    return int(row[1])


def _check_version(version: int, where: str) -> None:
    if version > SCHEMA_VERSION:
        raise SessionDatabaseError(
            where, f"written by a newer pi (schema {version}, this one reads {SCHEMA_VERSION}); upgrade pi"
        )


def migrate(conn: psycopg.Connection[Any], where: str) -> list[str]:
    """Bring pi's schema to ``SCHEMA_VERSION`` (each step one transaction, under a lock that
    serialises concurrent starters); notes for what could not be set up (no ``pg_trgm``)."""
    notes: list[str] = []
    version = schema_version(conn)
    _check_version(version, where)
    if version >= SCHEMA_VERSION:
        return notes
    for target_version, statements in _MIGRATIONS:
        if version >= target_version:
            continue
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            version = schema_version(conn)  # another process may have migrated meanwhile
            _check_version(version, where)
            if version >= target_version:
                continue
            if version == 0:
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
                conn.execute(f"CREATE TABLE {SCHEMA}.meta (application TEXT NOT NULL, version INTEGER NOT NULL)")
                conn.execute(f"INSERT INTO {SCHEMA}.meta VALUES (%s, 0)", (APPLICATION,))
            for statement in statements:
                conn.execute(statement)
            if target_version == 1:
                notes.extend(_create_trigram_indexes(conn))
            conn.execute(f"UPDATE {SCHEMA}.meta SET version = %s", (target_version,))
            version = target_version
    return notes


def _create_trigram_indexes(conn: psycopg.Connection[Any]) -> list[str]:
    """The ``pg_trgm`` GIN indexes of the text query (a savepoint: a role that may not create
    the extension still gets a working, unindexed search)."""
    try:
        with conn.transaction():
            # Into pi's own schema unless a DBA installed it already (PostgreSQL 15 lets only
            # the database owner create objects in ``public``).
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA {SCHEMA}")
            row = conn.execute(
                "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
                " WHERE e.extname = 'pg_trgm'"
            ).fetchone()
            ops = _sql.SQL("{}.gin_trgm_ops").format(_sql.Identifier(row[0] if row else "public"))
            conn.execute(
                _sql.SQL("CREATE INDEX texts_trgm ON {}.texts USING gin (folded {})").format(
                    _sql.Identifier(SCHEMA), ops
                )
            )
            conn.execute(
                _sql.SQL(
                    "CREATE INDEX sessions_named_trgm ON {}.sessions USING gin (name_folded {})"
                    " WHERE name_folded IS NOT NULL"
                ).format(_sql.Identifier(SCHEMA), ops)
            )
    except psycopg.Error as exc:
        message = f"pg_trgm not available ({_describe(exc)}): text queries scan without an index"
        logger().warning(f"pi: session database: {message}")
        return [message]
    return []


def _rows_of(conn: psycopg.Connection[Any], session_id: str) -> tuple[tuple[Any, ...] | None, list[str]]:
    """The sessions row (header, message count, first message, name, last activity, dir,
    next seq) and the lines, in one statement (one snapshot, one round trip)."""
    row = conn.execute(
        f"SELECT header, message_count, first_message, name, last_activity, dir, next_seq,"
        f" ARRAY(SELECT line FROM {SCHEMA}.entries e WHERE e.session_id = s.id ORDER BY seq)"
        f" FROM {SCHEMA}.sessions s WHERE id = %s",
        (session_id,),
    ).fetchone()
    if row is None:
        return None, []
    return tuple(row[:7]), list(row[7])


# ---------------------------------------------------------------------- rows and summaries


def _row_of(entry: SessionLine, line: str | None = None) -> Row:
    return (
        entry.get("id"),
        entry.get("parentId"),
        entry.get("type"),
        entry.get("timestamp"),
        entry_line(entry) if line is None else line,
        entry_text(entry),
    )


def _id_text(value: object) -> str | None:
    """An entry's id as a column holds it (a hostile non-string id is stored as its JSON)."""
    if value is None or isinstance(value, str):
        return value
    return dumps_line(value).decode("utf-8").rstrip("\n")


def insert_session_row(
    conn: psycopg.Connection[object],
    session_id: str,
    header_line: str,
    session_dir: str | None,
    summary: ScannedSession,
    *,
    written_at: int,
    next_seq: int,
) -> None:
    conn.execute(
        f"INSERT INTO {SCHEMA}.sessions ({', '.join(SESSION_ROW_COLUMNS)})"
        f" VALUES ({', '.join(['%s'] * len(SESSION_ROW_COLUMNS))})",
        session_row_values(session_id, header_line, session_dir, summary, written_at, next_seq),
    )


def insert_rows(conn: psycopg.Connection[object], session_id: str, first_seq: int, rows: Sequence[Row]) -> None:
    """Entries at ``first_seq`` on (COPY: one round trip per batch) and their texts."""
    with conn.cursor() as cur:
        with cur.copy(
            f"COPY {SCHEMA}.entries (session_id, seq, id, parent_id, type, timestamp, line) FROM STDIN"
        ) as copy:
            for n, row in enumerate(rows):
                copy.write_row(
                    (
                        session_id,
                        first_seq + n,
                        _id_text(row[0]),
                        _id_text(row[1]),
                        text_or_none(row[2]),
                        text_or_none(row[3]),
                        row[4],
                    )
                )
        texts = [fold(row[5]) for row in rows if row[5] is not None]
        if texts:
            with cur.copy(f"COPY {SCHEMA}.texts (session_id, folded) FROM STDIN") as copy:
                for folded in texts:
                    copy.write_row((session_id, folded))


def import_session(
    conn: psycopg.Connection[object],
    header: SessionHeader,
    header_line: str,
    entries: Sequence[tuple[SessionLine, str]],
    *,
    session_dir: str | None,
    written_at: int,
) -> bool:
    """Store a session read from a file, each entry as its own line (``pi sessions import``),
    in its own transaction; False when a session of that id is stored already."""
    summary = ScannedSession(header)
    rows: list[Row] = []
    for entry, line in entries:
        absorb_entry(summary, entry, False)
        rows.append(_row_of(entry, line))
    session_id = str(header["id"])
    try:
        with conn.transaction():
            insert_session_row(
                conn, session_id, header_line, session_dir, summary, written_at=written_at, next_seq=len(rows)
            )
            insert_rows(conn, session_id, 0, rows)
    except psycopg.errors.UniqueViolation:
        return False
    return True


def stored_session_ids(conn: psycopg.Connection[Any]) -> list[str]:
    return [session_id for (session_id,) in conn.execute(f"SELECT id FROM {SCHEMA}.sessions ORDER BY id")]


def read_stored_session(conn: psycopg.Connection[Any], session_id: str) -> StoredSession | None:
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        row = conn.execute(
            f"SELECT header, cwd, created_at, written_at FROM {SCHEMA}.sessions WHERE id = %s", (session_id,)
        ).fetchone()
        if row is None:
            return None
        lines = [
            line
            for (line,) in conn.execute(
                f"SELECT line FROM {SCHEMA}.entries WHERE session_id = %s ORDER BY seq", (session_id,)
            )
        ]
    header, cwd, created_at, written_at = row
    return StoredSession(session_id, cwd, created_at, int(written_at), "".join((header, *lines)).encode("utf-8"))


# ---------------------------------------------------------------------- the writer lock


def _holder(conn: psycopg.Connection[Any], session_id: str) -> tuple[int | None, str | None]:
    """``(pid, host)`` of the process holding the session (as it recorded itself)."""
    try:
        row = conn.execute(f"SELECT pid, host FROM {SCHEMA}.holders WHERE session_id = %s", (session_id,)).fetchone()
    except psycopg.Error:
        return None, None
    return (int(row[0]), str(row[1])) if row else (None, None)


def try_lock(conn: psycopg.Connection[Any], locator: str, session_id: str) -> None:
    """Take the session's writer lock on ``conn`` (held until it is released or the
    connection ends) and record this process as its holder, in one round trip;
    ``SessionHeldError`` names the holder when another connection has it."""
    got = conn.execute(
        f"WITH l AS (SELECT pg_try_advisory_lock(%(key)s) AS got), h AS ("
        f" INSERT INTO {SCHEMA}.holders (session_id, host, pid, backend_pid)"
        " SELECT %(sid)s, %(host)s, %(pid)s, pg_backend_pid() FROM l WHERE l.got"
        " ON CONFLICT (session_id) DO UPDATE SET host = excluded.host, pid = excluded.pid,"
        " backend_pid = excluded.backend_pid, since = now() RETURNING 1)"
        " SELECT l.got, (SELECT count(*) FROM h) FROM l",
        {"key": advisory_key(session_id), "sid": session_id, "host": socket.gethostname(), "pid": os.getpid()},
    ).fetchone()
    if not got or not got[0]:
        pid, host = _holder(conn, session_id)
        raise SessionHeldError(locator, pid, host)


def unlock(conn: psycopg.Connection[Any], session_id: str) -> None:
    conn.execute(
        f"WITH d AS (DELETE FROM {SCHEMA}.holders WHERE session_id = %(sid)s AND backend_pid = pg_backend_pid()"
        " RETURNING 1) SELECT pg_advisory_unlock(%(key)s), (SELECT count(*) FROM d)",
        {"sid": session_id, "key": advisory_key(session_id)},
    )


class _Channel:
    """The connection that holds one session's writer lock in this process and writes its
    entries. Two stores of one process on one session share it (as the file lock is shared
    within a process): the lock is taken once and released when the last store lets go."""

    def __init__(self, backend: PostgresBackend, session_id: str, locator: str) -> None:
        self.backend = backend
        self.session_id = session_id
        self.locator = locator
        self.conn: psycopg.Connection[object] | None = None
        self.locked = False
        self.refs = 0
        self._executor: ThreadPoolExecutor | None = None

    def submit(self, work: Callable[[], object]) -> Future[object]:
        """Run ``work`` on the session's writer thread (one per session: its writes stay in
        order and never share the connection with another thread)."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="pi-session-writer")
        return self._executor.submit(work)

    def connection(self, notes: list[str]) -> psycopg.Connection[object]:
        conn = self.conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        self.drop()
        self.conn = self.backend.checkout(notes)
        return self.conn

    def locked_connection(self, notes: list[str]) -> psycopg.Connection[object]:
        conn = self.connection(notes)
        if not self.locked:
            try:
                try_lock(conn, self.locator, self.session_id)
            except (psycopg.OperationalError, psycopg.InterfaceError):
                # An idle connection the server dropped meanwhile (a restart): once more, anew.
                self.drop()
                conn = self.conn = self.backend.checkout(notes, fresh=True)
                try_lock(conn, self.locator, self.session_id)
            self.locked = True
        return conn

    def drop(self) -> None:
        """Close the connection (the server releases the lock it held)."""
        conn, self.conn = self.conn, None
        self.locked = False
        if conn is not None:
            try:
                conn.close()
            except psycopg.Error:
                pass

    def release(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        conn, self.conn = self.conn, None
        locked, self.locked = self.locked, False
        if conn is None:
            return
        if locked and not conn.closed and not conn.broken:
            try:
                unlock(conn, self.session_id)
            except psycopg.Error:
                conn.close()  # closing the connection releases the lock anyway
                return
        self.backend.checkin(conn)


_channels_lock = threading.Lock()
_channels: dict[tuple[tuple[str, int, str], str], _Channel] = {}


def _channel(backend: PostgresBackend, session_id: str, locator: str) -> _Channel:
    with _channels_lock:
        key = (backend.target.key, session_id)
        channel = _channels.get(key)
        if channel is None:
            channel = _channels[key] = _Channel(backend, session_id, locator)
        channel.refs += 1
        return channel


def _let_go(channel: _Channel) -> None:
    with _channels_lock:
        channel.refs -= 1
        if channel.refs > 0:
            return
        _channels.pop((channel.backend.target.key, channel.session_id), None)
    channel.release()


# ---------------------------------------------------------------------- the store


class PostgresSessionStore(WriteBacklog[Row]):
    """One session in a PostgreSQL session database (a ``SessionStore``): its connection (which
    holds the writer lock) and what a write fault holds back."""

    # OperationalError: the server gone, refused, shut down, out of disk; InterfaceError: a
    # closed connection; OSError: the network. A refusing role (permissions) is a fault too.
    _FAULTS: ClassVar[tuple[type[Exception], ...]] = (
        OSError,
        psycopg.OperationalError,
        psycopg.InterfaceError,
        psycopg.errors.InsufficientPrivilege,
        psycopg.errors.ReadOnlySqlTransaction,
        SessionLockedError,
    )

    def __init__(
        self,
        backend: PostgresBackend,
        session_id: str,
        *,
        read_only: bool = False,
        diagnostics: list[str] | None = None,
        session_dir: str | None = None,
    ) -> None:
        super().__init__(read_only=read_only)
        self._backend = backend
        self._session_id = session_id
        self._locator = make_locator(backend.target, session_id)
        self._session_dir = os.path.normpath(os.path.abspath(session_dir)) if session_dir else None
        self.diagnostics: list[str] = diagnostics if diagnostics is not None else []
        self._channel: _Channel | None = None
        self._summary: ScannedSession | None = None
        # Entries known to be stored (the next seq): a retry after a lost answer compares it
        # with the database to tell a committed batch from one that never arrived.
        self._stored_seq = 0
        # Deferred writes (``defer_writes``): the one in flight (future, kind, entry count).
        self._deferred = False
        self._job: tuple[Future[Any], str, int] | None = None
        self._written_in_fault = 0
        self.write_generation = 0  # deferred writes started so far

    @property
    def locator(self) -> str:
        return self._locator

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def directory(self) -> str | None:
        return self._session_dir

    # ------------------------------------------------------------------ connection and lock

    def _channel_held(self) -> _Channel:
        if self._channel is None:
            self._channel = _channel(self._backend, self._session_id, self._locator)
        return self._channel

    def _ensure_lock(self) -> psycopg.Connection[Any]:
        return self._channel_held().locked_connection(self.diagnostics)

    def _drop_connection(self) -> None:
        if self._channel is not None:
            self._channel.drop()

    @contextmanager
    def _write_transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """One transaction under the session's lock; a fault drops the connection (the next
        attempt reconnects and takes the lock again)."""
        if self._read_only:
            raise SessionReadOnlyError(self._locator)
        try:
            conn = self._ensure_lock()
            with conn.transaction():
                yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError, OSError):
            self._drop_connection()
            raise

    # ------------------------------------------------------------------ open

    def load(self) -> tuple[LoadedFile | None, EntryIndex | None]:
        try:
            if self._read_only:
                with self._backend.reading() as conn:
                    row, lines = _rows_of(conn, self._session_id)
            else:
                row, lines = _rows_of(self._ensure_lock(), self._session_id)
            if row is None:
                self.release()
                return None, None
            header_line, message_count, first_message, name, last_activity, directory, next_seq = row
            self._session_dir = directory or self._session_dir
            data = "".join((header_line, *lines)).encode("utf-8")
            loaded, index = read_and_index(io.BytesIO(data))
            if not loaded.entries or loaded.entries[0].get("type") != "session":
                raise SessionInvalidError(self._locator)
        except psycopg.Error as exc:
            self.release()
            raise SessionDatabaseError(self._backend.target.display, _describe(exc, self._backend.target)) from None
        except BaseException:
            self.release()
            raise
        self.diagnostics.extend(loaded.diagnostics)
        self._summary = ScannedSession(
            loaded.entries[0],
            message_count=message_count,
            first_message=first_message,
            name=name,
            last_activity=last_activity,
        )
        self._stored_seq = int(next_seq)
        self._flushed = True
        return loaded, index

    # ------------------------------------------------------------------ writing

    def _prepare(self, entry: SessionLine) -> Row:
        if self._summary is not None:
            absorb_entry(self._summary, entry, False)
        return _row_of(entry)

    def _write_new(self, entries: Sequence[SessionLine]) -> None:
        summary, stored = self._store_new(entries)
        self._summary = summary
        self._stored_seq = stored
        self._flushed = True

    def _write_items(self, items: list[Row]) -> None:
        if not self._flushed or self._summary is None:
            raise FileNotFoundError(errno.ENOENT, "session not stored yet", self._locator)
        self._stored_seq = self._store_items(items, summary_values(self._summary, now_ms()), self._stored_seq)

    # The two writes themselves: they read no state a later accept changes (a deferred write
    # runs them on the writer thread while the loop goes on accepting entries).

    def _store_new(self, entries: Sequence[SessionLine]) -> tuple[ScannedSession, int]:
        """Insert the session row and its first entries in one transaction; ``(summary,
        stored count)``. The same session already stored with this very header and count is
        this store's own earlier commit whose answer was lost; anything else is refused as
        ``FileExistsError`` (the JSONL store's exclusive create)."""
        header, rows, summary = _rows_and_summary(entries)
        header_line = entry_line(header)
        written_at = now_ms()
        with self._write_transaction() as conn:
            found = conn.execute(
                f"SELECT header, next_seq FROM {SCHEMA}.sessions WHERE id = %s FOR UPDATE", (self._session_id,)
            ).fetchone()
            if found is not None:
                if found[0] != header_line or int(found[1]) != len(rows):
                    raise FileExistsError(errno.EEXIST, "session already stored", self._locator)
            else:
                insert_session_row(
                    conn,
                    self._session_id,
                    header_line,
                    self._session_dir,
                    summary,
                    written_at=written_at,
                    next_seq=len(rows),
                )
                insert_rows(conn, self._session_id, 0, rows)
        return summary, len(rows)

    def _store_items(self, items: list[Row], summary_values: tuple[object, ...], stored_seq: int) -> int:
        """Append ``items`` after the ``stored_seq`` entries this store knows are stored; the
        new stored count. Entries of ``items`` found stored already (an earlier attempt whose
        COMMIT reached the server but whose answer was lost) are not written again.

        The usual case is one statement in one round trip (its own transaction: durable when
        it returns), which writes only if the session holds exactly ``stored_seq`` entries;
        otherwise the careful transaction below decides."""
        if self._read_only:
            raise SessionReadOnlyError(self._locator)
        try:
            conn = self._ensure_lock()
            found = conn.execute(
                _APPEND,
                {
                    "sid": self._session_id,
                    "expected": stored_seq,
                    "count": len(items),
                    "ids": [_id_text(row[0]) for row in items],
                    "parents": [_id_text(row[1]) for row in items],
                    "types": [text_or_none(row[2]) for row in items],
                    "stamps": [text_or_none(row[3]) for row in items],
                    "lines": [row[4] for row in items],
                    "texts": [fold(row[5]) for row in items if row[5] is not None],
                    **dict(zip(SUMMARY_COLUMNS, summary_values, strict=True)),
                },
            ).fetchone()
        except (psycopg.OperationalError, psycopg.InterfaceError, OSError):
            self._drop_connection()
            raise
        if found is not None and found[0]:
            return stored_seq + len(items)
        return self._store_items_carefully(items, summary_values, stored_seq)

    def _store_items_carefully(self, items: list[Row], summary_values: tuple[object, ...], stored_seq: int) -> int:
        with self._write_transaction() as conn:
            found = conn.execute(
                f"SELECT next_seq FROM {SCHEMA}.sessions WHERE id = %s FOR UPDATE", (self._session_id,)
            ).fetchone()
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "session no longer stored", self._locator)
            next_seq = int(found[0])
            done = next_seq - stored_seq
            if done and not self._committed_already(conn, items, done, stored_seq):
                # Another store of this process (sharing the lock) wrote meanwhile: append after it.
                done = 0
            todo = items[done:]
            if todo:
                insert_rows(conn, self._session_id, next_seq, todo)
            assignments = ", ".join(f"{column} = %s" for column in SUMMARY_COLUMNS)
            conn.execute(
                f"UPDATE {SCHEMA}.sessions SET {assignments}, next_seq = %s WHERE id = %s",
                (*summary_values, next_seq + len(todo), self._session_id),
            )
        return next_seq + len(todo)

    # ------------------------------------------------------------------ deferred writes (off the event loop)

    def defer_writes(self) -> None:
        """From now on ``create``/``append`` hand their write to the session's writer thread
        and return at once; ``settle`` (awaited before the next event or response reaches a
        client) waits for the commit and reports a fault. Used by a running runtime, whose
        event loop must never wait on the database; everything else writes synchronously."""
        self._deferred = True

    @property
    def writes_in_flight(self) -> bool:
        """A deferred write is running or finished without its outcome taken in yet."""
        return self._job is not None

    def _kick(self) -> None:
        """Start writing the whole backlog on the writer thread (when nothing is in flight)."""
        if self._job is not None or self._read_only:
            return
        self.write_generation += 1
        if self._unwritten_new is not None:
            batch_new = list(self._unwritten_new)
            future = self._channel_held().submit(lambda: self._store_new(batch_new))
            self._job = (future, "new", len(batch_new))
        elif self._unwritten and self._summary is not None and self._flushed:
            items = list(self._unwritten)
            values = summary_values(self._summary, now_ms())  # of exactly what is accepted now
            stored = self._stored_seq
            future = self._channel_held().submit(lambda: self._store_items(items, values, stored))
            self._job = (future, "items", len(items))

    def _finish(self) -> bool:
        """Take in the finished deferred write (loop thread): the entries it stored leave the
        backlog; a fault is recorded and reported. True when it succeeded."""
        job, self._job = self._job, None
        if job is None:
            return True
        future, kind, count = job
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - whatever failed, the entries stay held
            error = self._fault_message(exc)
            if not isinstance(exc, self._FAULTS):
                logger().error(f"pi: session {self._locator}: write failed: {exc!r}")
            changed = error != self.write_error
            self.write_error = error
            if changed:
                self._notify_write_state(error, self.pending_count(), 0)
            return False
        if kind == "new":
            summary, stored = result
            rest = (self._unwritten_new or [])[count:]
            self._unwritten_new = None
            self._summary, self._stored_seq, self._flushed = summary, stored, True
            self._unwritten.extend(self._prepare(entry) for entry in rest)
            self._written_in_fault += count - 1
        else:
            self._stored_seq = int(result)
            del self._unwritten[:count]
            self._written_in_fault += count
        if self.write_error is not None and self.pending_count() == 0:
            written, self._written_in_fault = self._written_in_fault, 0
            self.write_error = None
            self._notify_write_state(None, 0, written)
        elif self.write_error is None:
            self._written_in_fault = 0
        return True

    async def settle(self, timeout: float = SETTLE_TIMEOUT_S) -> None:
        """Wait (without blocking the loop) until what was accepted is committed, or a fault
        is known. A database that does not answer within ``timeout`` is a fault too (the
        write goes on; its outcome is taken in later, never written twice)."""
        import asyncio

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._job is not None:
            future = self._job[0]
            if not future.done():
                if self.write_error is not None:
                    return  # held already: the retries take its outcome in
                remaining = deadline - loop.time()
                if remaining <= 0:
                    error = f"Could not write session {self._locator}: the database did not answer within {timeout:g} s"
                    self.write_error = error
                    self._notify_write_state(error, self.pending_count(), 0)
                    return
                try:
                    await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), remaining)
                except Exception:  # noqa: BLE001 - the outcome is taken in by _finish
                    pass
                continue
            if not self._finish():
                return
            if self.pending_count():
                self._kick()  # entries accepted while that write ran (or a fault's backlog)

    def _wait_idle(self, timeout: float = CLOSE_WAIT_S) -> None:
        """Block until a deferred write in flight ended and take its outcome in (open,
        rewrite, close: the connection is not shared with the writer thread)."""
        job = self._job
        if job is None:
            return
        try:
            job[0].result(timeout)
        except Exception:  # noqa: BLE001 - _finish reads the outcome
            pass
        if job[0].done():
            self._finish()

    def create(self, header: SessionHeader, entries: Sequence[Entry], *, hold: bool = True) -> bool:
        if not self._deferred or not hold:
            self._wait_idle()
            return super().create(header, entries, hold=hold)
        self._unwritten_new = [header, *entries]
        if self.write_error is None:
            self._kick()
        return self.write_error is None

    def append(self, entries: Iterable[Entry]) -> bool:
        if not self._deferred:
            return super().append(entries)
        if self._unwritten_new is not None:
            # The first write is still in flight: these follow it (taken in by _finish).
            self._unwritten_new.extend(entries)
        else:
            self._unwritten.extend(self._prepare(entry) for entry in entries)
        if self._job is not None and self._job[0].done():
            self._finish()
        if self.write_error is None:
            self._kick()
        return self.write_error is None

    def retry(self) -> bool:
        if not self._deferred:
            return super().retry()
        if self._job is not None:
            if not self._job[0].done():
                return False
            self._finish()
        if self.pending_count() == 0 and self.write_error is None:
            return True
        self._kick()  # its outcome is taken in by the next retry or settle
        return False

    def pending_count(self) -> int:
        if not self._flushed and self._unwritten_new is not None:
            return len(self._unwritten_new) - 1
        return len(self._unwritten)

    def close(self) -> None:
        self._wait_idle()
        self._deferred = False
        super().close()

    def _committed_already(self, conn: psycopg.Connection[Any], items: list[Row], done: int, stored_seq: int) -> bool:
        """Whether the ``done`` entries stored after what this store knew are the first
        ``done`` of ``items`` (an earlier attempt's commit whose answer was lost)."""
        if done < 0 or done > len(items):
            return False
        stored = [
            (entry_id, line)
            for entry_id, line in conn.execute(
                f"SELECT id, line FROM {SCHEMA}.entries WHERE session_id = %s AND seq >= %s ORDER BY seq",
                (self._session_id, stored_seq),
            )
        ]
        return stored == [(_id_text(row[0]), row[4]) for row in items[:done]]

    def rewrite(self, header: SessionHeader, entries: Sequence[Entry]) -> None:
        if self._read_only:
            return
        self._wait_idle()
        header, rows, summary = _rows_and_summary([header, *entries])
        written_at = now_ms()
        with self._write_transaction() as conn:
            conn.execute(f"DELETE FROM {SCHEMA}.sessions WHERE id = %s", (self._session_id,))
            insert_session_row(
                conn,
                self._session_id,
                entry_line(header),
                self._session_dir,
                summary,
                written_at=written_at,
                next_seq=len(rows),
            )
            insert_rows(conn, self._session_id, 0, rows)
        self._summary = summary
        self._stored_seq = len(rows)
        self._flushed = True

    def _fault_message(self, exc: Exception) -> str:
        if isinstance(exc, SessionLockedError):
            reason = f"the session was taken over: {exc}"
        elif isinstance(exc, OSError) and not isinstance(exc, psycopg.Error):
            reason = exc.strerror or str(exc)
        else:
            reason = _describe(exc, self._backend.target)
        return f"Could not write session {self._locator}: {reason}"

    def sync(self) -> None:
        """Nothing to do: a transaction is durable when its COMMIT returns (the server's
        ``synchronous_commit`` decides how durable)."""

    def release(self) -> None:
        self._wait_idle()
        channel, self._channel = self._channel, None
        if channel is not None:
            _let_go(channel)

    def holder(self) -> tuple[int | None, str | None]:
        return self._backend.holder(self._session_id)


def _rows_and_summary(entries: Sequence[SessionLine]) -> tuple[SessionHeader, list[Row], ScannedSession]:
    header = header_of(entries[0])
    summary = ScannedSession(header)
    rows: list[Row] = []
    for entry in entries[1:]:
        absorb_entry(summary, entry, False)
        rows.append(_row_of(entry))
    return header, rows, summary


# ---------------------------------------------------------------------- the backend


class PostgresBackend:
    """One PostgreSQL database as a ``SessionBackend`` (shared by the whole process per
    database; see ``backends.postgres_backend``). Reads use one connection of their own."""

    creates_directories = False

    def __init__(self, target: Target) -> None:
        self.target = target
        self._dirs: dict[str, str] = {}
        self._read_conn: psycopg.Connection[object] | None = None
        self._read_lock = threading.Lock()
        self._schema_ok = False
        self._notes: list[str] = []
        self._idle: list[psycopg.Connection[object]] = []
        self._idle_lock = threading.Lock()

    @property
    def database(self) -> str:
        return self.target.display

    # ------------------------------------------------------------------ connections

    def checkout(self, notes: list[str], *, fresh: bool = False) -> psycopg.Connection[object]:
        """A connection for a session's writes: an idle one of an earlier session (no new
        connection and authentication per open), else a new one with the schema checked."""
        if not fresh:
            with self._idle_lock:
                while self._idle:
                    conn = self._idle.pop()
                    if not conn.closed and not conn.broken:
                        return conn
        conn = connect(self.target)
        try:
            notes.extend(self.ensure_schema(conn))
        except BaseException:
            conn.close()
            raise
        return conn

    def checkin(self, conn: psycopg.Connection[object]) -> None:
        """A session's connection, its lock released: kept for the next session (a few)."""
        if not conn.closed and not conn.broken and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            with self._idle_lock:
                if len(self._idle) < IDLE_CONNECTIONS:
                    self._idle.append(conn)
                    return
        conn.close()

    # ------------------------------------------------------------------ schema and reading

    def ensure_schema(self, conn: psycopg.Connection[object]) -> list[str]:
        """Migrate once per process (checked again on every new connection: cheap)."""
        if self._schema_ok:
            version = schema_version(conn)
            _check_version(version, self.target.display)
            if version == SCHEMA_VERSION:
                return []
        notes = migrate(conn, self.target.display)
        self._schema_ok = True
        self._notes = notes
        return notes

    @contextmanager
    def reading(self) -> Iterator[psycopg.Connection[Any]]:
        """The backend's read connection (reconnected when lost), one user at a time."""
        with self._read_lock:
            conn = self._read_conn
            if conn is None or conn.closed or conn.broken:
                if conn is not None:
                    conn.close()
                self._read_conn = None
                conn = connect(self.target, application="pi (read)")
                try:
                    self.ensure_schema(conn)
                except BaseException:
                    conn.close()
                    raise
                self._read_conn = conn
            try:
                yield conn
            except (psycopg.OperationalError, psycopg.InterfaceError):
                self._read_conn = None
                conn.close()
                raise

    def close(self) -> None:
        with self._read_lock:
            if self._read_conn is not None:
                self._read_conn.close()
                self._read_conn = None
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _locator(self, session_id: str) -> str:
        return make_locator(self.target, session_id)

    # ------------------------------------------------------------------ SessionBackend

    def new_locator(self, session_dir: str, timestamp: str, session_id: str) -> str:
        locator = self._locator(session_id)
        self._dirs[locator] = session_dir
        return locator

    def store(self, locator: str, *, fsync: FsyncMode, read_only: bool, diagnostics: list[str]) -> PostgresSessionStore:
        _, session_id = parse_locator(locator)
        return PostgresSessionStore(
            self, session_id, read_only=read_only, diagnostics=diagnostics, session_dir=self._dirs.pop(locator, None)
        )

    def exists(self, locator: str) -> bool:
        _, session_id = parse_locator(locator)
        with self.reading() as conn:
            return conn.execute(f"SELECT 1 FROM {SCHEMA}.sessions WHERE id = %s", (session_id,)).fetchone() is not None

    def holder(self, session_id: str) -> tuple[int | None, str | None]:
        """``(pid, host)`` of the live holder of the session's writer lock, else ``(None, None)``."""
        with self.reading() as conn:
            key = advisory_key(session_id)
            row = conn.execute(
                f"SELECT h.pid, h.host FROM pg_locks l JOIN {SCHEMA}.holders h ON h.backend_pid = l.pid"
                " WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database"
                " WHERE datname = current_database()) AND l.classid = %s AND l.objid = %s AND l.objsubid = 1"
                " AND h.session_id = %s",
                ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF, session_id),
            ).fetchone()
            if row is not None:
                return int(row[0]), str(row[1])
            held = conn.execute(
                "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = %s AND objid = %s"
                " AND objsubid = 1",
                ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF),
            ).fetchone()
        return (-1, None) if held else (None, None)

    def holder_pid(self, locator: str) -> int | None:
        _, session_id = parse_locator(locator)
        try:
            pid, _ = self.holder(session_id)
        except psycopg.Error:
            return None
        return pid

    def _info(self, row: tuple[Any, ...]) -> SessionInfo:
        return listing_info(self._locator(row[0]), row)

    def list_sessions(
        self, session_dir: str, cwd_filter: str | None = None, *, with_texts: bool = False
    ) -> list[SessionInfo]:
        from pi_rpc.session.listing import cwd_matches

        directory = normdir(session_dir)
        with self.reading() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            rows = conn.execute(
                f"SELECT {LISTING_COLUMNS} FROM {SCHEMA}.sessions s WHERE s.dir = %s {_ORDER}", (directory,)
            ).fetchall()
            if cwd_filter is not None:
                rows = [row for row in rows if cwd_matches(row[1], cwd_filter)]
            texts_of = self._texts(conn, [row[0] for row in rows]) if with_texts else {}
        out: list[SessionInfo] = []
        for row in rows:
            info = self._info(row)
            texts = texts_of.get(row[0], ())
            if texts:
                info.all_messages_text = " ".join(texts)
                info.message_texts = texts
            out.append(info)
        return out

    @staticmethod
    def _texts(conn: psycopg.Connection[Any], ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Each session's user/assistant texts as the JSONL listing reads them."""
        if not ids:
            return {}
        headers = dict(conn.execute(f"SELECT id, header FROM {SCHEMA}.sessions WHERE id = ANY(%s)", (ids,)).fetchall())
        parts: dict[str, list[str]] = {session_id: [header] for session_id, header in headers.items()}
        for session_id, line in conn.execute(
            f"SELECT session_id, line FROM {SCHEMA}.entries WHERE session_id = ANY(%s)"
            " AND type IN ('message', 'session_info') ORDER BY session_id, seq",
            (ids,),
        ):
            parts[session_id].append(line)
        out: dict[str, tuple[str, ...]] = {}
        for session_id, lines in parts.items():
            scanned = scan_session("".join(lines).encode("utf-8"), with_texts=True)
            out[session_id] = tuple(scanned.texts) if scanned is not None else ()
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
        """``list_sessions`` with ``query`` and ``limit`` answered by the server: newest first,
        those whose name or a user/assistant text contains ``query`` case-insensitively
        (``SessionInfo.matches``), at most ``limit``; the trigram index finds the candidates."""
        from pi_rpc.session.listing import cwd_matches

        out: list[SessionInfo] = []
        if limit is not None and limit <= 0:
            return out
        directory = None if session_dir is None or every_project else normdir(session_dir)
        where: list[str] = []
        params: list[object] = []
        if directory is not None:
            where.append("s.dir = %s")
            params.append(directory)
        pattern: str | None = None
        if query is not None:
            needle = fold(query)
            pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        page = None if cwd_filter is not None or limit is None else limit
        recheck = query is not None and _needs_recheck(query)
        with self.reading() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            candidates = self._candidates(conn, needle, pattern) if pattern is not None else None
            if candidates is not None:
                # A rare needle: the few sessions the trigram index found, read by id.
                where.append("s.id = ANY(%s)")
                params.append(candidates)
            elif pattern is not None:
                # A common (or too short) needle: the sessions newest first, each tested,
                # until the page is full.
                where.append(
                    f"(s.name_folded LIKE %s OR EXISTS (SELECT 1 FROM {SCHEMA}.texts t"
                    " WHERE t.session_id = s.id AND t.folded LIKE %s))"
                )
                params += [pattern, pattern]
            clause = f" WHERE {' AND '.join(where)}" if where else ""
            statement = f"SELECT {LISTING_COLUMNS} FROM {SCHEMA}.sessions s{clause} {_ORDER}"
            if page is not None:
                statement += f" LIMIT {int(page)}"
            with conn.cursor(name="pi_listing") as cur:
                cur.itersize = 200
                cur.execute(statement, params)
                for row in cur:
                    if cwd_filter is not None and not cwd_matches(row[1], cwd_filter):
                        continue
                    if recheck and query is not None and not self._really_matches(conn, row[0], query):
                        continue
                    out.append(self._info(row))
                    if limit is not None and len(out) >= limit:
                        break
        return out

    @staticmethod
    def _candidates(conn: psycopg.Connection[Any], needle: str, pattern: str) -> list[str] | None:
        """Every session whose name or a text contains ``needle``, from the trigram indexes;
        None when the needle is too short for them (under three characters) or common (more
        than ``CANDIDATE_CAP`` matching texts): then walking the sessions is faster."""
        if len(needle) < 3:
            return None
        found = conn.execute(
            f"SELECT session_id FROM {SCHEMA}.texts WHERE folded LIKE %s LIMIT %s", (pattern, CANDIDATE_CAP + 1)
        ).fetchall()
        if len(found) > CANDIDATE_CAP:
            return None
        ids = {session_id for (session_id,) in found}
        ids.update(
            session_id
            for (session_id,) in conn.execute(f"SELECT id FROM {SCHEMA}.sessions WHERE name_folded LIKE %s", (pattern,))
        )
        return sorted(ids)

    def _really_matches(self, conn: psycopg.Connection[Any], session_id: str, query: str) -> bool:
        texts = self._texts(conn, [session_id]).get(session_id, ())
        needle = query.casefold()
        name = conn.execute(f"SELECT name FROM {SCHEMA}.sessions WHERE id = %s", (session_id,)).fetchone()
        if name is not None and isinstance(name[0], str) and needle in name[0].casefold():
            return True
        return any(needle in text.casefold() for text in texts)

    def find_most_recent(self, session_dir: str, cwd: str | None = None) -> str | None:
        from pi_rpc.session.listing import cwd_matches

        with self.reading() as conn, conn.cursor(name="pi_recent") as cur, conn.transaction():
            cur.execute(
                f"SELECT id, cwd FROM {SCHEMA}.sessions WHERE dir = %s ORDER BY written_at DESC, id DESC",
                (normdir(session_dir),),
            )
            for session_id, session_cwd in cur:
                if cwd is None or cwd_matches(session_cwd, cwd):
                    return self._locator(session_id)
        return None

    def find_by_id(self, session_dir: str, session_id: str, cwd: str | None = None) -> str | None:
        from pi_rpc.session.listing import cwd_matches

        with self.reading() as conn:
            row = conn.execute(
                f"SELECT cwd FROM {SCHEMA}.sessions WHERE id = %s AND dir = %s", (session_id, normdir(session_dir))
            ).fetchone()
        if row is None or (cwd is not None and not cwd_matches(row[0], cwd)):
            return None
        return self._locator(session_id)

    def list_all_sessions(
        self, sessions_root: str, *, custom: bool = False, with_texts: bool = False
    ) -> list[SessionInfo]:
        if custom:
            return self.list_sessions(sessions_root, with_texts=with_texts)
        with self.reading() as conn:
            dirs = [d for (d,) in conn.execute(f"SELECT DISTINCT dir FROM {SCHEMA}.sessions WHERE dir IS NOT NULL")]
        infos = [info for directory in sorted(dirs) for info in self.list_sessions(directory, with_texts=with_texts)]
        return sorted(infos, key=lambda info: info.modified, reverse=True)

    def delete(self, locator: str) -> bool:
        """Remove a session under its writer lock (``SessionHeldError`` when another process
        holds it); False when not stored."""
        _, session_id = parse_locator(locator)
        conn = connect(self.target)
        try:
            self.ensure_schema(conn)
            try_lock(conn, locator, session_id)
            try:
                with conn.transaction():
                    removed = conn.execute(f"DELETE FROM {SCHEMA}.sessions WHERE id = %s", (session_id,)).rowcount
            finally:
                unlock(conn, session_id)
        finally:
            conn.close()
        return removed > 0

    def export_lines(self, session_id: str) -> bytes | None:
        with self.reading() as conn:
            stored = read_stored_session(conn, session_id)
        return stored.data if stored is not None else None


# A forked child must never use (nor close: libpq would end the parent's session) a connection
# it inherited: it forgets them, and makes its own.
_inherited: list[Any] = []


def _forget_connections_after_fork() -> None:
    from pi_rpc.session.backend_registry import postgres_backends

    _inherited.extend(postgres_backends.values())
    _inherited.extend(_channels.values())
    postgres_backends.clear()
    _channels.clear()


os.register_at_fork(after_in_child=_forget_connections_after_fork)


def _needs_recheck(query: str) -> bool:
    return "\ufffd" in query or any("\ud800" <= ch <= "\udfff" for ch in query)


__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "PostgresBackend",
    "PostgresSessionStore",
    "SessionDatabaseError",
    "SessionHeldError",
    "connect",
    "import_session",
    "migrate",
    "read_stored_session",
    "stored_session_ids",
    "try_lock",
    "unlock",
]
