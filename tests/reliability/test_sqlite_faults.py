"""Write faults of the SQLite session store on real files: a read-only directory (the
database, or a session's lock file, cannot be created) and a database locked by another
writer past the busy timeout. Entries are held in memory in order, ``write_error`` and
``on_write_state`` report the fault once and its end once, and everything held is written
when the fault is gone, exactly as the JSONL store does."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.session import dumps_line, sqlite_store
from pi_rpc.session.entries import make_header, message_entry
from pi_rpc.session.sqlite_store import SqliteBackend, SqliteSessionStore, integrity_check

TS = "2026-01-01T00:00:00.000Z"


def _chain(prefix: str, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        message = {"role": "user", "content": [{"type": "text", "text": f"{prefix}{i}"}], "timestamp": i}
        out.append(message_entry(f"{prefix}{i}", out[-1]["id"] if out else None, TS, message))
    return out


def _held_then_resumed(store: SqliteSessionStore, entries: list[dict[str, Any]], lift: Callable[[], None]) -> None:
    """Create and append while the fault lasts, then lift it and append once more."""
    heard: list[tuple[str | None, int, int]] = []
    store.on_write_state = lambda error, pending, written: heard.append((error, pending, written))
    header = make_header(store.session_id, TS, "/w")
    assert store.create(header, entries[:1]) is False
    assert not store.created and store.pending_count() == 1
    error = store.write_error
    assert error is not None and error.startswith(f"Could not write session {store.locator}: ")
    # The manager re-creates with everything while the first write is held.
    assert store.create(header, entries[:2]) is False and store.write_error == error
    lift()
    assert store.create(header, entries[:3]) is True
    assert store.write_error is None and store.created and store.pending_count() == 0
    assert store.append(entries[3:]) is True
    store.close()
    # The fault is reported once (unchanged on the second attempt), its end once.
    assert heard == [(error, 1, 0), (None, 0, 3)]
    exported = SqliteBackend(store.database).export_lines(store.session_id)
    assert exported == b"".join(dumps_line(e) for e in (header, *entries))
    assert integrity_check(store.database) == "ok"


def test_read_only_directory_holds_entries_until_it_is_writable(
    tmp_path: Path, read_only_dir: Callable[[Path, bool], None]
) -> None:
    directory = tmp_path / "db"
    directory.mkdir()
    read_only_dir(directory, True)
    # A database that cannot be created.
    store = SqliteSessionStore(str(directory / "s.db"), "s1", fsync="entry")
    _held_then_resumed(store, _chain("a", 5), lambda: read_only_dir(directory, False))
    # A database that exists, and a new session whose lock file cannot be created.
    read_only_dir(directory, True)
    store = SqliteSessionStore(str(directory / "s.db"), "s2", fsync="entry")
    _held_then_resumed(store, _chain("b", 4), lambda: read_only_dir(directory, False))


def test_a_database_locked_past_the_busy_timeout_holds_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 50)
    db = tmp_path / "s.db"
    store = SqliteSessionStore(str(db), "s1")
    entries = _chain("e", 4)
    header = make_header("s1", TS, "/w")
    assert store.create(header, entries[:1]) is True
    heard: list[tuple[str | None, int, int]] = []
    store.on_write_state = lambda error, pending, written: heard.append((error, pending, written))
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer of the database, holding its write lock
    assert store.append(entries[1:2]) is False and store.append(entries[2:3]) is False
    assert store.write_error == f"Could not write session {store.locator}: database is locked (SQLITE_BUSY)"
    assert store.pending_count() == 2 and heard == [(store.write_error, 1, 0)]
    other.execute("COMMIT")
    other.close()
    assert store.retry() is True and store.pending_count() == 0
    assert store.append(entries[3:]) is True
    store.close()
    assert heard[-1] == (None, 0, 2)
    assert SqliteBackend(str(db)).export_lines("s1") == b"".join(dumps_line(e) for e in (header, *entries))
