"""Session handles used the hostile way (#31), against the real subprocess: another handle's
session cannot be renamed or deleted behind its back, a database session is one session by any
path to its database, a closed handle never writes again, and a run closed mid-stream still
ends with its own ``agent_end`` / ``agent_settled``."""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.pi_process import PiProcess, is_event
from tests.support.session_stores import StoreKind, stored_lines


def _settled(handle: str | None) -> Any:
    return lambda r: r.get("type") == "agent_settled" and r.get("handle") == handle


def _open(p: PiProcess, **fields: Any) -> str:
    return str(p.ok("open_session", **fields)["handle"])


def _prompt(p: PiProcess, text: str, handle: str | None = None) -> None:
    start = p.mark()
    fields: dict[str, Any] = {"message": text}
    if handle is not None:
        fields["handle"] = handle
    p.ok("prompt", **fields)
    p.wait_for(_settled(handle), start=start, timeout=30)


def _user_texts(locator: str) -> list[str]:
    return [
        block["text"]
        for line in stored_lines(locator)
        if line.get("type") == "message" and line["message"]["role"] == "user"
        for block in line["message"]["content"]
        if block.get("type") == "text"
    ]


# ------------------------------------------------------------------ item 1: rename / delete


def test_rename_and_delete_refuse_a_session_another_handle_has_open(pi, store_kind: StoreKind) -> None:
    p = store_kind.starter(pi)()
    a = _open(p)
    _prompt(p, "first words", handle=a)
    a_file = p.ok("get_state", handle=a)["sessionFile"]
    held = f'Session file is already open in session handle "{a}": {a_file}'
    # From "default" (and from a third handle): both refused, nothing changed.
    b = _open(p)
    for handle in (None, b):
        fields = {} if handle is None else {"handle": handle}
        deleted = p.cmd("delete_session", sessionPath=a_file, **fields)
        assert deleted["success"] is False and deleted["error"] == held
        renamed = p.cmd("rename_session", sessionPath=a_file, name="stolen", **fields)
        assert renamed["success"] is False and renamed["error"] == held
    # The owner still renames its own session (set_session_name), and keeps writing to it.
    p.ok("rename_session", sessionPath=a_file, name="mine", handle=a)
    _prompt(p, "second words", handle=a)
    assert _user_texts(a_file) == ["first words", "second words"]
    assert not any(line.get("name") == "stolen" for line in stored_lines(a_file))
    # Once it is closed, the session may be renamed and deleted.
    p.ok("close_session", handle=a)
    p.ok("rename_session", sessionPath=a_file, name="renamed later")
    p.ok("delete_session", sessionPath=a_file)


# ------------------------------------------------------------------ item 3: one database, many paths


# Paths to one database file (links, relative paths) and file-system faults: the file stores'.
@pytest.mark.parametrize("store_kind", ["jsonl", "sqlite"], indirect=True)
def test_a_database_session_is_one_session_by_any_path_to_its_database(pi, store_kind: StoreKind) -> None:
    p = store_kind.starter(pi)()
    _prompt(p, "hello")
    own = p.ok("get_state")["sessionFile"]
    held = f'Session file is already open in session handle "default": {own}'
    if store_kind.sqlite:
        session_id = own.rpartition("#")[2]
        link = p.root / "alias.db"
        link.symlink_to(store_kind.db)
        relative = os.path.relpath(store_kind.db, p.cwd)
        spellings = [
            f"sqlite:{link}#{session_id}",
            f"sqlite:{relative}#{session_id}",
            f"sqlite:./{relative}#{session_id}",
        ]
    else:
        link_dir = p.root / "alias-dir"
        link_dir.symlink_to(Path(own).parent)
        spellings = [str(link_dir / Path(own).name), os.path.relpath(own, p.cwd)]
    for spelled in spellings:
        opened = p.cmd("open_session", sessionPath=spelled)
        assert opened["success"] is False, (spelled, opened)
        if store_kind.sqlite:
            assert opened["error"] == held, opened["error"]  # the locator, not a mangled path
        else:
            assert 'already open in session handle "default"' in opened["error"]
    a = _open(p)
    for spelled in spellings:
        switched = p.cmd("switch_session", sessionPath=spelled, handle=a)
        assert switched["success"] is False, (spelled, switched)
        if store_kind.sqlite:
            assert switched["error"] == held
        deleted = p.cmd("delete_session", sessionPath=spelled, handle=a)
        assert deleted["success"] is False and 'already open in session handle "default"' in deleted["error"]
    assert [s["handle"] for s in p.ok("list_open_sessions")["sessions"]] == ["default", a]
    _prompt(p, "still mine")
    assert _user_texts(own) == ["hello", "still mine"]


