"""``SqliteBackend.query_sessions`` (``list_sessions`` with ``query`` and ``limit`` answered
by the database) against the JSONL listing of the same generated sessions: the same
sessions, in the same order, for every kind of needle (non-ASCII, case folding that changes
length, under three characters, GLOB/LIKE characters, names, none), by each of the query's
paths (trigram candidates, the newest-first walk, no FTS at all); the index kept in step by
appends, renames, rewrites and deletes; schema 1 databases migrated."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.session import sqlite_search
from pi_rpc.session.entries import make_header, message_entry
from pi_rpc.session.ids import iso_to_ms
from pi_rpc.session.info_scan import scan_session
from pi_rpc.session.listing import SessionInfo, list_all_sessions, list_sessions
from pi_rpc.session.sqlite_store import (
    _MIGRATIONS,
    APPLICATION_ID,
    SCHEMA_VERSION,
    SqliteBackend,
    SqliteSessionStore,
    connect_writer,
    integrity_check,
)
from tests.support.session_corpus import generate, write_jsonl, write_sqlite

COUNT = 1200
QUERIES = [
    "zebracorn997",  # one session
    "zebracorn",  # a handful
    "ZEBRACORN0",
    "alpha",  # most sessions
    "Alpha Beta",
    "strasse",  # matches "straße" (casefold) and "STRASSE"
    "STRAßE",
    "i̇stanbul",  # "İ".casefold() is two characters
    "İ",
    "ǆ",  # title-case digraph folds to this
    "ΣΊΣΥΦΟΣ",
    "σίσυφοσ",
    "日本語",
    "日本",  # under three characters: no trigram
    "🎉",
    "ss",
    "a",
    "",
    "\u2028",
    "line\u2028break",
    "session 14",  # names
    "renamed",
    "tool output",  # only in tool results: never searched
    "zebracorn-not-searched",
    "*",
    "[a]",
    "?",
    "%",
    "_",
    '"quoted"',
    "no such words anywhere",
    "qq",  # short and in no text
    "9",  # short, in names and rare words only
    "n9",
    "\x01",  # the index's padding character: in no text
    "k\x01",
]


def _key(info: SessionInfo) -> tuple[Any, ...]:
    return (
        info.id,
        info.cwd,
        info.name,
        info.parent_session_path,
        info.created,
        info.modified,
        info.message_count,
        info.first_message,
    )


def _jsonl_answer(session_dir: str, query: str | None, limit: int | None) -> list[tuple[Any, ...]]:
    infos = list_sessions(session_dir, with_texts=query is not None)
    if query is not None:
        infos = [info for info in infos if info.matches(query)]
    return [_key(info) for info in (infos if limit is None else infos[:limit])]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """(session dir, other dir, database): the same sessions as files and in the database,
    and a second directory's sessions in both."""
    base = tmp_path_factory.mktemp("corpus")
    session_dir = str(base / "sessions" / "--work-x--")
    other_dir = str(base / "sessions" / "--work-y--")
    db = str(base / "s.db")
    sessions = list(generate(COUNT, "/work/x"))
    others = list(generate(200, "/work/y", seed=2, start=COUNT))
    write_jsonl(session_dir, sessions)
    write_jsonl(other_dir, others)
    write_sqlite(db, session_dir, sessions)
    write_sqlite(db, other_dir, others)
    return session_dir, other_dir, db


def test_the_build_has_fts5_trigram() -> None:
    # Not required (the scan answers without it), but the figures in bench/README.md assume it.
    assert sqlite_search.fts_available(sqlite3.connect(":memory:"))


@pytest.mark.parametrize("limit", [None, 50, 1])
def test_queries_equal_the_jsonl_listing(corpus: tuple[str, str, str], limit: int | None) -> None:
    session_dir, _, db = corpus
    backend = SqliteBackend(db)
    for query in [None, *QUERIES]:
        got = [_key(info) for info in backend.query_sessions(session_dir, query=query, limit=limit)]
        assert got == _jsonl_answer(session_dir, query, limit), query


