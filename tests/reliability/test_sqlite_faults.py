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


def test_deferred_batches_keep_order_across_a_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deferred writing (what the runtime does off the event loop): entries accepted while a
    batch is being written follow it, a fault keeps everything queued and is reported once,
    and its end once, with the entries in the order accepted."""
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 50)
    db = tmp_path / "s.db"
    store = SqliteSessionStore(str(db), "s1")
    store.defer = True
    heard: list[tuple[str | None, int, int]] = []
    store.on_write_state = lambda error, pending, written: heard.append((error, pending, written))
    entries = _chain("e", 6)
    header = make_header("s1", TS, "/w")
    assert store.create(header, entries[:1]) is True and not store.created
    assert not db.exists()  # queued, not written
    batch = store.take_batch()
    assert batch is not None and batch.new is not None
    # Accepted while the first batch is written: the manager re-creates with everything.
    assert store.create(header, entries[:2]) is True
    assert store.settle_batch(batch, store.write_batch(batch)) is True
    assert store.created and store.pending_count() == 1
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    batch = store.take_batch()
    assert batch is not None and len(batch.items) == 1
    fault = store.write_batch(batch)
    assert fault is not None and store.settle_batch(batch, fault) is False
    assert store.append(entries[2:4]) is False  # queued behind the fault
    assert store.pending_count() == 3 and heard == [(store.write_error, 1, 0)]
    other.execute("COMMIT")
    other.close()
    batch = store.take_batch()
    assert batch is not None and len(batch.items) == 3
    store.append(entries[4:])  # accepted while the fault's end is being written
    assert store.settle_batch(batch, store.write_batch(batch)) is True
    assert heard[-1] == (None, 2, 3) and store.write_error is None
    batch = store.take_batch()
    assert batch is not None and store.settle_batch(batch, store.write_batch(batch)) is True
    assert store.take_batch() is None and store.pending_count() == 0
    store.close()
    assert SqliteBackend(str(db)).export_lines("s1") == b"".join(dumps_line(e) for e in (header, *entries))
    check = sqlite3.connect(db)
    # The summary row describes exactly the stored rows.
    assert check.execute("SELECT message_count, next_seq FROM sessions").fetchone() == (6, 6)
    check.close()
    assert integrity_check(str(db)) == "ok"
