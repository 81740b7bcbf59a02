"""Another application's SQLite database named as the session database (issue 31 item 8),
and paths that are not databases at all (item 11): ``--session-db``, a ``sqlite:`` locator,
``pi sessions import|export --db`` and ``--export`` refuse with a clear message and change
nothing: the foreign file's bytes are the same, no ``-wal``/``-shm`` or lock file appears
next to it, no traceback. Over RPC a database that turns foreign after startup is a write
fault: the prompt still ends with ``agent_end``, after a ``session_write_error`` naming it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.pi_process import REPO_ROOT, PiProcess, is_event, isolated_env

Start = Callable[..., PiProcess]


def _foreign(path: Path, *, wal: bool) -> bytes:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT)")
    conn.execute("INSERT INTO accounts (owner) VALUES ('someone else')")
    conn.commit()
    conn.close()
    return path.read_bytes()


def _untouched(path: Path, before: bytes) -> None:
    assert path.read_bytes() == before
    strays = sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name) and p != path)
    assert strays == []


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    env = isolated_env(tmp_path)
    return subprocess.run(
        [sys.executable, "-m", "pi_rpc", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("wal", [False, True], ids=["rollback", "wal"])
def test_the_cli_refuses_a_foreign_database_unchanged(tmp_path: Path, wal: bool) -> None:
    db = tmp_path / "other-app.db"
    before = _foreign(db, wal=wal)
    (tmp_path / "one.jsonl").write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
    )
    runs = [
        _run(tmp_path, "sessions", "export", "--db", str(db), "--out", str(tmp_path / "out")),
        _run(tmp_path, "sessions", "import", "--db", str(db), str(tmp_path / "one.jsonl")),
        _run(tmp_path, "--model", "faux/faux-1", "--session-store", "sqlite", "--session-db", str(db), "-p", "hi"),
        _run(tmp_path, "--mode", "rpc", "--session-store", "sqlite", "--session-db", str(db)),
        _run(tmp_path, "--export", f"sqlite:{db}#s1", str(tmp_path / "out.html")),
    ]
    for done in runs:
        assert done.returncode == 1, (done.args, done.stderr)
        assert "Traceback" not in done.stderr
        assert f"Session database {db}: not a pi session database" in done.stderr, done.stderr
    assert runs[0].stderr.startswith("error: ") and runs[1].stderr.startswith("error: ")
    _untouched(db, before)


def test_paths_that_are_not_databases_get_a_clear_error(tmp_path: Path) -> None:
    directory = tmp_path / "a-directory.db"
    directory.mkdir()
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/sh\n")
    for args, reason in [
        (("sessions", "export", "--db", str(directory), "--out", str(tmp_path / "out")), "is a directory"),
        (("--session-store", "sqlite", "--session-db", str(directory), "-p", "hi"), "is a directory"),
        (("--export", f"sqlite:{text}#x"), "not a pi session database (not an SQLite database)"),
        (("--export", f"sqlite:{directory}#x"), "is a directory"),
    ]:
        done = _run(tmp_path, *args)
        assert done.returncode == 1, (args, done.stderr)
        assert "Traceback" not in done.stderr and "disk I/O error" not in done.stderr, done.stderr
        assert reason in done.stderr, (args, done.stderr)
    assert text.read_text() == "root:x:0:0:root:/root:/bin/sh\n"
    assert os.listdir(directory) == []


def test_over_rpc_a_foreign_database_is_refused_and_the_prompt_still_ends(pi: Start, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    p = pi(script=[{"text": "an answer"}], args=("--session-store", "sqlite", "--session-db", str(db)))
    # A locator naming another application's database: refused, nothing changed.
    other = tmp_path / "other-app.db"
    before_other = _foreign(other, wal=True)
    for command, field in (("switch_session", "sessionPath"), ("open_session", "sessionPath")):
        answer = p.cmd(command, **{field: f"sqlite:{other}#s1"})
        assert answer["success"] is False
        assert answer["error"] == f"Session database {other}: not a pi session database"
    _untouched(other, before_other)
    # The session database is replaced by a foreign one after startup, before the first write.
    before = _foreign(db, wal=False)
    mark = p.mark()
    assert p.cmd("prompt", message="hello")["success"] is True
    error = p.wait_for(is_event("session_write_error"), start=mark, timeout=30)
    assert error["error"].endswith(f"Session database {db}: not a pi session database")
    p.wait_for(is_event("agent_end"), start=mark, timeout=30)
    p.settle(mark, timeout=30)
    assert p.ok("get_state")["isStreaming"] is False  # still serving
    assert p.close() == 0
    assert "Traceback" not in p.stderr
    _untouched(db, before)


def test_a_pi_database_still_opens_after_the_check(tmp_path: Path) -> None:
    """The check reads our own database (WAL, header maybe only in the WAL) as ours."""
    code = (
        "from pi_rpc.session.sqlite_store import SqliteSessionStore, check_database\n"
        "from pi_rpc.session.entries import make_header, message_entry\n"
        "import sys\n"
        "s = SqliteSessionStore(sys.argv[1], 's1')\n"
        "m = {'role': 'user', 'content': 'x', 'timestamp': 1}\n"
        "assert s.create(make_header('s1', '2026-01-01T00:00:00.000Z', '/w'),"
        " [message_entry('a', None, '2026-01-01T00:00:00.000Z', m)])\n"
        "check_database(sys.argv[1])\n"
        "s.close()\n"
        "check_database(sys.argv[1])\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.db")], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.stdout.strip() == "ok", done.stderr
