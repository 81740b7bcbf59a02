"""The session backends as test parameters: one ``StoreKind`` per backend ("jsonl", "sqlite",
"postgres")
so a session test runs unchanged against the JSONL files and the session database (the
``store_kind`` fixtures of tests/session and tests/runtime give one per parameter).

What differs between the backends is only where a session lives: a file in its session
directory, or ``sqlite:<db>#<id>`` in the database ``<root>/sessions.db`` (``--session-store
sqlite --session-db <that>`` for a subprocess), or ``postgres://127.0.0.1:<port>/<db>#<id>`` in
a database of its own on the test server (``postgres_server.PostgresServer``; ``--session-store
postgres --session-db <url with password>``). ``stored_bytes`` reads any as the JSONL bytes the
session holds.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pi_rpc.session.backends import backend_for, is_postgres_locator, is_sqlite_locator, sqlite_backend
from pi_rpc.session.jsonl_store import JSONL_BACKEND
from pi_rpc.session.manager import SessionManager
from pi_rpc.session.sqlite_store import lock_path_for, make_locator, parse_locator
from pi_rpc.session.store import SessionBackend

STORE_KINDS = ("jsonl", "sqlite", "postgres")


def stored_bytes(locator: str) -> bytes | None:
    """What a session holds, as the JSONL bytes (a file's content; a database session's
    lines); None when nothing is stored."""
    if is_postgres_locator(locator):
        pg: Any = backend_for(locator)
        data_pg: bytes | None = pg.export_lines(locator.partition("#")[2])
        return data_pg
    if is_sqlite_locator(locator):
        _, session_id = parse_locator(locator)
        backend: Any = backend_for(locator)
        data: bytes | None = backend.export_lines(session_id)
        return data
    return Path(locator).read_bytes() if os.path.exists(locator) else None


def stored_lines(locator: str) -> list[dict[str, Any]]:
    """The stored entries (header first) of a session, parsed."""
    data = stored_bytes(locator)
    assert data is not None, f"nothing stored at {locator}"
    return [orjson.loads(line) for line in data.split(b"\n") if line]


def is_stored(locator: str) -> bool:
    return backend_for(locator).exists(locator)


@dataclass
class StoreKind:
    """One backend under test; a database lives at ``<root>/sessions.db`` (SQLite) or is
    ``url`` (PostgreSQL: a database of its own on the test server)."""

    name: str
    root: Path
    url: str | None = None

    def __post_init__(self) -> None:
        if self.postgres:
            self.backend()  # registered with the URL's credentials: locators of it connect with them

    @property
    def sqlite(self) -> bool:
        return self.name == "sqlite"

    @property
    def postgres(self) -> bool:
        return self.name == "postgres"

    @property
    def database(self) -> bool:
        """Sessions live in a database (SQLite or PostgreSQL), not in files."""
        return self.name != "jsonl"

    @property
    def db(self) -> Path:
        return self.root / "sessions.db"

    def backend(self) -> SessionBackend:
        if self.postgres:
            from pi_rpc.session.backends import postgres_backend

            assert self.url is not None
            return postgres_backend(self.url)
        return sqlite_backend(str(self.db)) if self.sqlite else JSONL_BACKEND

    def cli_args(self) -> tuple[str, ...]:
        """The flags that select this backend for a subprocess."""
        if self.postgres:
            assert self.url is not None
            return ("--session-store", "postgres", "--session-db", self.url)
        return ("--session-store", "sqlite", "--session-db", str(self.db)) if self.sqlite else ()

    def create(self, cwd: str | Path, session_dir: str | Path, **kwargs: Any) -> SessionManager:
        return SessionManager.create(str(cwd), str(session_dir), backend=self.backend(), **kwargs)

    def locator_at(self, directory: str | Path, name: str) -> str:
        """Where a client may name a session that is not stored yet (``switch_session`` to a
        new path): ``<directory>/<name>.jsonl``, or ``sqlite:<db>#<name>``."""
        if self.postgres:
            from pi_rpc.session.postgres_locator import make_locator as make_pg_locator

            return make_pg_locator(self._pg_target(), name)
        if self.sqlite:
            return make_locator(str(self.db), name)
        return str(Path(directory) / f"{name}.jsonl")

    def _pg_target(self) -> Any:
        from pi_rpc.session.postgres_locator import target_from_conninfo

        assert self.url is not None
        return target_from_conninfo(self.url)

    def make_most_recent(self, locator: str) -> None:
        """Make a stored session the one ``--continue`` picks (written last)."""
        if self.postgres:
            import psycopg

            assert self.url is not None
            with psycopg.connect(self.url, autocommit=True) as pg_conn:
                pg_conn.execute(
                    "UPDATE pi.sessions SET written_at = (SELECT MAX(written_at) FROM pi.sessions) + 100000"
                    " WHERE id = %s",
                    (locator.partition("#")[2],),
                )
            return
        if not self.sqlite:
            future = os.stat(locator).st_mtime + 100
            os.utime(locator, (future, future))
            return
        db, session_id = parse_locator(locator)
        conn = sqlite3.connect(db)
        try:
            with conn:
                conn.execute(
                    "UPDATE sessions SET written_at = (SELECT MAX(written_at) FROM sessions) + 100000 WHERE id = ?",
                    (session_id,),
                )
        finally:
            conn.close()

    def jsonl_files_under(self, root: Path) -> list[Path]:
        return sorted(root.rglob("*.jsonl"))

    def lock_file(self, locator: str) -> str:
        """The single-writer sidecar of a session (PostgreSQL: none, its lock is the server's;
        a path that never exists)."""
        if is_postgres_locator(locator):
            return str(self.root / "no-lock-file-on-postgres")
        if is_sqlite_locator(locator):
            return lock_path_for(*parse_locator(locator))
        return locator + ".lock"

    def starter(self, start: Callable[..., Any]) -> Callable[..., Any]:
        """The ``pi`` fixture's starter with this backend selected on every command line."""

        def start_on_store(**kwargs: Any) -> Any:
            kwargs["args"] = (*self.cli_args(), *kwargs.get("args", ()))
            proc = start(**kwargs)
            if self.postgres:
                # Up before the test's first command (the driver's import and the first
                # connection may take longer than a command's timeout on a loaded machine).
                proc.ok("get_state", timeout=30)
                proc.records.clear()  # the test sees its own records only, as on other stores
                proc.raw.clear()
            return proc

        return start_on_store


__all__ = ["STORE_KINDS", "StoreKind", "is_stored", "stored_bytes", "stored_lines"]
