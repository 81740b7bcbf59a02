"""The process's open database backends, one per database: read by ``backends`` (which makes
them) and by ``postgres_store`` (whose forked child forgets the connections it inherited). Held
here, importing no store, so that the store modules need not import their dispatcher."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.session.postgres_store import PostgresBackend
    from pi_rpc.session.sqlite_store import SqliteBackend

# real database path -> its backend (one per database per process: a new session's
# directory is remembered by the backend that named it until its store is bound).
sqlite_backends: dict[str, SqliteBackend] = {}

# (host, port, dbname) -> its backend (one per database per process).
postgres_backends: dict[tuple[str, int, str], PostgresBackend] = {}
