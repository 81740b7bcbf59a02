"""Single writer across processes, stale-lock recovery, and kill -9 in the middle of appends
(real child processes), on both session backends (a file, a session of a database)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from pi_rpc.session import SessionLockedError, SessionManager
from pi_rpc.session.backends import backend_for, is_sqlite_locator
from pi_rpc.session.sqlite_store import integrity_check, lock_path_for, parse_locator
from tests.support.session_stores import StoreKind, stored_bytes


@pytest.fixture(params=("jsonl", "sqlite"))
def store_kind(request: pytest.FixtureRequest, tmp_path: Path) -> StoreKind:
    """The file lock's stores (the PostgreSQL writer lock, an advisory lock on the server, is
    tested across processes and hosts in tests/session/test_postgres_store.py)."""
    return StoreKind(request.param, tmp_path)


REPO = Path(__file__).resolve().parents[2]

HOLDER = textwrap.dedent("""
    import sys
    from pi_rpc.session import SessionManager
    m = SessionManager.open(sys.argv[1])
    m.append_message({"role": "user", "content": [{"type": "text", "text": "child"}], "timestamp": 1})
    print("ready", flush=True)
    sys.stdin.read()
""")

APPENDER = textwrap.dedent("""
    import os, sys
    from pi_rpc.session import SessionManager
    path, ack = sys.argv[1], sys.argv[2]
    m = SessionManager.open(path)
    n = sum(1 for e in m.get_entries() if e["type"] == "message") - 1  # minus "start"
    ackfd = os.open(ack, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    pad = "x" * 3000  # lines of a few KB, like real tool results
    while True:
        m.append_message({"role": "user", "content": [{"type": "text", "text": f"{n}:{pad}"}], "timestamp": n})
        os.write(ackfd, f"{n}\\n".encode())
        n += 1
""")


def _spawn(code: str, *args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, **kw)


def holder_pid(locator: str) -> int | None:
    return backend_for(locator).holder_pid(locator)


def _lock_file(locator: str) -> str:
    return lock_path_for(*parse_locator(locator)) if is_sqlite_locator(locator) else locator + ".lock"


def _new_file(tmp_path: Path, kind: StoreKind) -> str:
    m = kind.create(tmp_path, tmp_path)
    m.append_model_change("p", "m")
    m.append_message({"role": "user", "content": [{"type": "text", "text": "start"}], "timestamp": 0})
    m.close()
    return m.session_file


def test_second_process_is_refused_with_holder_pid(tmp_path, store_kind: StoreKind):
    path = _new_file(tmp_path, store_kind)
    child = _spawn(HOLDER, path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        with pytest.raises(SessionLockedError) as err:
            SessionManager.open(path)
        assert err.value.pid == child.pid
        assert f"pid {child.pid}" in str(err.value) and path in str(err.value)
        assert holder_pid(path) == child.pid
        # Reading without writing is allowed while another process holds the lock.
        reader = SessionManager.open(path, read_only=True)
        assert len(reader.get_entries()) == 3
        reader.close()
        # The refused open left the holder's lock intact.
        with pytest.raises(SessionLockedError):
            SessionManager.open(path)
    finally:
        child.kill()
        child.wait()
    # The holder died without cleaning up: its flock is gone, its pid file is stale.
    assert os.path.exists(_lock_file(path)) and holder_pid(path) is None
    m = SessionManager.open(path)
    assert m.diagnostics == [f"recovered a stale lock left by pid {child.pid}"]
    m.append_message({"role": "user", "content": [], "timestamp": 2})
    m.close()
    assert not os.path.exists(_lock_file(path))  # a clean close removes the lock file


def test_child_refused_while_we_hold(tmp_path, store_kind: StoreKind):
    path = _new_file(tmp_path, store_kind)
    with SessionManager.open(path) as mine:
        mine.append_message({"role": "user", "content": [], "timestamp": 3})
        child = _spawn(
            HOLDER, path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        out, err = child.communicate(timeout=60)
        assert child.returncode != 0 and out == ""
        assert f"SessionLockedError: Session file is in use by another pi process (pid {os.getpid()})" in err


def test_same_process_managers_share_the_lock(tmp_path, store_kind: StoreKind):
    path = _new_file(tmp_path, store_kind)
    a = SessionManager.open(path)
    b = SessionManager.open(path)  # e.g. switch_session to the current file
    a.close()
    b.append_message({"role": "user", "content": [], "timestamp": 4})
    assert holder_pid(path) == os.getpid()
    b.close()
    assert holder_pid(path) is None


def test_kill_9_while_appending_loses_at_most_the_entry_in_flight(tmp_path, store_kind: StoreKind):
    path = _new_file(tmp_path, store_kind)
    ack = str(tmp_path / "acks")
    rng = random.Random(1234)
    acked_total = 0
    for _round in range(4):
        child = _spawn(APPENDER, path, ack)
        try:
            deadline = time.monotonic() + 60
            while not os.path.exists(ack) or os.path.getsize(ack) == 0 or open(ack).read().count("\n") <= acked_total:
                assert time.monotonic() < deadline and child.poll() is None
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.15))
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        acks = [int(x) for x in open(ack).read().split()]
        acked_total = len(acks)
        m = SessionManager.open(path)
        # Every line of the file is whole (a torn tail, if any, was moved aside).
        assert all("malformed" not in d for d in m.diagnostics), m.diagnostics
        counters = [
            int(e["message"]["content"][0]["text"].split(":")[0])
            for e in m.get_entries()
            if e["type"] == "message" and e["message"]["content"] and e["message"]["content"][0]["text"] != "start"
        ]
        assert counters == list(range(len(counters)))  # no gaps, no duplicates
        assert acks == list(range(len(acks)))
        # Acknowledged entries are all there; at most the one being written when killed is extra.
        assert len(acks) <= len(counters) <= len(acks) + 1
        chain = m.get_branch()
        assert chain[-1]["id"] == m.get_leaf_id() and len(chain) == len(m.get_entries())
        m.close()
        # Restart acks from what the file holds so the next round continues the sequence.
        with open(ack, "w") as f:
            f.write("".join(f"{i}\n" for i in range(len(counters))))
        acked_total = len(counters)
    data = stored_bytes(path)
    assert data is not None and all(orjson.loads(line) for line in data.split(b"\n") if line)
    if store_kind.sqlite:
        assert integrity_check(str(store_kind.db)) == "ok"
