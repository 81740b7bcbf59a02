"""A session database whose write lock another process holds (issue 31 item 5): the session
whose write waits is the only one that waits. Its entries are written off the event loop
(``backlog``'s deferred writing), so every other session handle is answered while the lock is
held; and the waiting session's events go out only once its entries are in the database
(an entry accepted before an event or response is stored before that goes out).

The lock holder is a plain ``sqlite3`` process holding ``BEGIN IMMEDIATE``. Only order and
progress are asserted: ``get_state`` on another handle is answered while the lock is still
held and before the waiting session reports a write fault (before the fix the event loop
blocked for the busy timeout, so the fault came first)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.pi_process import PiProcess, is_event, is_response

Start = Callable[..., PiProcess]

HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
conn.close()
print("released", flush=True)
"""


def _stored_texts(db: Path) -> str:
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return "".join(line for (line,) in conn.execute("SELECT line FROM entries"))
    finally:
        conn.close()


def test_a_foreign_write_lock_stalls_only_the_session_that_writes(pi: Start, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    script = [{"text": "first answer"}, {"text": "second answer"}]
    p = pi(script=script, args=("--session-store", "sqlite", "--session-db", str(db)))
    mark = p.mark()
    p.ok("prompt", message="one")
    p.settle(mark, timeout=30)
    other = p.ok("open_session")["handle"]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "locked"
        mark = p.mark()
        p.send({"id": "p2", "type": "prompt", "message": "two"})
        # Several round trips on the other handle while the lock is held.
        for n in range(3):
            p.send({"id": f"g{n}", "type": "get_state", "handle": other})
            state = p.response(f"g{n}", timeout=30)
            assert state["success"] is True and state["data"]["isStreaming"] is False
        seen = p.since(mark)
        assert holder.poll() is None  # still holding the lock
        assert not any(is_event("session_write_error")(r) for r in seen), seen
        # The waiting session's user message is recorded at its message_end (upstream order)
        # and is not stored yet, so nothing after it went out: no assistant message began.
        assert any(r.get("type") == "message_end" and r.get("handle") is None for r in seen), seen
        assert not any(r.get("type") == "message_start" and r["message"].get("role") == "assistant" for r in seen), seen
        assert '"two"' not in _stored_texts(db)
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(10)
    p.wait_for(is_response("p2"), timeout=30)
    p.settle(mark, timeout=30)
    records = p.since(mark)
    assert not any(is_event("session_write_error")(r) for r in records)
    assert "two" in _stored_texts(db) and "second answer" in _stored_texts(db)
    assert p.close() == 0
    assert "Traceback" not in p.stderr
