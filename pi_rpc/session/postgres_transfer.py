"""``pi sessions import|export --db <PostgreSQL URL or conninfo>``: moving sessions between
JSONL files and a PostgreSQL session database, losslessly (``transfer_files.py`` reads the files and
writes the exports; this module talks to the server).

Each imported session is stored in one transaction under its writer lock (a pi process about to
store that very session is not raced); each entry keeps the file's own line, so an export gives
the file back byte for byte. Messages name the database as ``postgres://<host>[:port]/<db>``:
never its user or password.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import psycopg

from pi_rpc.session.entries import SessionHeader
from pi_rpc.session.errors import SessionError, SessionLockedError
from pi_rpc.session.postgres_locator import Target, make_locator, redact, target_from_conninfo
from pi_rpc.session.postgres_store import (
    connect,
    import_session,
    migrate,
    read_stored_session,
    schema_version,
    stored_session_ids,
    try_lock,
    unlock,
)
from pi_rpc.session.transfer_files import Outcome, TransferError, export_one, readable_sources, session_files


def _target(conninfo: str) -> Target:
    try:
        return target_from_conninfo(conninfo)
    except ValueError as exc:
        raise TransferError(str(exc)) from None


def _connect(target: Target) -> psycopg.Connection[object]:
    try:
        return connect(target, application="pi sessions")
    except psycopg.Error as exc:
        raise TransferError(f"{target.display}: cannot connect: {redact(_first_line(exc), target)}") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def import_sessions(
    conninfo: str,
    sources: Sequence[str],
    session_dir_of: Callable[[SessionHeader], str | None],
    report: Callable[[Outcome], None],
) -> int:
    """As ``transfer.import_sessions``, into the PostgreSQL database ``conninfo`` names."""
    target = _target(conninfo)
    try:
        files = list(session_files(sources))
    except TransferError as exc:
        report(Outcome("error", None, "", str(exc)))
        return 1
    conn = _connect(target)
    errors = 0
    try:
        try:
            migrate(conn, target.display)
        except (psycopg.Error, SessionError) as exc:
            raise TransferError(f"{target.display}: {redact(_first_line(exc), target)}") from None
        for path, source in readable_sources(files, report):
            if source is None:
                errors += 1
                continue
            session_id = source.session_id
            locator = make_locator(target, session_id)
            try:
                try_lock(conn, locator, session_id)
            except SessionLockedError as exc:
                report(Outcome("error", session_id, path, str(exc)))
                errors += 1
                continue
            try:
                stored = import_session(
                    conn,
                    source.header,
                    source.header_line,
                    source.entries,
                    session_dir=session_dir_of(source.header),
                    written_at=source.mtime_ms,
                )
            except psycopg.Error as exc:
                report(Outcome("error", session_id, path, f"not stored: {redact(_first_line(exc), target)}"))
                errors += 1
                continue
            finally:
                if not conn.broken:
                    unlock(conn, session_id)
            if stored:
                report(Outcome("imported", session_id, path, "; ".join(source.notes)))
            else:
                report(Outcome("skipped", session_id, path, f"already in {target.display}"))
    finally:
        conn.close()
    return errors


def export_sessions(conninfo: str, out_dir: str, session_ids: Sequence[str], report: Callable[[Outcome], None]) -> int:
    """As ``transfer.export_sessions``, from the PostgreSQL database ``conninfo`` names."""
    import os

    target = _target(conninfo)
    conn = _connect(target)
    root = os.path.abspath(os.path.expanduser(out_dir))
    errors = 0
    try:
        try:
            version = schema_version(conn)
        except (psycopg.Error, SessionError) as exc:
            raise TransferError(f"{target.display}: {redact(_first_line(exc), target)}") from None
        if version == 0:
            if session_ids:
                raise TransferError(f"{target.display}: the database holds no sessions")
            return 0
        for session_id in session_ids or stored_session_ids(conn):
            session = read_stored_session(conn, session_id)
            if session is None:
                report(Outcome("error", session_id, target.display, f"no session {session_id} in {target.display}"))
                errors += 1
                continue
            errors += export_one(root, session, report)
    except psycopg.Error as exc:
        raise TransferError(f"{target.display}: {redact(_first_line(exc), target)}") from None
    finally:
        conn.close()
    return errors


__all__ = ["export_sessions", "import_sessions"]
