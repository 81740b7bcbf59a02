"""The PostgreSQL session store against a REAL server (``tests/support/postgres_server.py``;
skipped with the reason when no server binary is installed): locators without credentials,
the schema's version, ``pi sessions import|export --db <URL>`` byte for byte, one writer per
session across "hosts" (two agent dirs on one database), a holder killed with SIGKILL, the
server stopped for 10 s during a prompt, writes that never block the event loop, the trigram
index of the text query, and a password that never comes out again.

(The backend-parametrised session tests run on it too: ``store_kind`` in tests/conftest.py.)
"""

from __future__ import annotations

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.config import paths
from tests.support.pi_process import PiProcess, is_event, kinds, start_in
from tests.support.postgres_server import PASSWORD, PostgresServer, find_binaries

REPO = Path(__file__).resolve().parents[2]
FIXTURE_SESSIONS = sorted(
    path
    for path in glob.glob(str(REPO / "tests" / "fixtures" / "**" / "*.jsonl"), recursive=True)
    if Path(path).read_bytes().startswith(b'{"type":"session"')
)


# ---------------------------------------------------------------------- helpers


def _pi_sessions(*argv: str, cwd: Path, agent: Path, check: int | None = 0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), paths.ENV_AGENT_DIR: str(agent), "HOME": str(agent.parent)}
    env.pop(paths.ENV_SESSION_DIR, None)
    env.pop("PGPASSWORD", None)
    done = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "sessions", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    if check is not None:
        assert done.returncode == check, (done.stdout, done.stderr)
    return done


def _header(path: str | Path) -> dict[str, Any]:
    return dict(json.loads(Path(path).read_bytes().split(b"\n", 1)[0]))


def _host(root: Path, url: str, *, script: list[dict[str, Any]] | None = None, args: tuple[str, ...] = ()) -> PiProcess:
    """One "machine": pi with its own agent dir under ``root``, the same session dir and cwd
    paths as every other host (a fleet is configured alike), sessions on ``url``."""
    shared = root.parent / "shared"
    (shared / "cwd").mkdir(parents=True, exist_ok=True)
    proc = start_in(
        root,
        script=script,
        args=("--session-store", "postgres", "--session-db", url, "--session-dir", str(shared / "sessions"), *args),
    )
    proc.ok("get_state", timeout=30)  # up (a loaded machine may take a while to start it)
    return proc


def _stored(url: str, session_id: str) -> list[dict[str, Any]]:
    import psycopg

    with psycopg.connect(url) as conn:
        header = conn.execute("SELECT header FROM pi.sessions WHERE id = %s", (session_id,)).fetchone()
        assert header is not None
        lines = [
            line
            for (line,) in conn.execute("SELECT line FROM pi.entries WHERE session_id = %s ORDER BY seq", (session_id,))
        ]
    return [json.loads(line) for line in (header[0], *lines)]


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


# ---------------------------------------------------------------------- locators (no server)


def test_locators_name_the_server_never_a_credential() -> None:
    from pi_rpc.session.postgres_locator import (
        canonical,
        make_locator,
        parse_locator,
        redact,
        target_from_conninfo,
    )

    target = target_from_conninfo(f"postgresql://pi:{PASSWORD}@db.example:6543/fleet?sslmode=require")
    assert target.password == PASSWORD
    assert make_locator(target, "abc") == "postgres://db.example:6543/fleet#abc"
    assert make_locator(target_from_conninfo("host=/run/pg dbname=pi user=x password=y"), "i") == (
        "postgres://%2Frun%2Fpg/pi#i"
    )
    assert make_locator(target_from_conninfo("postgresql://u@h/d"), "i") == "postgres://h/d#i"  # 5432 left out
    assert parse_locator("postgres://h:5433/d#a#b") == (("h", 5433, "d"), "a#b")
    assert canonical("postgres://h:5432/d#x") == "postgres://h/d#x"
    with pytest.raises(ValueError) as refused:
        parse_locator(f"postgres://pi:{PASSWORD}@h/d#x")
    assert PASSWORD not in str(refused.value)
    for bad in ("postgres://h/d", "postgres:///d#x", "postgres://h#x"):
        with pytest.raises(ValueError):
            parse_locator(bad)
    assert PASSWORD not in redact(f"postgresql://pi:{PASSWORD}@h/d and password={PASSWORD}")


