"""The PostgreSQL session store next to SQLite and the JSONL files, in one run.

A real server on loopback (``tests/support/postgres_server.py``, durable: fsync on, as an
operator runs it) unless ``--url`` names one. Figures:

  append          one user message appended to an open session, --appends times: p50 and p99
                  (JSONL and SQLite with fsync "none"; PostgreSQL: a committed transaction)
  open            load one session (lock, read, index), 200 sessions of the corpus: median, p99
  list 50         list_sessions limit 50 (each backend's query_sessions) over --sessions
  search <q>      the same with a text query (rare: one session in 997; common: most)
  big: ...        PostgreSQL alone over --big sessions generated with SQL (JSONL and SQLite are
                  not built at that size: the shared corpus above is their comparison)
  50 appenders    --appenders processes, each appending --per-appender entries to its own
                  session at once: entries/s over all, and the p99 of one append

Ratios are PostgreSQL / SQLite and PostgreSQL / JSONL (lower: PostgreSQL faster).

    python bench/postgres_store_bench.py [--sessions 20000] [--big 1000000] [--appends 1000]
                                         [--appenders 50] [--per-appender 100] [--url URL]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_rpc.session import listing  # noqa: E402
from pi_rpc.session.jsonl_store import JSONL_BACKEND, JsonlSessionStore, session_file_name  # noqa: E402
from pi_rpc.session.manager import SessionManager  # noqa: E402
from pi_rpc.session.sqlite_store import SqliteBackend, SqliteSessionStore  # noqa: E402
from tests.support.session_corpus import generate, write_sqlite  # noqa: E402

CWD = "/work/bench-project"
SEARCHES = [("rare", "zebracorn997"), ("common", "alpha")]


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return f"{'-':>12}"
    if seconds < 0.001:
        return f"{seconds * 1e6:9.0f} µs"
    return f"{seconds * 1000:9.2f} ms"


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _median_of(fn: Callable[[], object], runs: int = 5) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _user(n: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": f"bench message {n} alpha"}], "timestamp": n}


# ---------------------------------------------------------------------- the corpus


def build(base: Path, count: int, url: str) -> tuple[str, str, list[str]]:
    """The same ``count`` sessions as JSONL files, a SQLite database and PostgreSQL rows."""
    from pi_rpc.session.backends import postgres_backend
    from pi_rpc.session.postgres_store import connect, import_session, migrate

    session_dir = str(base / "sessions" / listing.encode_cwd(CWD))
    db = str(base / "sessions.db")
    os.makedirs(session_dir)
    start = time.perf_counter()
    sessions = list(generate(count, CWD))
    t0 = time.perf_counter()
    for session in sessions:
        with open(os.path.join(session_dir, session_file_name(session.header["timestamp"], session.id)), "wb") as f:
            f.write(b"".join(session.lines()))
    t1 = time.perf_counter()
    write_sqlite(db, session_dir, iter(sessions))
    t2 = time.perf_counter()
    target = postgres_backend(url).target
    conn = connect(target)
    migrate(conn, target.display)
    with conn.transaction():
        for session in sessions:
            lines = session.lines()
            import_session(
                conn,
                session.header,
                lines[0].decode(),
                [(entry, line.decode()) for entry, line in zip(session.entries, lines[1:], strict=True)],
                session_dir=session_dir,
                written_at=1,
            )
    conn.execute("ANALYZE")
    conn.close()
    print(
        f"generated {count} sessions in {time.perf_counter() - start:.1f} s (corpus {t0 - start:.1f} s,"
        f" files {t1 - t0:.1f} s, SQLite {t2 - t1:.1f} s, PostgreSQL {time.perf_counter() - t2:.1f} s)"
    )
    rng = random.Random(7)
    return session_dir, db, [s.id for s in rng.sample(sessions, min(200, count))]


def generate_big(url: str, count: int, session_dir: str) -> float:
    """``count`` sessions (2 entries, 2 texts each) written with SQL; seconds taken."""
    from pi_rpc.session.backends import postgres_backend
    from pi_rpc.session.postgres_store import connect, migrate

    target = postgres_backend(url).target
    conn = connect(target)
    conn.execute("SET statement_timeout = 0")
    migrate(conn, target.display)
    start = time.perf_counter()
    words = "ARRAY['alpha','beta','gamma','delta','straße','日本語','refactor','parser']"
    with conn.transaction():
        conn.execute("DROP INDEX pi.texts_trgm")
        conn.execute(
            "INSERT INTO pi.sessions (id, header, dir, cwd, created_at, created_ms, parent_session, name,"
            " name_folded, message_count, first_message, last_activity, modified, written_at, next_seq)"
            " SELECT 'big-' || i, json_build_object('type','session','version',3,'id','big-' || i,"
            " 'timestamp', to_char(to_timestamp(1780000000 + i) AT TIME ZONE 'UTC',"
            " 'YYYY-MM-DD\"T\"HH24:MI:SS.000\"Z\"'), 'cwd', %s::text)::text || E'\\n', %s, %s, NULL,"
            " (1780000000 + i) * 1000.0, NULL, CASE WHEN i %% 7 = 0 THEN 'Session ' || i END,"
            " CASE WHEN i %% 7 = 0 THEN 'session ' || i END, 2, 'question ' || i, (1780000000 + i) * 1000.0,"
            " (1780000000 + i) * 1000.0, 1, 2 FROM generate_series(1, %s) AS i",
            (CWD, session_dir, CWD, count),
        )
        conn.execute(
            "INSERT INTO pi.entries (session_id, seq, id, parent_id, type, timestamp, line)"
            " SELECT 'big-' || i, s, 'e' || s, NULL, 'message', NULL,"
            " json_build_object('type','message','id','e' || s,'message',"
            " json_build_object('role','user','content','question ' || i))::text || E'\\n'"
            " FROM generate_series(1, %s) AS i, generate_series(0, 1) AS s",
            (count,),
        )
        conn.execute(
            "INSERT INTO pi.texts (session_id, folded) SELECT 'big-' || i,"
            f" 'question about ' || ({words})[1 + i %% 8] || ' ' || md5(i::text)"
            " || CASE WHEN i %% 99991 = 0 THEN ' zebracorn997' ELSE '' END"
            " FROM generate_series(1, %s) AS i, generate_series(0, 1) AS s",
            (count,),
        )
        row = conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
            " WHERE e.extname = 'pg_trgm'"
        ).fetchone()
        assert row is not None, "pg_trgm missing"
        conn.execute(f'CREATE INDEX texts_trgm ON pi.texts USING gin (folded "{row[0]}".gin_trgm_ops)')
    conn.execute("ANALYZE")
    conn.close()
    return time.perf_counter() - start


# ---------------------------------------------------------------------- concurrent appenders


def _appender(kind: str, where: str, count: int, queue: Any) -> None:
    from pi_rpc.session.backends import postgres_backend, sqlite_backend

    backend: Any = JSONL_BACKEND
    if kind == "sqlite":
        backend = sqlite_backend(where)
    elif kind == "postgres":
        backend = postgres_backend(where)
    folder = where if kind == "jsonl" else "/work/bench-appenders"
    m = SessionManager.create(CWD, folder, backend=backend)
    m.append_message(_user(0))
    samples = []
    for n in range(1, count + 1):
        start = time.perf_counter()
        m.append_message(_user(n))
        samples.append(time.perf_counter() - start)
    m.close()
    queue.put(samples)


def appenders(kind: str, where: str, processes: int, count: int) -> tuple[float, float]:
    """(entries per second over all processes, p99 of one append)."""
    ctx = multiprocessing.get_context("spawn")  # no connection of this process is inherited
    queue = ctx.Queue()
    procs = [ctx.Process(target=_appender, args=(kind, where, count, queue)) for _ in range(processes)]
    start = time.perf_counter()
    for proc in procs:
        proc.start()
    samples: list[float] = []
    for _ in procs:
        samples.extend(queue.get(timeout=600))
    elapsed = time.perf_counter() - start
    for proc in procs:
        proc.join()
    return len(samples) / elapsed, _p(samples, 0.99)


# ---------------------------------------------------------------------- the run


def run(base: Path, url: str, big_url: str | None, args: argparse.Namespace) -> None:
    from pi_rpc.session.backends import postgres_backend

    session_dir, db, sample = build(base, args.sessions, url)
    pg = postgres_backend(url)
    sq = SqliteBackend(db)
    files = {}
    for name in os.listdir(session_dir):
        files[name.rsplit("_", 1)[1][: -len(".jsonl")]] = os.path.join(session_dir, name)
    rows: list[tuple[str, float | None, float | None, float | None]] = []

    # append: p50 and p99 over --appends single-entry appends to one open session
    def append_samples(make: Callable[[], SessionManager]) -> list[float]:
        m = make()
        m.append_message(_user(0))  # the first write creates the session
        samples = []
        for n in range(1, args.appends + 1):
            start = time.perf_counter()
            m.append_message(_user(n))
            samples.append(time.perf_counter() - start)
        m.close()
        return samples

    appends_dir = base / "appends"
    appends_dir.mkdir()
    a_jsonl = append_samples(lambda: SessionManager.create(CWD, str(appends_dir)))
    a_sqlite = append_samples(lambda: SessionManager.create(CWD, str(appends_dir), backend=sq))
    a_pg = append_samples(lambda: SessionManager.create(CWD, str(appends_dir), backend=pg))
    rows.append(("append p50", _p(a_jsonl, 0.5), _p(a_sqlite, 0.5), _p(a_pg, 0.5)))
    rows.append(("append p99", _p(a_jsonl, 0.99), _p(a_sqlite, 0.99), _p(a_pg, 0.99)))

    # open: load one stored session (its writer lock taken), 200 of the corpus
    def open_samples(make: Callable[[str], Any]) -> list[float]:
        samples = []
        for session_id in sample:
            store = make(session_id)
            start = time.perf_counter()
            store.load()
            samples.append(time.perf_counter() - start)
            store.release()
        return samples

    o_jsonl = open_samples(lambda sid: JsonlSessionStore(files[sid], diagnostics=[]))
    o_sqlite = open_samples(lambda sid: SqliteSessionStore(db, sid, diagnostics=[]))
    o_pg = open_samples(
        lambda sid: pg.store(f"{pg.target.display}#{sid}", fsync="none", read_only=False, diagnostics=[])
    )
    rows.append(("open median", statistics.median(o_jsonl), statistics.median(o_sqlite), statistics.median(o_pg)))
    rows.append(("open p99", _p(o_jsonl, 0.99), _p(o_sqlite, 0.99), _p(o_pg, 0.99)))

    # list 50 and text queries over the shared corpus
    listing._SUMMARY_CACHE.clear() if hasattr(listing, "_SUMMARY_CACHE") else None
    rows.append(
        (
            f"list 50 of {args.sessions}",
            _median_of(lambda: JSONL_BACKEND.query_sessions(session_dir, limit=50), 3),
            _median_of(lambda: sq.query_sessions(session_dir, limit=50)),
            _median_of(lambda: pg.query_sessions(session_dir, limit=50)),
        )
    )
    for label, needle in SEARCHES:
        rows.append(
            (
                f"search {label} ({needle})",
                _median_of(lambda n=needle: JSONL_BACKEND.query_sessions(session_dir, query=n, limit=50), 3),
                _median_of(lambda n=needle: sq.query_sessions(session_dir, query=n, limit=50)),
                _median_of(lambda n=needle: pg.query_sessions(session_dir, query=n, limit=50)),
            )
        )

    # the big database: PostgreSQL alone
    if big_url is not None and args.big:
        big_dir = "/work/bench-big"
        seconds = generate_big(big_url, args.big, big_dir)
        print(f"generated {args.big} sessions with SQL in {seconds:.1f} s")
        big = postgres_backend(big_url)
        assert len(big.query_sessions(big_dir, limit=50)) == 50
        rows.append(
            (f"big: list 50 of {args.big}", None, None, _median_of(lambda: big.query_sessions(big_dir, limit=50)))
        )
        rows.append(
            (
                f"big: list 50, all dirs, of {args.big}",
                None,
                None,
                _median_of(lambda: big.query_sessions(None, limit=50)),
            )
        )
        for label, needle in SEARCHES:
            rows.append(
                (
                    f"big: search {label} ({needle})",
                    None,
                    None,
                    _median_of(lambda n=needle: big.query_sessions(big_dir, query=n, limit=50)),
                )
            )

    # concurrent appenders
    conc_dir = base / "concurrent"
    conc_dir.mkdir()
    c_jsonl = appenders("jsonl", str(conc_dir), args.appenders, args.per_appender)
    c_sqlite = appenders("sqlite", str(base / "concurrent.db"), args.appenders, args.per_appender)
    c_pg = appenders("postgres", url, args.appenders, args.per_appender)

    print(f"\n{'figure':42} {'JSONL':>12} {'SQLite':>12} {'PostgreSQL':>12} {'PG/SQLite':>10} {'PG/JSONL':>9}")
    for label, j, s, p in rows:
        ratio_s = f"{p / s:10.2f}" if s and p else f"{'-':>10}"
        ratio_j = f"{p / j:9.2f}" if j and p else f"{'-':>9}"
        print(f"{label:42} {_ms(j)} {_ms(s)} {_ms(p)} {ratio_s} {ratio_j}")
    label = f"{args.appenders} appenders: entries/s"
    print(
        f"{label:42} {c_jsonl[0]:12.0f} {c_sqlite[0]:12.0f} {c_pg[0]:12.0f}"
        f" {c_pg[0] / c_sqlite[0]:10.2f} {c_pg[0] / c_jsonl[0]:9.2f}"
    )
    label = f"{args.appenders} appenders: p99 of one append"
    print(
        f"{label:42} {_ms(c_jsonl[1])} {_ms(c_sqlite[1])} {_ms(c_pg[1])}"
        f" {c_pg[1] / c_sqlite[1]:10.2f} {c_pg[1] / c_jsonl[1]:9.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--appends", type=int, default=1000)
    parser.add_argument("--appenders", type=int, default=50)
    parser.add_argument("--per-appender", type=int, default=100)
    parser.add_argument("--url", help="a PostgreSQL database to use (emptied first); default: a server of its own")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="pi-pg-bench-"))
    server = None
    try:
        if args.url:
            url, big_url = args.url, None
        else:
            from tests.support.postgres_server import PostgresServer

            server = PostgresServer(durable=True).start()
            server.psql("CREATE DATABASE big OWNER pi")
            url, big_url = server.url(), server.url(database="big")
            print(f"PostgreSQL server on 127.0.0.1:{server.port} (fsync on, synchronous_commit on)")
        run(base, url, big_url, args)
    finally:
        if server is not None:
            server.destroy()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