# ------------------------------------------------------------------ item 12: close during a run


def test_close_session_during_a_run_emits_its_agent_end_and_settled_before_the_response(pi) -> None:
    p = pi(script=[{"match": "long", "text": "slow " * 200, "delayMs": 30, "chunkChars": 5}])
    a = _open(p)
    start = p.mark()
    p.ok("prompt", message="long answer please", handle=a)
    p.wait_for(is_event("message_update", handle=a), start=start)
    close_id = p.request("close_session", handle=a)
    response = p.response(close_id, timeout=20)
    assert response["success"] is True
    records = p.records[start : p.index_of(response)]
    tail = [r["type"] for r in records if r.get("handle") == a]
    assert "agent_end" in tail and tail[-1] == "agent_settled", tail[-6:]
    settled = [r for r in records if r.get("type") == "agent_settled" and r.get("handle") == a]
    assert len(settled) == 1 and settled[0]["aborted"] is True
    ends = [r for r in records if r.get("type") == "agent_end"]
    assert all(r.get("handle") == a for r in ends)
    # Nothing of it after the response.
    p.ok("get_state")
    assert not [r for r in p.records[p.index_of(response) + 1 :] if r.get("handle") == a]


# ------------------------------------------------------------------ item 2: a closed handle never writes


def _lock_free(lock_file: str) -> bool:
    """Nobody holds the flock on the sidecar (or it is gone)."""
    import fcntl

    try:
        fd = os.open(lock_file, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def test_a_closed_handle_stops_retrying_and_reports_what_it_could_not_write(pi) -> None:
    p = pi(script=[{"match": "one", "text": "first answer"}, {"match": "two", "text": "second answer " * 20}])
    a = _open(p)
    _prompt(p, "one", handle=a)
    a_file = p.ok("get_state", handle=a)["sessionFile"]
    before = Path(a_file).read_bytes()
    # The disk "fills" (RLIMIT_FSIZE on the running process): a's next entries are held.
    soft, hard = resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE)
    resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE, (len(before) + 7, hard))
    try:
        start = p.mark()
        _prompt(p, "two", handle=a)
        fault = p.wait_for(is_event("session_write_error", handle=a), start=start)
        assert fault["pendingEntries"] >= 1
        closed = p.cmd("close_session", handle=a, timeout=20)
        assert closed["success"] is True
        # Close says what is lost instead of writing it later.
        assert closed["data"]["unwrittenEntries"] >= 2
        assert closed["data"]["error"].startswith(f"Could not write session file {a_file}")
    finally:
        resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE, (soft, hard))
    # The fault is gone: past every retry interval, the closed handle has not touched the file
    # nor taken its lock again.
    time.sleep(3.0)
    assert Path(a_file).read_bytes() == before
    assert _lock_free(a_file + ".lock")
    # Another handle owns the file now; its turns stay, whatever the old handle remembered.
    b = _open(p, sessionPath=a_file)
    p.ok("get_state", handle=b)
    _prompt(p, "one again", handle=b)
    time.sleep(2.5)
    assert _user_texts(a_file) == ["one", "one again"]
    lines = Path(a_file).read_bytes()
    assert lines.startswith(before) and lines.count(b'"second answer') == 0


# ------------------------------------------------------------------ item 10: links and delete_session


def test_delete_session_refuses_links_into_the_sessions_directory(pi) -> None:
    p = pi()
    _prompt(p, "keep me")
    kept = p.ok("get_state")["sessionFile"]
    p.ok("new_session")  # the first session is not the current one any more
    outside = p.root / "outside-link.jsonl"
    outside.symlink_to(kept)
    refused = p.cmd("delete_session", sessionPath=str(outside))
    assert refused["success"] is False
    assert refused["error"].startswith(f"Cannot delete {outside}: it is outside the sessions directory ")
    inside = Path(kept).parent / "inside-link.jsonl"
    inside.symlink_to(kept)
    refused = p.cmd("delete_session", sessionPath=str(inside))
    assert refused == {
        **refused,
        "success": False,
        "error": f"Cannot delete {inside}: it is a symbolic link, not a session file",
    }
    assert outside.is_symlink() and inside.is_symlink() and Path(kept).is_file()
    p.ok("delete_session", sessionPath=kept)  # the file itself, by its own name
    assert not Path(kept).exists()