def test_rpc_startup_does_not_import_psycopg(tmp_path: Path) -> None:
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('psycopg', 'psycopg_pool') or m in ('pi_rpc.session.postgres_store', 'pi_rpc.session.postgres_locator'))))\n"
        "from pi_rpc.cli import main\n"
        "main(['--mode', 'rpc'])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), paths.ENV_AGENT_DIR: str(tmp_path / "agent"), "PI_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        input='{"type":"get_state","id":"1"}\n',
    )
    assert "LOADED []" in done.stdout + done.stderr, (done.stdout, done.stderr)


# ---------------------------------------------------------------------- in process


def test_schema_created_with_its_version_and_a_newer_one_refused(postgres_empty_url: str, tmp_path: Path) -> None:
    postgres_url = postgres_empty_url
    import psycopg

    from pi_rpc.session.backends import postgres_backend
    from pi_rpc.session.manager import SessionManager
    from pi_rpc.session.postgres_store import SCHEMA_VERSION, SessionDatabaseError

    backend = postgres_backend(postgres_url)
    m = SessionManager.create(str(tmp_path), str(tmp_path / "s"), backend=backend)
    m.append_message(_user("hello"))
    locator = m.session_file
    assert locator is not None and locator.startswith("postgres://127.0.0.1:") and PASSWORD not in locator
    m.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert conn.execute("SELECT application, version FROM pi.meta").fetchall() == [
            ("pi_rpc sessions", SCHEMA_VERSION)
        ]
        indexes = {name for (name,) in conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'pi'")}
        assert {"texts_trgm", "sessions_named_trgm", "sessions_by_dir_modified"} <= indexes
        conn.execute("UPDATE pi.meta SET version = 99")
    backend.close()
    with pytest.raises(SessionDatabaseError) as refused:
        SessionManager.open(locator)
    assert "written by a newer pi (schema 99, this one reads 1)" in str(refused.value)
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # and nothing was written to it
        assert conn.execute("SELECT version FROM pi.meta").fetchone() == (99,)
        conn.execute("UPDATE pi.meta SET version = %s", (SCHEMA_VERSION,))


def test_text_query_is_exact_and_uses_the_trigram_index(postgres_url: str, tmp_path: Path) -> None:
    import psycopg

    from pi_rpc.session.backends import postgres_backend
    from pi_rpc.session.manager import SessionManager

    backend = postgres_backend(postgres_url)
    folder = str(tmp_path / "s")
    made = {}
    for n, text in enumerate(["Grüße aus KÖLN", "nothing here", "100% sure_thing", "straße"]):
        m = SessionManager.create(str(tmp_path), folder, backend=backend)
        m.append_message(_user(text))
        if n == 1:
            m.append_session_info("Named Köln trip")
        made[text] = m.session_id
        m.close()

    def found(query: str) -> set[str]:
        return {info.id for info in backend.query_sessions(folder, query=query, limit=50)}

    assert found("köln") == {made["Grüße aus KÖLN"], made["nothing here"]}  # text or name
    assert found("% s") == {made["100% sure_thing"]}  # LIKE's wildcards are plain characters
    assert found("e_t") == {made["100% sure_thing"]}
    assert found("STRASSE") == {made["straße"]}  # casefolded as SessionInfo.matches folds
    assert found("zzz") == set()
    assert found("öl") == {made["Grüße aus KÖLN"], made["nothing here"]}  # short: the walk
    from pi_rpc.session import postgres_store

    cap = postgres_store.CANDIDATE_CAP
    postgres_store.CANDIDATE_CAP = 0  # every needle "common": the walk answers the same
    try:
        assert found("köln") == {made["Grüße aus KÖLN"], made["nothing here"]}
        assert found("STRASSE") == {made["straße"]} and found("e_t") == {made["100% sure_thing"]}
    finally:
        postgres_store.CANDIDATE_CAP = cap
    assert len(backend.query_sessions(folder, limit=2)) == 2
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")  # a tiny table: ask whether the index CAN serve it
        plan = "\n".join(
            row[0] for row in conn.execute("EXPLAIN SELECT session_id FROM pi.texts WHERE folded LIKE '%köln%'")
        )
    assert "texts_trgm" in plan, plan


def test_a_batch_whose_commit_answer_was_lost_is_not_written_twice(postgres_url: str, tmp_path: Path) -> None:
    """A retry after a lost answer: the batch is found stored (same position, same ids and
    lines) and not written again; a batch that differs is appended after what is there."""
    from pi_rpc.session.backends import postgres_backend
    from pi_rpc.session.manager import SessionManager
    from pi_rpc.session.postgres_store import PostgresSessionStore, _row_of
    from pi_rpc.session.store_rows import summary_values

    m = SessionManager.create(str(tmp_path), str(tmp_path / "s"), backend=postgres_backend(postgres_url))
    m.append_message(_user("first"))
    store = m._store
    assert isinstance(store, PostgresSessionStore) and store._summary is not None
    known = store._stored_seq
    rows = [_row_of({"type": "custom", "id": f"x{n}", "parentId": None, "data": n}) for n in range(3)]
    values = summary_values(store._summary, 1)
    assert store._store_items(rows, values, known) == known + 3  # committed...
    assert store._store_items(rows, values, known) == known + 3  # ...and retried: found, not doubled
    more = [*rows, _row_of({"type": "custom", "id": "x3", "parentId": None, "data": 3})]
    assert store._store_items(more, values, known) == known + 4  # the rest of a longer backlog
    ids = [e["id"] for e in _stored(postgres_url, m.session_id)[1:]]
    assert ids[-4:] == ["x0", "x1", "x2", "x3"] and len(ids) == len(set(ids))
    m.close()


def test_libpq_environment_alone_names_the_database(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No conninfo at all: PGHOST, PGPORT, PGDATABASE, PGUSER and PGPASSWORD are libpq's."""
    from psycopg.conninfo import conninfo_to_dict

    from pi_rpc.runtime.options import session_backend
    from pi_rpc.session.manager import SessionManager

    parts = conninfo_to_dict(postgres_url)
    for key, name in (("host", "PGHOST"), ("port", "PGPORT"), ("dbname", "PGDATABASE"), ("user", "PGUSER")):
        monkeypatch.setenv(name, str(parts[key]))
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    from pi_rpc.config.settings import Settings

    settings = Settings(
        agent_dir=tmp_path,
        cwd=tmp_path,
        global_data={"sessionStore": "postgres"},
        project_data={},
        project_trusted=True,
    )
    backend = session_backend(settings, tmp_path, str(tmp_path))
    m = SessionManager.create(str(tmp_path), str(tmp_path / "s"), backend=backend)
    m.append_message(_user("from the environment"))
    assert m.session_file == f"postgres://127.0.0.1:{parts['port']}/{parts['dbname']}#{m.session_id}"
    m.close()
    assert _stored(postgres_url, m.session_id)[1]["message"]["content"][0]["text"] == "from the environment"


def test_pgservice_and_pgpass_are_honoured_by_a_pi_process(postgres_url: str, tmp_path: Path) -> None:
    """A service file names the server, ~/.pgpass holds the password: the URL has neither."""
    from psycopg.conninfo import conninfo_to_dict

    parts = conninfo_to_dict(postgres_url)
    root = tmp_path / "host"
    home = root / "home"
    home.mkdir(parents=True)
    service = tmp_path / "pg_service.conf"
    service.write_text(f"[pifleet]\nhost={parts['host']}\nport={parts['port']}\ndbname={parts['dbname']}\nuser=pi\n")
    pgpass = home / ".pgpass"
    pgpass.write_text(f"{parts['host']}:{parts['port']}:{parts['dbname']}:pi:{PASSWORD}\n")
    pgpass.chmod(0o600)
    (root / "cwd").mkdir(parents=True)
    p = start_in(
        root,
        args=("--session-store", "postgres", "--session-db", "service=pifleet"),
        env={"PGSERVICEFILE": str(service)},
    )
    p.ok("get_state", timeout=30)
    p.cmd("prompt", message="via service and pgpass")
    p.settle()
    state = p.ok("get_state")
    assert state["sessionFile"] == f"postgres://127.0.0.1:{parts['port']}/{parts['dbname']}#{state['sessionId']}"
    assert not [r for r in p.since(0) if is_event("session_write_error")(r)], p.stderr
    stored = _stored(postgres_url, state["sessionId"])
    assert [
        e["message"]["content"][0]["text"]
        for e in stored
        if e.get("type") == "message" and e["message"]["role"] == "user"
    ] == ["via service and pgpass"]


# ---------------------------------------------------------------------- pi sessions import | export


def test_import_export_by_url_is_byte_identical_and_prints_no_password(postgres_url: str, tmp_path: Path) -> None:
    assert len(FIXTURE_SESSIONS) >= 9
    agent = tmp_path / "agent"
    by_id: dict[str, list[str]] = defaultdict(list)
    for path in FIXTURE_SESSIONS:
        by_id[str(_header(path)["id"])].append(path)
    batch = [copies[0] for copies in by_id.values()]
    shown = postgres_url.replace(f"pi:{PASSWORD}@", "").replace("postgresql://", "postgres://")
    done = _pi_sessions("import", "--db", postgres_url, *batch, cwd=tmp_path, agent=agent)
    assert [line.split(" from ")[0] for line in done.stdout.splitlines()] == [
        f"imported {_header(source)['id']}" for source in batch
    ]
    again = _pi_sessions("import", "--db", postgres_url, batch[0], cwd=tmp_path, agent=agent)
    assert again.stdout == f"skipped {_header(batch[0])['id']} from {batch[0]}: already in {shown}\n"
    out = tmp_path / "out"
    done = _pi_sessions("export", "--db", postgres_url, "--out", str(out), cwd=tmp_path, agent=agent)
    exported = {p.name: p.read_bytes() for p in out.rglob("*.jsonl")}
    assert len(exported) == len(batch)
    for source in batch:
        data = Path(source).read_bytes()
        assert data in exported.values(), source
    # Errors name the database without its password.
    bad = _pi_sessions(
        "export",
        "--db",
        postgres_url.rsplit("/", 1)[0] + "/nosuchdb",
        "--out",
        str(out),
        cwd=tmp_path,
        agent=agent,
        check=1,
    )
    assert bad.stderr.startswith("error: postgres://127.0.0.1:") and "nosuchdb" in bad.stderr
    wrong = _pi_sessions(
        "import", "--db", postgres_url.replace(PASSWORD, PASSWORD + "x"), batch[0], cwd=tmp_path, agent=agent, check=1
    )
    assert "password authentication failed" in wrong.stderr
    for text in (done.stdout, done.stderr, again.stdout, bad.stderr, wrong.stderr):
        assert PASSWORD not in text


# ---------------------------------------------------------------------- two hosts, one database


def test_second_host_refused_with_holder_named_then_takes_over_after_sigkill(postgres_url: str, tmp_path: Path) -> None:
    first = _host(tmp_path / "host-a", postgres_url)
    first.cmd("prompt", message="first question")
    first.settle()
    first.cmd("prompt", message="second question")
    first.settle()
    state = first.ok("get_state")
    locator = state["sessionFile"]
    reported = [e["id"] for e in first.ok("get_entries")["entries"]]
    assert locator.startswith("postgres://") and len(reported) >= 4

    second = _host(tmp_path / "host-b", postgres_url)
    listed = second.ok("list_sessions", scope="all")["sessions"]
    assert [s["path"] for s in listed] == [locator]  # the other host's session, listed here
    refused = second.cmd("switch_session", sessionPath=locator)
    assert refused["success"] is False
    assert refused["error"] == (
        f"Session file is in use by another pi process (pid {first.popen.pid} on {socket.gethostname()}): {locator}"
    )

    first.popen.send_signal(signal.SIGKILL)
    first.popen.wait(10)
    deadline = time.monotonic() + 10
    while True:  # the server notices the dead connection and drops its lock
        reply = second.cmd("switch_session", sessionPath=locator)
        if reply["success"] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert reply["success"] is True, reply
    n = len(reported)
    assert [e["id"] for e in second.ok("get_entries")["entries"]][:n] == reported  # every reported entry
    second.cmd("prompt", message="third question from host b")
    second.settle()
    final = [e["id"] for e in second.ok("get_entries")["entries"]]
    stored = _stored(postgres_url, state["sessionId"])
    assert [e["id"] for e in stored[1:]] == final and final[:n] == reported and len(final) >= n + 2
    assert len(set(final)) == len(final)
    # A third host names the session by an id prefix (--session), as with files.
    second.popen.send_signal(signal.SIGKILL)
    second.popen.wait(10)
    third = _host(tmp_path / "host-c", postgres_url, args=("--session", state["sessionId"][:13]))
    assert third.ok("get_state", timeout=30)["sessionFile"] == locator
    assert [e["id"] for e in third.ok("get_entries")["entries"]] == [e["id"] for e in stored[1:]]


# ---------------------------------------------------------------------- writes off the loop


def test_a_write_waiting_on_the_database_does_not_block_the_server(postgres_url: str, tmp_path: Path) -> None:
    import psycopg

    p = _host(tmp_path / "host", postgres_url)
    p.cmd("prompt", message="first")
    p.settle()
    session_id = p.ok("get_state")["sessionId"]
    written = len(_stored(postgres_url, session_id))
    blocker = psycopg.connect(postgres_url)
    try:
        # Another transaction holds the session's row: the next commit waits for it.
        blocker.execute("SELECT 1 FROM pi.sessions WHERE id = %s FOR UPDATE", (session_id,))
        mark = p.mark()
        p.request("prompt", message="second")
        p.wait_for(is_event("message_start"), start=mark)  # the user message was accepted
        # The loop still serves commands while that write waits.
        state = p.ok("get_state")
        assert state["sessionId"] == session_id
        # (and the write is still waiting: nothing of the second prompt is stored yet)
        stored_now = blocker.execute("SELECT count(*) FROM pi.entries WHERE session_id = %s", (session_id,))
        assert stored_now.fetchone() == (written - 1,)
        blocker.rollback()  # let the write through
        p.settle()
    finally:
        blocker.close()
    # The run may have ended while its write still waited (the faux model answers at once): the
    # writer commits after the lock is gone, so the entries are looked for until they are there.
    roles: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        stored = _stored(postgres_url, session_id)
        roles = [
            e["message"]["role"] for e in stored[1:] if e["type"] == "message" and e["message"]["role"] != "system"
        ]
        if len(roles) >= 4:
            break
        time.sleep(0.1)
    assert roles == ["user", "assistant", "user", "assistant"]
    assert not [r for r in p.since(0) if is_event("session_write_error")(r)]


# ---------------------------------------------------------------------- the server goes away


SLOW_RUN: list[dict[str, Any]] = [
    {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 2; echo one"}, "id": "c1"}]},
    {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 2; echo two"}, "id": "c2"}]},
    {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 2; echo three"}, "id": "c3"}]},
    {"text": "done with all three", "delayMs": 20},
]


@pytest.mark.skipif(find_binaries() is None, reason="no PostgreSQL server binaries")
def test_server_stopped_10s_during_a_prompt_loses_and_doubles_nothing(tmp_path: Path) -> None:
    server = PostgresServer().start()  # (a root of its own: the postgres user must reach it)
    try:
        url = server.url()
        # The run as it goes without a fault.
        calm = _host(tmp_path / "calm", url, script=SLOW_RUN)
        calm.cmd("prompt", message="go")
        calm.settle(timeout=60)
        calm_kinds = [k for k in kinds(calm.since(0)) if not k.startswith("response")]

        p = _host(tmp_path / "faulty", url, script=SLOW_RUN)
        mark = p.mark()
        p.request("prompt", message="go")
        p.wait_for(lambda r: is_event("tool_execution_start")(r), start=mark, timeout=30)
        server.stop()  # mid-run: the next entries cannot be written
        stopped = threading.Event()

        def restart() -> None:
            time.sleep(10)
            server.start()
            stopped.set()

        threading.Thread(target=restart, daemon=True).start()
        error = p.wait_for(is_event("session_write_error"), start=mark, timeout=30)
        assert error["pendingEntries"] >= 1 and PASSWORD not in json.dumps(error)
        assert stopped.wait(40)
        p.wait_for(is_event("session_write_resumed"), start=mark, timeout=30)
        p.settle(timeout=60)
        records = p.since(mark)
        faulty_kinds = [
            k
            for k in kinds(records)
            if not k.startswith("response") and k not in ("session_write_error", "session_write_resumed")
        ]
        assert faulty_kinds == calm_kinds
        entries = p.ok("get_entries")["entries"]
        session_id = p.ok("get_state")["sessionId"]
        stored = _stored(url, session_id)
        assert [e["id"] for e in stored[1:]] == [e["id"] for e in entries]  # nothing lost, in order
        assert len({e["id"] for e in stored[1:]}) == len(stored) - 1  # nothing doubled
        resumed = [r for r in records if is_event("session_write_resumed")(r)]
        assert sum(r["writtenEntries"] for r in resumed) >= error["pendingEntries"]
        assert PASSWORD not in p.stderr
    finally:
        server.destroy()


# ---------------------------------------------------------------------- the password stays secret


def test_a_password_in_the_url_never_comes_out(postgres_url: str, tmp_path: Path) -> None:
    p = _host(tmp_path / "host", postgres_url)
    p.cmd("prompt", message="hello")
    p.settle()
    state = p.ok("get_state")
    listed = p.ok("list_sessions", scope="all")
    html = tmp_path / "page.html"
    p.ok("export_html", outputPath=str(html))
    fork = p.ok("fork", entryId=p.ok("get_fork_messages")["messages"][0]["entryId"])
    p.cmd("prompt", message="after the fork")
    p.settle()
    forked = p.ok("get_state")
    # A database that refuses: the error names it without the password.
    bad = _host(tmp_path / "bad", postgres_url.replace(PASSWORD, "wrong-password"))
    bad.cmd("prompt", message="hello")
    bad.settle()
    error = bad.wait_for(is_event("session_write_error"))
    assert "password authentication failed" in error["error"]
    agent_files = b"".join(
        f.read_bytes() for f in (tmp_path).rglob("*") if f.is_file() and "pg" not in f.parts and f.suffix != ".html"
    )
    everything = "\n".join(
        [
            json.dumps([state, listed, fork, forked]),
            b"\n".join(p.raw).decode("utf-8", "replace"),
            p.stderr,
            bad.stderr,
            json.dumps(bad.since(0)),
            html.read_text(),
            agent_files.decode("utf-8", "replace"),
        ]
    )
    assert state["sessionFile"].startswith("postgres://127.0.0.1:")
    assert forked["sessionFile"] != state["sessionFile"]
    assert PASSWORD not in everything
    stored = _stored(postgres_url, forked["sessionId"])
    assert stored[0]["parentSession"] == state["sessionFile"]  # a locator, no credential
    assert PASSWORD not in json.dumps(stored)


def test_import_refuses_fifos_and_devices_as_the_sqlite_import_does(postgres_url: str, tmp_path: Path) -> None:
    """One reader for every database's import (``transfer.readable_sources``): a FIFO or a
    device is an error line, never read and never a traceback."""
    fifo = tmp_path / "stuck.jsonl"
    os.mkfifo(fifo)
    done = _pi_sessions(
        "import", "--db", postgres_url, str(fifo), "/dev/zero", cwd=tmp_path, agent=tmp_path / "agent", check=1
    )
    assert f"error: {fifo}: not a regular file (a FIFO)" in done.stderr
    assert "error: /dev/zero: not a regular file (a character device)" in done.stderr
    assert "Traceback" not in done.stderr
