"""The SQLite session store on real database files: the stored lines are the JSONL store's
bytes, the listing columns answer as the JSONL listing does, the file's format marks and
pragmas, and (real child processes) one writer per session across processes, concurrent
writers of different sessions, and SIGKILL in the middle of appends."""

from __future__ import annotations

import glob
import os
import random
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.session import SessionLockedError, dumps_line
from pi_rpc.session.entries import make_header, message_entry
from pi_rpc.session.jsonl_store import JsonlSessionStore
from pi_rpc.session.listing import list_sessions
from pi_rpc.session.sqlite_store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    SessionDatabaseError,
    SqliteBackend,
    SqliteSessionStore,
    integrity_check,
    lock_path_for,
    make_locator,
    parse_locator,
)

REPO = Path(__file__).resolve().parents[2]
SESSION_FIXTURES = sorted(
    glob.glob(str(REPO / "tests" / "fixtures" / "pi-oracle" / "*.sessions" / "*.jsonl"))
    + glob.glob(str(REPO / "tests" / "fixtures" / "compaction" / "*.jsonl"))
)
TS = "2026-01-01T00:00:00.000Z"


def _load_jsonl(path: str) -> list[dict[str, Any]]:
    """Header and entries of a session file, as the JSONL store reads them."""
    loaded, index = JsonlSessionStore(path, read_only=True, diagnostics=[]).load()
    assert loaded is not None and index is not None
    return [*loaded.entries, *index.entries]


def _tricky_entries() -> list[dict[str, Any]]:
    """Entries whose lines test the serialiser: non-ASCII, U+2028, a lone surrogate, floats,
    a big int, a session_info name, messages of other roles, an assistant timestamp."""
    texts = ["héllo\u2028wörld 🎉", "lone \ud800 surrogate", 'quote " and \\ backslash']
    out: list[dict[str, Any]] = []

    def add(entry: dict[str, Any]) -> None:
        out.append(entry)

    parent: str | None = None
    for n, text in enumerate(texts):
        entry = message_entry(
            f"u{n}", parent, TS, {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1000 + n}
        )
        add(entry)
        parent = entry["id"]
        reply = message_entry(
            f"a{n}",
            parent,
            TS,
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"reply {n}"}],
                "usage": {"cost": 0.1 + n, "big": 2**60, "zero": 0.0},
                "timestamp": 5000.5 + n,
            },
        )
        add(reply)
        parent = reply["id"]
    add({"type": "session_info", "id": "i0", "parentId": parent, "timestamp": TS, "name": "  My session  "})
    add(
        message_entry(
            "t0", "i0", TS, {"role": "toolResult", "toolCallId": "c", "content": [], "isError": False, "timestamp": 9}
        )
    )
    return out


# ---------------------------------------------------------------------- lines and listing


@pytest.mark.parametrize("source", SESSION_FIXTURES, ids=os.path.basename)
def test_upstream_sessions_are_stored_byte_identical(source: str, tmp_path: Path) -> None:
    entries = _load_jsonl(source)
    header = entries[0]
    store = SqliteSessionStore(str(tmp_path / "s.db"), header["id"], diagnostics=[])
    assert store.create(header, entries[1:], hold=False)
    store.close()
    exported = SqliteBackend(str(tmp_path / "s.db")).export_lines(header["id"])
    assert exported == Path(source).read_bytes()
    # Read back: the same entries the JSONL store reads.
    again = SqliteSessionStore(str(tmp_path / "s.db"), header["id"], diagnostics=[])
    loaded, index = again.load()
    assert loaded is not None and index is not None
    assert [*loaded.entries, *index.entries] == entries
    again.close()


def test_lines_equal_what_the_jsonl_store_writes(tmp_path: Path) -> None:
    header = make_header("s1", TS, "/w")
    entries = _tricky_entries()
    jsonl = JsonlSessionStore(str(tmp_path / "s.jsonl"), diagnostics=[])
    sql = SqliteSessionStore(str(tmp_path / "s.db"), "s1", diagnostics=[])
    for store in (jsonl, sql):
        assert store.create(header, entries[:2]) is True
        assert store.append(entries[2:5]) is True
        for entry in entries[5:]:
            assert store.append([entry]) is True
        store.close()
    expected = (tmp_path / "s.jsonl").read_bytes()
    assert expected == b"".join(dumps_line(e) for e in (header, *entries))
    assert SqliteBackend(str(tmp_path / "s.db")).export_lines("s1") == expected
    conn = sqlite3.connect(tmp_path / "s.db")
    rows = conn.execute("SELECT seq, id, parent_id, type, timestamp FROM entries ORDER BY seq").fetchall()
    conn.close()
    assert rows == [(n, e["id"], e["parentId"], e["type"], e["timestamp"]) for n, e in enumerate(entries)]


