"""Which backend holds a session: the JSONL files (a locator is a file path) or a session
database (a locator is ``sqlite:<real absolute database path>#<session id>``).

A locator names its own backend, so everything that opens a session a client named
(``--session``, ``switch_session``, ``rename_session``, ...) asks ``backend_for``; what
creates new sessions uses the backend the configuration selected (``sessionStore``). The
SQLite module (and ``sqlite3``) is imported only when a database is used: a JSONL run never
loads it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pi_rpc.session.jsonl_store import JSONL_BACKEND
from pi_rpc.session.store import SessionBackend

if TYPE_CHECKING:
    from pi_rpc.session.sqlite_store import SqliteBackend

# Must equal sqlite_store.LOCATOR_PREFIX (kept here so recognising one imports no sqlite3).
SQLITE_LOCATOR_PREFIX = "sqlite:"

# real database path -> its backend (one per database per process: a new session's
# directory is remembered by the backend that named it until its store is bound).
_sqlite_backends: dict[str, SqliteBackend] = {}


def is_sqlite_locator(value: str) -> bool:
    return value.startswith(SQLITE_LOCATOR_PREFIX)


def sqlite_backend(db_path: str) -> SqliteBackend:
    """The backend of one session database (shared within the process)."""
    from pi_rpc.session.sqlite_store import SqliteBackend, database_path

    real = database_path(db_path)
    backend = _sqlite_backends.get(real)
    if backend is None:
        backend = _sqlite_backends[real] = SqliteBackend(real)
    return backend


def backend_for(locator: str) -> SessionBackend:
    """The backend a locator belongs to: its database for a SQLite locator, else the files."""
    if is_sqlite_locator(locator):
        from pi_rpc.session.sqlite_store import parse_locator

        return sqlite_backend(parse_locator(locator)[0])
    return JSONL_BACKEND


def resolve_session_ref(value: str, base: str | None = None) -> str:
    """A session a client named, normalised: a SQLite locator with its database path made
    real and absolute; a file path with ``~`` expanded, made absolute against ``base`` (the
    process's cwd when None) and normalised."""
    if is_sqlite_locator(value):
        from pi_rpc.session.sqlite_store import make_locator, parse_locator

        return make_locator(*parse_locator(value))
    path = os.path.expanduser(value)
    if not os.path.isabs(path):
        path = os.path.join(base or os.getcwd(), path)
    return os.path.normpath(path)


def same_session(a: str, b: str) -> bool:
    """Whether two locators name the same session (files: the same file, even by another
    path; databases: the same session of the same database)."""
    if is_sqlite_locator(a) or is_sqlite_locator(b):
        try:
            return resolve_session_ref(a) == resolve_session_ref(b)
        except ValueError:
            return False
    if os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


__all__ = [
    "SQLITE_LOCATOR_PREFIX",
    "backend_for",
    "is_sqlite_locator",
    "resolve_session_ref",
    "same_session",
    "sqlite_backend",
]