# ------------------------------------------------------------------ item 9: unknown ids in a database


def _rows(db: Path) -> list[tuple[str, str]]:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return sorted((row[0], json.loads(row[1])["id"]) for row in conn.execute("SELECT id, header FROM sessions"))
    finally:
        conn.close()


def test_switch_session_refuses_an_id_the_database_does_not_hold(pi, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    p = pi(args=("--session-store", "sqlite", "--session-db", str(db)))
    _prompt(p, "stored")
    own = p.ok("get_state")["sessionFile"]
    rows = _rows(db)
    listed = p.ok("list_sessions", scope="all")
    for session_id in ("%", "'; DROP TABLE sessions; --", "../x", "not-stored-yet"):
        locator = f"sqlite:{db}#{session_id}"
        refused = p.cmd("switch_session", sessionPath=locator)
        assert refused["success"] is False and refused["error"] == f"Session file not found: {locator}", refused
        assert p.ok("get_state")["sessionFile"] == own
    _prompt(p, "still here")
    assert [r[0] for r in _rows(db)] == [r[0] for r in rows]
    assert [s["path"] for s in p.ok("list_sessions", scope="all")["sessions"]] == [
        s["path"] for s in listed["sessions"]
    ]


def test_session_flag_creates_a_database_session_under_the_locator_id(pi, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    locator = f"sqlite:{db}#chosen-id"
    p = pi(args=("--session-store", "sqlite", "--session-db", str(db), "--session", locator))
    state = p.ok("get_state")
    assert state["sessionId"] == "chosen-id" and state["sessionFile"] == locator
    _prompt(p, "hello")
    assert _rows(db) == [("chosen-id", "chosen-id")]  # header id = locator id
    listed = p.ok("list_sessions")["sessions"]
    assert [(s["id"], s["path"]) for s in listed] == [("chosen-id", locator)]
    assert p.close() == 0
    bad = pi(args=("--session-store", "sqlite", "--session-db", str(db), "--session", f"sqlite:{db}#../x"))
    assert bad.wait() != 0 and f"Cannot create session sqlite:{db}#../x: Session id must be" in bad.stderr
    assert _rows(db) == [("chosen-id", "chosen-id")]


def _immutable(paths: list[str], on: bool) -> None:
    """``chattr +i``: even a descriptor open for writing is refused (EPERM), and so is a
    truncation: the fault the issue met (root only, where the file system supports it)."""
    import shutil
    import subprocess

    import pytest

    chattr = shutil.which("chattr")
    if os.geteuid() != 0 or chattr is None:
        pytest.skip("needs root and chattr to make a file immutable")
    for path in paths:
        if os.path.exists(path):
            done = subprocess.run([chattr, "+i" if on else "-i", path], capture_output=True)
            if done.returncode != 0 and on:
                pytest.skip(f"chattr failed: {done.stderr.decode(errors='replace').strip()}")


@pytest.mark.parametrize("store_kind", ["jsonl", "sqlite"], indirect=True)
def test_a_handle_closed_during_a_write_fault_never_writes_into_the_next_owners_session(
    pi, store_kind: StoreKind
) -> None:
    p = store_kind.starter(pi)(script=[{"text": "first answer"}, {"text": "held answer"}, {"text": "new owner"}])
    a = _open(p)
    _prompt(p, "one", handle=a)
    a_file = p.ok("get_state", handle=a)["sessionFile"]
    storage = [str(store_kind.db), f"{store_kind.db}-wal"] if store_kind.sqlite else [a_file]
    _immutable(storage, True)
    try:
        start = p.mark()
        _prompt(p, "two", handle=a)
        p.wait_for(is_event("session_write_error", handle=a), start=start)
        closed = p.cmd("close_session", handle=a, timeout=20)
        assert closed["success"] is True and closed["data"]["unwrittenEntries"] >= 1, closed
    finally:
        _immutable(storage, False)
    # The fault is gone; the session has a new owner at once, who writes a turn.
    b = _open(p, sessionPath=a_file)
    _prompt(p, "three", handle=b)
    time.sleep(3.0)  # past every retry interval of the closed handle's store
    _prompt(p, "four", handle=b)
    assert _user_texts(a_file) == ["one", "three", "four"]
    assert p.ok("close_session", handle=b) is None
