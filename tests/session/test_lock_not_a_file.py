"""A session's lock file that is a FIFO or a device (issue 31: the lock files had no part of
the FIFO/device refusal the rest of the store has): taking the lock is refused with a clear
``SessionLockFileError`` naming it, asking who holds it never blocks (a FIFO opened for reading
waits for a writer), and over RPC ``switch_session``, ``rename_session`` and ``delete_session``
of such a session answer ``success:false`` with that message while the process keeps serving."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.session.errors import SessionError, SessionLockFileError
from pi_rpc.session.lock import SessionLock, holder_pid
from tests.support.pi_process import PiProcess

Start = Callable[..., PiProcess]


def _special(path: Path, kind: str) -> str:
    """``path`` made a FIFO, or a link to a character device; the kind a refusal names."""
    if kind == "fifo":
        os.mkfifo(path)
        return "a FIFO"
    path.symlink_to("/dev/null")
    return "a character device"


def _bounded(fn: Callable[[], Any], fifo: Path) -> Any:
    """``fn()`` in a thread; a call still blocked after a few seconds fails the test (and a
    writer is opened on the FIFO so the thread ends)."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(5)
    if thread.is_alive():
        if fifo.is_fifo():
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
        pytest.fail("blocked on the lock file")
    if "error" in out:
        raise out["error"]
    return out.get("value")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_lock_file_that_is_not_a_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    session = tmp_path / "s.jsonl"
    lock = tmp_path / "s.jsonl.lock"
    what = _special(lock, kind)
    with pytest.raises(SessionLockFileError) as caught:
        _bounded(SessionLock(str(session)).acquire, lock)
    assert str(caught.value) == f"Session lock file is not a regular file ({what}): {lock}"
    assert isinstance(caught.value, SessionError)
    assert _bounded(lambda: holder_pid(str(session)), lock) is None  # nobody holds a FIFO's lock
    assert os.path.lexists(lock) and (lock.is_fifo() if kind == "fifo" else lock.is_symlink())  # left alone


@pytest.mark.parametrize("store", ["jsonl", "sqlite"])
def test_over_rpc_switching_to_a_session_whose_lock_file_is_a_fifo_is_refused(
    pi: Start, tmp_path: Path, store: str
) -> None:
    db = tmp_path / "sessions.db"
    args = ("--session-store", "sqlite", "--session-db", str(db)) if store == "sqlite" else ()
    p = pi(script=[{"text": "an answer"}], args=args)
    mark = p.mark()
    p.ok("prompt", message="one")
    p.settle(mark, timeout=30)
    stored = p.ok("get_state")["sessionFile"]
    p.ok("new_session")
    if store == "sqlite":
        from pi_rpc.session.sqlite_store import lock_path_for, parse_locator

        lock = Path(lock_path_for(*parse_locator(stored)))
    else:
        lock = Path(stored + ".lock")
    os.mkfifo(lock)
    for command, extra in (("switch_session", {}), ("rename_session", {"name": "x"}), ("delete_session", {})):
        answer = p.cmd(command, timeout=30, sessionPath=stored, **extra)
        assert answer["success"] is False, (command, answer)
        assert answer["error"] == f"Session lock file is not a regular file (a FIFO): {lock}", (command, answer)
    assert lock.is_fifo()
    assert any(s["path"] == stored for s in p.ok("list_sessions")["sessions"])  # not deleted
    assert p.ok("get_state")["sessionFile"] != stored  # still serving, on its own session
    assert p.close() == 0
    assert "Traceback" not in p.stderr