def test_listing_columns_answer_as_the_jsonl_listing(tmp_path: Path) -> None:
    jsonl_dir = tmp_path / "files"
    jsonl_dir.mkdir()
    backend = SqliteBackend(str(tmp_path / "s.db"))
    sessions: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        # A lone surrogate included: the listing with texts reads it as node does.
        (make_header("s1", TS, "/w"), _tricky_entries()),
        (make_header("s2", "2026-01-02T00:00:00.000Z", "/w", "/parent.jsonl"), []),
    ]
    for source in SESSION_FIXTURES:
        loaded = _load_jsonl(source)
        if all(header["id"] != loaded[0]["id"] for header, _ in sessions):  # a fixture copied elsewhere
            sessions.append((loaded[0], loaded[1:]))
    for header, entries in sessions:
        file_store = JsonlSessionStore(str(jsonl_dir / f"{header['id']}.jsonl"))
        file_store.create(header, entries, hold=False)
        file_store.close()
        locator = backend.new_locator(str(tmp_path / "dir"), header["timestamp"], header["id"])
        store = backend.store(locator, fsync="none", read_only=False, diagnostics=[])
        # Summaries are accumulated entry by entry as appends arrive.
        store.create(header, entries[:1])
        store.append(entries[1:])
        store.close()

    def strip(info: Any) -> dict[str, Any]:
        out = info.to_dict()
        out.pop("path")
        return out

    for with_texts in (False, True):
        from_files = list_sessions(str(jsonl_dir), with_texts=with_texts)
        from_db = backend.list_sessions(str(tmp_path / "dir"), with_texts=with_texts)
        assert sorted(map(strip, from_db), key=lambda d: d["id"]) == sorted(
            map(strip, from_files), key=lambda d: d["id"]
        )
        assert [s.modified for s in from_db] == sorted((s.modified for s in from_db), reverse=True)
        if with_texts:
            by_id = {s.id: s.message_texts for s in from_files}
            assert all(s.message_texts == by_id[s.id] for s in from_db)
    assert backend.list_sessions(str(tmp_path / "elsewhere")) == []
    assert [s.id for s in backend.list_sessions(str(tmp_path / "dir"), "/w")] == ["s2", "s1"]
    assert backend.find_by_id(str(tmp_path / "dir"), "s2") == make_locator(str(tmp_path / "s.db"), "s2")
    assert backend.find_by_id(str(tmp_path / "dir"), "s2", cwd="/other") is None
    assert backend.find_by_id(str(tmp_path / "elsewhere"), "s2") is None
    newest = sessions[-1][0]["id"]  # written last
    assert backend.find_most_recent(str(tmp_path / "dir")) == make_locator(str(tmp_path / "s.db"), newest)
    assert backend.find_most_recent(str(tmp_path / "dir"), "/w") == make_locator(str(tmp_path / "s.db"), "s2")


def test_a_missing_database_lists_nothing_and_is_not_created(tmp_path: Path) -> None:
    backend = SqliteBackend(str(tmp_path / "none.db"))
    assert backend.list_sessions(str(tmp_path)) == [] and backend.find_most_recent(str(tmp_path)) is None
    assert backend.find_by_id(str(tmp_path), "x") is None and backend.export_lines("x") is None
    assert not (tmp_path / "none.db").exists()


def test_rewrite_replaces_the_session(tmp_path: Path) -> None:
    header = make_header("s1", TS, "/w")
    entries = _tricky_entries()
    store = SqliteSessionStore(str(tmp_path / "s.db"), "s1", diagnostics=[])
    store.create(header, entries, hold=False)
    store.rewrite(header, entries[:2])
    assert store.append(entries[2:3]) is True
    store.close()
    expected = b"".join(dumps_line(e) for e in (header, *entries[:3]))
    store = SqliteSessionStore(str(tmp_path / "s.db"), "s1", diagnostics=[])
    loaded, index = store.load()
    assert loaded is not None and index is not None and [*loaded.entries, *index.entries] == [header, *entries[:3]]
    store.close()
    assert SqliteBackend(str(tmp_path / "s.db")).export_lines("s1") == expected
    conn = sqlite3.connect(tmp_path / "s.db")
    summary = conn.execute("SELECT message_count, first_message, name, next_seq FROM sessions").fetchall()
    conn.close()
    assert summary == [(3, entries[0]["message"]["content"][0]["text"], None, 3)]


