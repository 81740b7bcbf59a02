"""The SQLite session store against the JSONL files on the same 100,000 sessions: open,
append, list and search, with the ratio SQLite / JSONL printed for each (lower: SQLite
faster).

The corpus is ``tests/support/session_corpus.py``'s (header, model change, 0-4 turns of
user and assistant text with non-ASCII words, tool results, names): one pass generates each
session and writes it both as the JSONL store's file (straight to disk) and into the
database (one bulk transaction, the trigram index built once at the end). Every session is
in the benchmark cwd's session directory, the case a listing must answer for.

Figures (median of --runs unless said; page cache warm):
  open            load one session (lock, read, index), 200 sessions picked at random (the
                  release afterwards is not timed)
  append          append one user message to an opened session (fsync "none"), 200 times
  list 50         list_sessions limit 50. JSONL: the listing of the folder (every file is
                  summarised, then sorted) with its summary cache cold (first) and warm
                  (again: a stat per file); SQLite: query_sessions(limit=50)
  search <q>      list_sessions with query q, limit 50. JSONL: every file read with its texts
                  (the cache never keeps texts), then filtered; SQLite: query_sessions
  search all <q>  the same, no limit (every matching session)

    python bench/session_store_bench.py [--sessions 100000] [--runs 3] [--dir DIR] [--keep]

``--dir`` reuses a corpus written before (with ``--keep``) when its session count matches.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_rpc.session import listing  # noqa: E402
from pi_rpc.session.jsonl_store import JsonlSessionStore, session_file_name  # noqa: E402
from pi_rpc.session.sqlite_store import SqliteBackend, SqliteSessionStore  # noqa: E402
from tests.support.session_corpus import GeneratedSession, generate, write_sqlite  # noqa: E402

CWD = "/work/bench-project"
SEARCHES = [
    ("rare", "zebracorn997"),  # one session in 997... only that one
    ("common", "alpha"),  # most sessions
    ("non-ASCII", "straße"),
    ("short", "日本"),  # under three characters: the trigrams it starts
    ("short rare", "qq"),  # in no text: only the index can tell quickly
    ("none", "qqqq"),  # matches nothing: every text is checked
]


def _ms(seconds: float) -> str:
    if seconds < 0.001:
        return f"{seconds * 1e6:9.0f} µs"
    return f"{seconds * 1000:9.1f} ms"


def _median(fn: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def build(base: Path, count: int) -> tuple[str, str, list[GeneratedSession]]:
    """(session dir, database, a sample of 200 sessions), written if not there already."""
    session_dir = str(base / "sessions" / listing.encode_cwd(CWD))
    db = str(base / "sessions.db")
    marker = base / f"corpus-{count}"
    if not marker.exists():
        shutil.rmtree(base / "sessions", ignore_errors=True)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        os.makedirs(session_dir)
        start = time.perf_counter()

        def files_too() -> Iterator[GeneratedSession]:
            for session in generate(count, CWD):
                name = session_file_name(session.header["timestamp"], session.id)
                with open(os.path.join(session_dir, name), "wb") as f:
                    f.write(b"".join(session.lines()))
                yield session

        write_sqlite(db, session_dir, files_too())
        print(f"generated {count} sessions (files and database) in {time.perf_counter() - start:.1f} s")
        marker.touch()
    rng = random.Random(7)
    picks = set(rng.sample(range(count), min(200, count)))
    sample = [s for n, s in enumerate(generate(count, CWD)) if n in picks]
    return session_dir, db, sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", help="where the corpus is (reused when it matches)")
    parser.add_argument("--keep", action="store_true", help="keep the corpus (with --dir)")
    args = parser.parse_args()
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="pi-store-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        run(base, args.sessions, args.runs)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


def run(base: Path, count: int, runs: int) -> None:
    session_dir, db, sample = build(base, count)
    files = {s.id: os.path.join(session_dir, session_file_name(s.header["timestamp"], s.id)) for s in sample}
    db_mb = sum(os.path.getsize(db + x) for x in ("", "-wal") if os.path.exists(db + x)) / 1e6
    files_mb = sum(os.path.getsize(os.path.join(session_dir, n)) for n in os.listdir(session_dir)) / 1e6
    print(f"{count} sessions: JSONL {files_mb:.0f} MB in files, SQLite {db_mb:.0f} MB")
    backend = SqliteBackend(db)
    rows: list[tuple[str, float, float]] = []

    def per_session(fn: Callable[[GeneratedSession], None]) -> float:
        samples = []
        for session in sample:
            start = time.perf_counter()
            fn(session)
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    def opener(make: Callable[[GeneratedSession], JsonlSessionStore | SqliteSessionStore]) -> float:
        # Only the load is timed: releasing closes the lock file, which ext4 may flush at
        # close (it was truncated and rewritten), milliseconds that belong to neither store.
        samples = []
        for session in sample:
            store = make(session)
            start = time.perf_counter()
            store.load()
            samples.append(time.perf_counter() - start)
            store.release()
        return statistics.median(samples)

    rows.append(
        (
            "open",
            opener(lambda s: JsonlSessionStore(files[s.id], diagnostics=[])),
            opener(lambda s: SqliteSessionStore(db, s.id, diagnostics=[])),
        )
    )

    def appender(make: Callable[[GeneratedSession], JsonlSessionStore | SqliteSessionStore]) -> float:
        stores = {}
        for session in sample:
            stores[session.id] = make(session)
            stores[session.id].load()
        n = [0]

        def one(session: GeneratedSession) -> None:
            n[0] += 1
            entry = {
                "type": "message",
                "id": f"b{n[0]:07x}",
                "parentId": session.entries[-1]["id"],
                "timestamp": "2026-12-01T00:00:00.000Z",
                "message": {"role": "user", "content": f"appended {n[0]}", "timestamp": 1_790_000_000_000 + n[0]},
            }
            stores[session.id].append([entry])

        try:
            return per_session(one)
        finally:
            for store in stores.values():
                store.close()

    rows.append(
        (
            "append",
            appender(lambda s: JsonlSessionStore(files[s.id], diagnostics=[])),
            appender(lambda s: SqliteSessionStore(db, s.id, diagnostics=[])),
        )
    )

    listing.SUMMARY_CACHE.clear()
    start = time.perf_counter()
    listing.list_sessions(session_dir)[:50]
    cold = time.perf_counter() - start
    sqlite_list = _median(lambda: backend.query_sessions(session_dir, limit=50), max(runs, 5))
    rows.append(("list 50 (JSONL cold)", cold, sqlite_list))
    rows.append(("list 50 (JSONL warm)", _median(lambda: listing.list_sessions(session_dir)[:50], runs), sqlite_list))
    rows.append(
        (
            "list all",
            _median(lambda: listing.list_sessions(session_dir), runs),
            _median(lambda: backend.query_sessions(session_dir), runs),
        )
    )

    def jsonl_search(query: str, limit: int | None) -> Callable[[], object]:
        def search() -> object:
            found = [i for i in listing.list_sessions(session_dir, with_texts=True) if i.matches(query)]
            return found if limit is None else found[:limit]

        return search

    jsonl_runs = 1 if count >= 50_000 else runs  # a JSONL search reads every file: one run is plenty
    for label, query in SEARCHES:
        sqlite_time = _median(lambda q=query: backend.query_sessions(session_dir, query=q, limit=50), max(runs, 5))
        rows.append((f"search {label} {query!r}", _median(jsonl_search(query, 50), jsonl_runs), sqlite_time))
    for label, query in SEARCHES[:2]:
        rows.append(
            (
                f"search all {label} {query!r}",
                _median(jsonl_search(query, None), jsonl_runs),
                _median(lambda q=query: backend.query_sessions(session_dir, query=q), runs),
            )
        )
    print(f"\n{'':34} {'JSONL':>12} {'SQLite':>12}   SQLite/JSONL")
    for name, jsonl_time, sqlite_time in rows:
        print(f"{name:34} {_ms(jsonl_time)} {_ms(sqlite_time)}   {sqlite_time / jsonl_time:8.3f}")


if __name__ == "__main__":
    main()
