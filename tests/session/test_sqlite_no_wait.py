"""``write_batch(wait=False)`` of the SQLite store (what ``StoreFaultReporter.commit_now``
does on the event loop for an extension's ``appendEntry``): written at once when no other
writer holds the database; ``WouldWait`` at once (no busy wait, no fault, nothing reported,
the batch still queued) when one does, or when no connection is open yet; the next write that
may wait stores it, in order. The busy timeout is left as it was."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from pi_rpc.session import dumps_line
from pi_rpc.session.backlog import WouldWait
from pi_rpc.session.entries import make_header, message_entry
from pi_rpc.session.sqlite_store import BUSY_TIMEOUT_MS, SqliteBackend, SqliteSessionStore

TS = "2026-01-01T00:00:00.000Z"


def _chain(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        message = {"role": "user", "content": [{"type": "text", "text": f"m{i}"}], "timestamp": i}
        out.append(message_entry(f"m{i}", out[-1]["id"] if out else None, TS, message))
    return out


def test_a_write_without_waiting_never_waits_for_another_writer(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SqliteSessionStore(str(db), "s1")
    store.defer = True
    heard: list[tuple[str | None, int, int]] = []
    store.on_write_state = lambda error, pending, written: heard.append((error, pending, written))
    header = make_header("s1", TS, "/w")
    entries = _chain(4)
    store.create(header, entries[:1])
    # No connection yet: opening one could wait (the format check, the schema).
    batch = store.take_batch()
    assert batch is not None
    assert isinstance(store.write_batch(batch, wait=False), WouldWait)
    assert store.settle_batch(batch, store.write_batch(batch)) is True  # a write that may wait
    # Nobody else writing: stored at once.
    store.append(entries[1:2])
    batch = store.take_batch()
    assert batch is not None
    assert store.write_batch(batch, wait=False) is None
    assert store.settle_batch(batch, None) is True and store.pending_count() == 0
    conn = store._conn
    assert conn is not None and conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    # Another writer holds the lock: WouldWait at once, nothing reported, still queued.
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    store.append(entries[2:])
    batch = store.take_batch()
    assert batch is not None
    started = time.monotonic()
    outcome = store.write_batch(batch, wait=False)
    waited = time.monotonic() - started
    assert isinstance(outcome, WouldWait)
    assert store.write_error is None and heard == [] and store.pending_count() == 2
    other.execute("COMMIT")
    other.close()
    batch = store.take_batch()
    assert batch is not None and len(batch.items) == 2
    assert store.settle_batch(batch, store.write_batch(batch)) is True
    conn = store._conn
    assert conn is not None and conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    store.close()
    assert heard == []
    assert SqliteBackend(str(db)).export_lines("s1") == b"".join(dumps_line(e) for e in (header, *entries))
    print(f"write without waiting returned after {waited * 1000:.1f} ms with the lock held elsewhere")
