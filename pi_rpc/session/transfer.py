"""Moving sessions between the JSONL files and a session database, losslessly
(``pi sessions import`` / ``pi sessions export``).

Import keeps each entry's line exactly as the file holds it (the database stores lines, and
a file written by pi or by upstream pi holds the lines the JSONL store would write), so a
session exported back is byte-identical to the file it came from. What the JSONL store
would not keep either is dropped and said so: blank and malformed lines, a torn last line; a
missing final newline is added. A v1/v2 file is migrated first, as opening it does, and then
holds the lines the JSONL store writes after migrating.

Export writes each session as ``<root>/<encoded cwd>/<file timestamp>_<id>.jsonl``, where
the JSONL store would put it under its sessions root, with the mtime of its last write.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence

from pi_rpc.session.entries import SessionHeader
from pi_rpc.session.errors import SessionLockedError
from pi_rpc.session.lock import SessionLock
from pi_rpc.session.postgres_locator import looks_like_conninfo
from pi_rpc.session.sqlite_store import (
    connect_reader,
    connect_writer,
    database_path,
    immediate_transaction,
    import_session,
    lock_path_for,
    make_locator,
    read_stored_session,
    stored_session_ids,
)
from pi_rpc.session.transfer_files import (
    Outcome,
    SessionSource,
    TransferError,
    export_one,
    export_path,
    read_source,
    readable_sources,
    session_files,
)

# ---------------------------------------------------------------------- import


def import_sessions(
    db_path: str,
    sources: Sequence[str],
    session_dir_of: Callable[[SessionHeader], str | None],
    report: Callable[[Outcome], None],
) -> int:
    """Import every session file of ``sources`` into the database (created if missing);
    ``session_dir_of(header)`` names the session directory a session is listed under (where
    pi would have kept its file). Each session is reported; returns the number of errors.
    A PostgreSQL URL or conninfo names a database server's (``postgres_transfer``)."""
    if looks_like_conninfo(db_path):
        from pi_rpc.session import postgres_transfer

        return postgres_transfer.import_sessions(db_path, sources, session_dir_of, report)
    db = database_path(db_path)
    errors = 0
    try:
        files = list(session_files(sources))
    except TransferError as exc:
        report(Outcome("error", None, "", str(exc)))
        return 1
    conn = _open_writer(db)
    try:
        for path, source in readable_sources(files, report):
            if source is None:
                errors += 1
                continue
            errors += _import_one(conn, db, source, session_dir_of(source.header), report)
    finally:
        conn.close()
    return errors


def _open_writer(db: str) -> sqlite3.Connection:
    folder = os.path.dirname(db)
    if not os.path.isdir(folder):
        raise TransferError(f"{db}: the folder {folder} does not exist")
    try:
        return connect_writer(db, "none")
    except (sqlite3.Error, OSError) as exc:
        raise TransferError(f"{db}: cannot open the session database: {exc}") from exc


def _import_one(
    conn: sqlite3.Connection,
    db: str,
    source: SessionSource,
    session_dir: str | None,
    report: Callable[[Outcome], None],
) -> int:
    # The session's single-writer lock, as a writer takes it: a pi process that is about to
    # store this very session (its first write is deferred) is not raced.
    lock = SessionLock(make_locator(db, source.session_id), lock_path_for(db, source.session_id))
    try:
        lock.acquire()
    except SessionLockedError as exc:
        report(Outcome("error", source.session_id, source.path, str(exc)))
        return 1
    try:
        with immediate_transaction(conn):
            stored = import_session(
                conn,
                source.header,
                source.header_line,
                source.entries,
                session_dir=session_dir,
                written_at=source.mtime_ms,
            )
    except sqlite3.Error as exc:
        report(Outcome("error", source.session_id, source.path, f"not stored: {exc}"))
        return 1
    finally:
        lock.release()
    if stored:
        report(Outcome("imported", source.session_id, source.path, "; ".join(source.notes)))
    else:
        report(Outcome("skipped", source.session_id, source.path, f"already in {db}"))
    return 0


# ---------------------------------------------------------------------- export


def export_sessions(db_path: str, out_dir: str, session_ids: Sequence[str], report: Callable[[Outcome], None]) -> int:
    """Write the sessions ``session_ids`` (none given: every session) of the database as
    JSONL files under ``out_dir``. A file that exists with the same bytes is skipped; one
    with other bytes is never overwritten (an error). Returns the number of errors. A
    PostgreSQL URL or conninfo names a database server's (``postgres_transfer``)."""
    if looks_like_conninfo(db_path):
        from pi_rpc.session import postgres_transfer

        return postgres_transfer.export_sessions(db_path, out_dir, session_ids, report)
    db = database_path(db_path)
    if not os.path.exists(db):
        raise TransferError(f"{db}: no such session database")
    try:
        conn = connect_reader(db)
    except (sqlite3.Error, OSError) as exc:
        raise TransferError(f"{db}: cannot open the session database: {exc}") from exc
    if conn is None:
        if session_ids:
            raise TransferError(f"{db}: the database holds no sessions")
        return 0
    root = os.path.abspath(os.path.expanduser(out_dir))
    errors = 0
    try:
        for session_id in session_ids or stored_session_ids(conn):
            session = read_stored_session(conn, session_id)
            if session is None:
                report(Outcome("error", session_id, db, f"no session {session_id} in {db}"))
                errors += 1
                continue
            errors += export_one(root, session, report)
    finally:
        conn.close()
    return errors


__all__ = [
    "Outcome",
    "SessionSource",
    "TransferError",
    "export_one",
    "export_path",
    "export_sessions",
    "import_sessions",
    "read_source",
    "session_files",
]