# ---------------------------------------------------------------------- format and pragmas


def test_the_file_is_marked_private_and_in_wal(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    for fsync, level in (("none", 1), ("entry", 2), ("turn", 2)):
        store = SqliteSessionStore(str(db), f"s-{fsync}", fsync=fsync, diagnostics=[])
        store.create(make_header(f"s-{fsync}", TS, "/w"), [], hold=False)
        conn = store._conn
        assert conn is not None
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == level
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert stat.S_IMODE(os.stat(db).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(f"{db}-wal").st_mode) == 0o600
        store.close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_an_empty_file_gets_the_schema(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    db.write_bytes(b"")
    store = SqliteSessionStore(str(db), "s1", diagnostics=[])
    assert store.create(make_header("s1", TS, "/w"), [], hold=False)
    store.close()
    assert integrity_check(str(db)) == "ok"


def test_foreign_and_newer_databases_are_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()
    with pytest.raises(SessionDatabaseError, match="not a pi session database"):
        SqliteSessionStore(str(foreign), "s1").load()
    newer = tmp_path / "newer.db"
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(SessionDatabaseError, match="newer pi"):
        SqliteSessionStore(str(newer), "s1").load()
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database at all, but long enough to look like a header" * 20)
    with pytest.raises(SessionDatabaseError, match="not a pi session database"):
        SqliteSessionStore(str(garbage), "s1").load()
    assert not os.path.exists(lock_path_for(str(garbage), "s1"))


def test_locators_round_trip(tmp_path: Path) -> None:
    db = str(tmp_path / "a#b.db")
    locator = make_locator(db, "01ab-cd")
    assert locator == f"sqlite:{os.path.realpath(db)}#01ab-cd"
    assert parse_locator(locator) == (os.path.realpath(db), "01ab-cd")
    for bad in ("/x/y.jsonl", "sqlite:/x/y.db", "sqlite:#id"):
        with pytest.raises(ValueError):
            parse_locator(bad)


# ---------------------------------------------------------------------- processes

HOLDER = textwrap.dedent("""
    import sys
    from pi_rpc.session.entries import message_entry
    from pi_rpc.session.sqlite_store import SqliteSessionStore
    store = SqliteSessionStore(sys.argv[1], sys.argv[2])
    loaded, index = store.load()
    parent = index.entries[-1]["id"] if index and index.entries else None
    store.append([message_entry("child", parent, "2026-01-01T00:00:00.000Z",
                                {"role": "user", "content": [], "timestamp": 1})])
    print("ready", flush=True)
    sys.stdin.read()
""")

WRITER = textwrap.dedent("""
    import sys
    from pi_rpc.session.entries import make_header, message_entry
    from pi_rpc.session.sqlite_store import SqliteSessionStore
    db, sid, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SqliteSessionStore(db, sid, fsync="entry")
    store.create(make_header(sid, "2026-01-01T00:00:00.000Z", "/w"), [], hold=False)
    parent = None
    for n in range(count):
        entry = message_entry(f"{sid}-{n}", parent, "2026-01-01T00:00:00.000Z",
                              {"role": "user", "content": [{"type": "text", "text": str(n)}], "timestamp": n})
        assert store.append([entry]), store.write_error
        parent = entry["id"]
    store.close()
    print("done", flush=True)
""")

APPENDER = textwrap.dedent("""
    import os, sys
    from pi_rpc.session.entries import message_entry
    from pi_rpc.session.sqlite_store import SqliteSessionStore
    db, sid, ack = sys.argv[1], sys.argv[2], sys.argv[3]
    store = SqliteSessionStore(db, sid, fsync="entry")
    loaded, index = store.load()
    entries = index.entries
    n = len(entries)
    parent = entries[-1]["id"] if entries else None
    ackfd = os.open(ack, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    pad = "x" * 3000  # lines of a few KB, like real tool results
    while True:
        entry = message_entry(f"e{n}", parent, "2026-01-01T00:00:00.000Z",
                              {"role": "user", "content": [{"type": "text", "text": f"{n}:{pad}"}], "timestamp": n})
        assert store.append([entry]), store.write_error
        os.write(ackfd, f"{n}\\n".encode())
        parent = entry["id"]
        n += 1
""")


def _spawn(code: str, *args: str, **kw: Any) -> subprocess.Popen[Any]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, **kw)


def _new_session(db: str, session_id: str) -> None:
    store = SqliteSessionStore(db, session_id)
    start = message_entry("start", None, TS, {"role": "user", "content": [], "timestamp": 0})
    store.create(make_header(session_id, TS, "/w"), [start], hold=False)
    store.close()


def test_same_session_is_refused_to_a_second_process_with_the_holder_pid(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    _new_session(db, "s1")
    _new_session(db, "s2")
    child = _spawn(HOLDER, db, "s1", stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        with pytest.raises(SessionLockedError) as err:
            SqliteSessionStore(db, "s1").load()
        assert err.value.pid == child.pid
        assert f"pid {child.pid}" in str(err.value) and make_locator(db, "s1") in str(err.value)
        # Another session of the same database is written meanwhile.
        other = SqliteSessionStore(db, "s2")
        _, index = other.load()
        assert index is not None
        assert other.append([message_entry("x", "start", TS, {"role": "user", "content": [], "timestamp": 2})])
        other.close()
        # Reading without writing is allowed while the holder writes.
        reader = SqliteSessionStore(db, "s1", read_only=True)
        _, index = reader.load()
        assert index is not None and [e["id"] for e in index.entries] == ["start", "child"]
        reader.close()
        assert SqliteSessionStore(db, "s1").holder_pid() == child.pid
    finally:
        child.kill()
        child.wait()
    # The holder died without cleaning up: its flock is gone, the pid it left is stale.
    notes: list[str] = []
    store = SqliteSessionStore(db, "s1", diagnostics=notes)
    assert store.holder_pid() is None
    store.load()
    assert notes == [f"recovered a stale lock left by pid {child.pid}"]
    store.close()
    assert not os.path.exists(lock_path_for(os.path.realpath(db), "s1"))
    assert integrity_check(db) == "ok"


def test_different_sessions_are_written_concurrently_by_two_processes(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    count = 150
    children = [_spawn(WRITER, db, sid, str(count), stdout=subprocess.PIPE, text=True) for sid in ("a", "b")]
    for child in children:
        out, _ = child.communicate(timeout=120)
        assert child.returncode == 0 and out.strip() == "done"
    backend = SqliteBackend(db)
    for sid in ("a", "b"):
        exported = backend.export_lines(sid)
        assert exported is not None and exported.count(b"\n") == count + 1
    assert integrity_check(db) == "ok"


def test_sigkill_while_appending_loses_at_most_the_entry_in_flight(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    store = SqliteSessionStore(db, "s1")
    store.create(make_header("s1", TS, "/w"), [], hold=False)
    store.close()
    ack = str(tmp_path / "acks")
    rng = random.Random(1234)
    acked_total = 0
    for _round in range(4):
        child = _spawn(APPENDER, db, "s1", ack)
        try:
            deadline = time.monotonic() + 60
            while not os.path.exists(ack) or Path(ack).read_text().count("\n") <= acked_total:
                assert time.monotonic() < deadline and child.poll() is None
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.15))
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        assert integrity_check(db) == "ok"
        acks = [int(x) for x in Path(ack).read_text().split()]
        reopened = SqliteSessionStore(db, "s1")
        _, index = reopened.load()
        assert index is not None
        counters = [int(e["message"]["content"][0]["text"].split(":")[0]) for e in index.entries]
        assert counters == list(range(len(counters)))  # no gaps, no duplicates
        assert acks == list(range(len(acks)))
        # Acknowledged entries are all there; at most the one being written when killed is extra.
        assert len(acks) <= len(counters) <= len(acks) + 1
        assert index.linear is not None  # still one chain
        reopened.close()
        Path(ack).write_text("".join(f"{i}\n" for i in range(len(counters))))
        acked_total = len(counters)
    assert acked_total > 0


def test_two_stores_of_one_process_share_a_session(tmp_path: Path) -> None:
    # As two managers of one process on one file do (switch_session to the current file).
    db = str(tmp_path / "s.db")
    header = make_header("s1", TS, "/w")
    entries = _tricky_entries()
    first = SqliteSessionStore(db, "s1")
    first.create(header, entries[:1], hold=False)
    second = SqliteSessionStore(db, "s1")
    second.load()
    assert first.append(entries[1:2]) and second.append(entries[2:3]) and first.append(entries[3:4])
    first.close()
    assert second.holder_pid() == os.getpid()
    second.close()
    assert second.holder_pid() is None
    assert SqliteBackend(db).export_lines("s1") == b"".join(dumps_line(e) for e in (header, *entries[:4]))
