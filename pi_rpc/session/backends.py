"""Which backend holds a session: the JSONL files (a locator is a file path) or a session
database (a locator is ``sqlite:<real absolute database path>#<session id>``).

A locator names its own backend, so everything that opens a session a client named
(``--session``, ``switch_session``, ``rename_session``, ...) asks ``backend_for``; what
creates new sessions uses the backend the configuration selected (``sessionStore``). The
SQLite module (and ``sqlite3``) is imported only when a database is used: a JSONL run never
loads it. A PostgreSQL locator (``postgres://<host>[:port]/<db>#<id>``, ``postgres_locator``)
names a session on a database server; psycopg is imported only when one is used.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pi_rpc.session.backend_registry import postgres_backends, sqlite_backends
from pi_rpc.session.jsonl_store import JSONL_BACKEND
from pi_rpc.session.store import SessionBackend

if TYPE_CHECKING:
    from pi_rpc.session.postgres_store import PostgresBackend
    from pi_rpc.session.sqlite_store import SqliteBackend

# Must equal sqlite_store.LOCATOR_PREFIX (kept here so recognising one imports no sqlite3).
SQLITE_LOCATOR_PREFIX = "sqlite:"


def is_sqlite_locator(value: str) -> bool:
    return value.startswith(SQLITE_LOCATOR_PREFIX)


# Must equal postgres_locator.LOCATOR_PREFIX.
POSTGRES_LOCATOR_PREFIX = "postgres://"


def is_postgres_locator(value: str) -> bool:
    return value.startswith(POSTGRES_LOCATOR_PREFIX)


def is_database_locator(value: str) -> bool:
    """A session in a database (SQLite or PostgreSQL), not a file path."""
    return is_sqlite_locator(value) or is_postgres_locator(value)


def postgres_backend(conninfo: str) -> PostgresBackend:
    """The backend of the PostgreSQL database ``conninfo`` names (shared within the process;
    the first conninfo configured for a database supplies its credentials)."""
    from pi_rpc.session.postgres_locator import target_from_conninfo
    from pi_rpc.session.postgres_store import PostgresBackend

    target = target_from_conninfo(conninfo)
    backend = postgres_backends.get(target.key)
    if backend is None:
        backend = postgres_backends[target.key] = PostgresBackend(target)
    return backend


def sqlite_backend(db_path: str) -> SqliteBackend:
    """The backend of one session database (shared within the process)."""
    from pi_rpc.session.sqlite_store import SqliteBackend, database_path

    real = database_path(db_path)
    backend = sqlite_backends.get(real)
    if backend is None:
        backend = sqlite_backends[real] = SqliteBackend(real)
    return backend


def backend_for(locator: str) -> SessionBackend:
    """The backend a locator belongs to: its database for a SQLite or PostgreSQL locator,
    else the files."""
    if is_postgres_locator(locator):
        from pi_rpc.session.postgres_locator import parse_locator as parse_postgres
        from pi_rpc.session.postgres_locator import target_for_locator
        from pi_rpc.session.postgres_store import PostgresBackend

        key = parse_postgres(locator)[0]
        backend = postgres_backends.get(key)
        if backend is None:
            backend = postgres_backends[key] = PostgresBackend(target_for_locator(key))
        return backend
    if is_sqlite_locator(locator):
        from pi_rpc.session.sqlite_store import parse_locator

        return sqlite_backend(parse_locator(locator)[0])
    return JSONL_BACKEND


def resolve_session_ref(value: str, base: str | None = None) -> str:
    """A session a client named, normalised: a SQLite locator with its database path made
    real and absolute; a PostgreSQL locator in its canonical form; a file path with ``~``
    expanded, made absolute against ``base`` (the process's cwd when None) and normalised."""
    if is_postgres_locator(value):
        from pi_rpc.session.postgres_locator import canonical

        return canonical(value)
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
    if is_database_locator(a) or is_database_locator(b):
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
    "is_database_locator",
    "is_postgres_locator",
    "is_sqlite_locator",
    "postgres_backend",
    "resolve_session_ref",
    "same_session",
    "sqlite_backend",
]