def test_every_query_path_gives_the_same_answer(corpus: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk (forced by a tiny candidate cap) and the no-FTS scan answer as the index does."""
    session_dir, _, db = corpus
    expected = {query: _jsonl_answer(session_dir, query, None) for query in QUERIES}
    monkeypatch.setattr(sqlite_search, "CANDIDATE_CAP", 1)
    backend = SqliteBackend(db)
    for query in QUERIES:
        assert [_key(i) for i in backend.query_sessions(session_dir, query=query)] == expected[query], query
    monkeypatch.setattr(sqlite_search, "has_fts", lambda conn: False)
    for query in QUERIES:
        assert [_key(i) for i in backend.query_sessions(session_dir, query=query)] == expected[query], query


def test_both_paths_are_really_taken(corpus: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, db = corpus
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO texts_fts(texts_fts) VALUES ('integrity-check')")  # the bulk load's index
    assert sqlite_search._indexed_candidates(conn, sqlite_search.fold("zebracorn997")) is not None
    assert sqlite_search._indexed_candidates(conn, "alpha") is not None  # under the cap here
    # Short needles: the trigrams they start, from the term list (the padding makes one).
    assert sqlite_search._indexed_candidates(conn, "日本") is not None
    assert sqlite_search._indexed_candidates(conn, "qq") == set()
    assert sqlite_search._indexed_candidates(conn, "") is None  # matches every text: walked
    monkeypatch.setattr(sqlite_search, "CANDIDATE_CAP", 100)
    assert sqlite_search._indexed_candidates(conn, "alpha") is None  # common: walked
    assert sqlite_search._indexed_candidates(conn, "a") is None


def test_all_scope_equals_list_all_sessions(corpus: tuple[str, str, str]) -> None:
    session_dir, _, db = corpus
    root = os.path.dirname(session_dir)
    backend = SqliteBackend(db)
    for query in [None, "zebracorn", "alpha", "日本"]:
        infos = list_all_sessions(root, with_texts=query is not None)
        expected = [_key(i) for i in infos if query is None or i.matches(query)]
        got = [_key(i) for i in backend.query_sessions(None, query=query)]
        # Folders are listed in directory order, so only ties on ``modified`` may differ.
        assert sorted(got) == sorted(expected), query
        assert [k[5] for k in got] == [k[5] for k in expected], query
    assert len(backend.query_sessions(None)) == COUNT + 200
    assert [i.id for i in backend.query_sessions(None, limit=50)] == [i.id for i in backend.query_sessions(None)][:50]
    assert backend.query_sessions(None, limit=0) == []


def test_cwd_filter_and_locators(corpus: tuple[str, str, str]) -> None:
    session_dir, other_dir, db = corpus
    backend = SqliteBackend(db)
    assert backend.query_sessions(other_dir, cwd_filter="/work/x") == []
    found = backend.query_sessions(other_dir, cwd_filter="/work/y", limit=3)
    assert len(found) == 3
    assert all(info.path == f"sqlite:{os.path.realpath(db)}#{info.id}" for info in found)


# ---------------------------------------------------------------------- the index in step


def _user(entry_id: str, parent: str | None, text: str, ts: int) -> dict[str, Any]:
    return message_entry(
        entry_id, parent, "2026-01-01T00:00:00.000Z", {"role": "user", "content": text, "timestamp": ts}
    )


def test_appends_renames_rewrites_and_deletes_keep_the_index(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    backend = SqliteBackend(db)
    header = make_header("sess-1", "2026-01-01T00:00:00.000Z", "/w")
    store = SqliteSessionStore(db, "sess-1", diagnostics=[], session_dir=str(tmp_path))
    assert store.create(header, [_user("u1", None, "Crème Brûlée recipe", 1)], hold=False)

    def ids(query: str) -> list[str]:
        return [info.id for info in backend.query_sessions(str(tmp_path), query=query)]

    assert ids("BRÛLÉE") == ["sess-1"]
    assert ids("lasagna") == []
    assert store.append([_user("u2", "u1", "now lasagna", 2)])
    assert store.append([{"type": "session_info", "id": "i1", "parentId": "u2", "timestamp": "t", "name": "Kitchen"}])
    assert ids("lasagna") == ["sess-1"] and ids("kitch") == ["sess-1"]
    assert store.append([{"type": "session_info", "id": "i2", "parentId": "i1", "timestamp": "t", "name": "Garage"}])
    assert ids("kitch") == [] and ids("garage") == ["sess-1"]
    store.rewrite(header, [_user("u9", None, "only this now", 3)])
    assert ids("lasagna") == [] and ids("garage") == [] and ids("only this") == ["sess-1"]
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM entries WHERE session_id = 'sess-1'")
    conn.execute("DELETE FROM sessions WHERE id = 'sess-1'")
    conn.commit()
    assert conn.execute("SELECT count(*) FROM texts").fetchone() == (0,)
    assert ids("only this") == []
    assert integrity_check(db) == "ok"
    # The FTS index's own check (raises on an index out of step with its inserts/deletes).
    conn.execute("INSERT INTO texts_fts(texts_fts) VALUES ('integrity-check')")


def test_schema_1_database_is_migrated_with_its_texts(tmp_path: Path) -> None:
    """A database written before the search index: opened by a writer, it is migrated and
    searches answer for the sessions it held."""
    db = str(tmp_path / "old.db")
    session_dir = str(tmp_path / "dir")
    sessions = list(generate(120, "/work/x", seed=5))
    write_jsonl(session_dir, sessions)
    conn = sqlite3.connect(db, isolation_level=None)
    version_1 = _MIGRATIONS[0][1]
    assert isinstance(version_1, tuple)
    for statement in version_1:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    for session in sessions:
        lines = [line.decode("utf-8") for line in session.lines()]
        scanned = scan_session("".join(lines).encode("utf-8"))
        assert scanned is not None
        conn.execute(
            "INSERT INTO sessions (id, header, dir, cwd, created_at, parent_session, name, message_count,"
            " first_message, last_activity, modified, written_at, next_seq) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                session.id,
                lines[0],
                os.path.normpath(session_dir),
                "/work/x",
                session.header["timestamp"],
                None,
                scanned.name,
                scanned.message_count,
                scanned.first_message,
                scanned.last_activity,
                # ``modified`` as the listing computes it: the last activity, else the header's time.
                scanned.last_activity or iso_to_ms(session.header["timestamp"]),
                0,
                len(lines) - 1,
            ),
        )
        for seq, (entry, line) in enumerate(zip(session.entries, lines[1:], strict=True)):
            conn.execute(
                "INSERT INTO entries (session_id, seq, id, parent_id, type, timestamp, line) VALUES (?,?,?,?,?,?,?)",
                (session.id, seq, entry["id"], entry["parentId"], entry["type"], entry["timestamp"], line),
            )
    conn.close()
    connect_writer(db, "none").close()
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert check.execute("SELECT count(*) FROM texts").fetchone()[0] > 100
    for query in ["zebracorn", "alpha", "strasse", "session 7", "日本", "renamed"]:
        got = [_key(i) for i in SqliteBackend(db).query_sessions(session_dir, query=query)]
        assert got == _jsonl_answer(session_dir, query, None), query
