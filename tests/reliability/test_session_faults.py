"""Session-file faults in the real process: a full disk (``RLIMIT_FSIZE``, lowered on the
running process with ``prlimit``) and a read-only session directory. The process keeps
serving, reports the fault (``session_write_error``), never leaves a torn or altered line in
what was written, and writes everything it held back once the fault is gone
(``session_write_resumed``); the file then reloads with every message."""

from __future__ import annotations

import json
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.pi_process import PiProcess, is_event

Start = Callable[..., PiProcess]
SCRIPT = [
    {"text": "first answer"},
    {"text": "calling a tool", "toolCalls": [{"name": "bash", "arguments": {"command": "echo tool output"}}]},
    {"text": "second answer after the tool"},
    {"text": "third answer"},
    {"text": "after the fork"},
]


def _prompt(p: PiProcess, text: str) -> None:
    mark = p.mark()
    assert p.cmd("prompt", message=text)["success"] is True
    p.settle(mark, timeout=30)


def _lines(path: str) -> list[bytes]:
    data = Path(path).read_bytes()
    assert data.endswith(b"\n")
    lines = data[:-1].split(b"\n")
    for line in lines:
        json.loads(line)  # every line whole
    return lines


def _reloaded_messages(pi: Start, session_file: str) -> list[dict[str, Any]]:
    q = pi(args=("--session", session_file), script=[])
    messages = q.ok("get_messages")["messages"]
    assert q.close() == 0
    return messages


def test_disk_full_midrun_then_resumes(pi: Start) -> None:
    p = pi(script=SCRIPT)
    _prompt(p, "one")
    session_file = p.ok("get_state")["sessionFile"]
    before = Path(session_file).read_bytes()
    # The disk "fills": the next append can write a few bytes, then EFBIG (not SIGXFSZ).
    soft, hard = resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE)
    resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE, (len(before) + 7, hard))
    mark = p.mark()
    _prompt(p, "two")  # a run with a tool call: several entries, none of which fit
    error = p.wait_for(is_event("session_write_error"), start=mark)
    assert error["sessionFile"] == session_file and "EFBIG" in error["error"] and error["pendingEntries"] >= 1
    assert Path(session_file).read_bytes() == before  # the partial write was cut back off
    state = p.ok("get_state")  # still serving, memory has everything
    assert state["messageCount"] == 7  # system, one, answer, two, tool call, tool result, answer
    _prompt(p, "three")
    assert Path(session_file).read_bytes() == before
    live = p.ok("get_messages")["messages"]
    # The fault is gone: the background retry writes the backlog, in order.
    resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE, (soft, hard))
    resumed = p.wait_for(is_event("session_write_resumed"), start=mark, timeout=30)
    assert resumed["sessionFile"] == session_file and resumed["writtenEntries"] >= 5
    assert Path(session_file).read_bytes().startswith(before)
    _lines(session_file)
    assert p.close() == 0
    assert "Traceback" not in p.stderr
    assert _reloaded_messages(pi, session_file) == live


def test_read_only_session_dir_then_resumes(pi: Start, read_only_dir: Callable[[Path, bool], None]) -> None:
    p = pi(script=SCRIPT, args=("--session-dir", "sessions"))
    sessions = p.cwd / "sessions"
    _prompt(p, "one")
    first_file = p.ok("get_state")["sessionFile"]
    first_bytes = Path(first_file).read_bytes()
    assert p.ok("new_session") == {"cancelled": False}
    second_file = p.ok("get_state")["sessionFile"]
    read_only_dir(sessions, True)
    mark = p.mark()
    _prompt(p, "two")  # the new file cannot be created
    error = p.wait_for(is_event("session_write_error"), start=mark)
    assert error["sessionFile"] == second_file and error["pendingEntries"] >= 3
    assert not Path(second_file).exists()
    # Everything else keeps working, including a fork whose copy cannot be written either.
    entries = p.ok("get_fork_messages")["messages"]
    fork = p.cmd("fork", entryId=entries[0]["entryId"])
    assert fork["success"] is True
    fork_file = p.ok("get_state")["sessionFile"]
    _prompt(p, "after fork")
    live = p.ok("get_messages")["messages"]
    read_only_dir(sessions, False)
    resumed = p.wait_for(is_event("session_write_resumed", sessionFile=fork_file), start=mark, timeout=30)
    assert resumed["writtenEntries"] >= 3
    p.wait_for(is_event("session_write_resumed", sessionFile=second_file), start=mark, timeout=30)
    assert Path(first_file).read_bytes() == first_bytes  # untouched throughout
    _lines(fork_file)
    assert p.close() == 0
    assert "Traceback" not in p.stderr
    assert _reloaded_messages(pi, fork_file) == live
    # The second session was replaced by the fork during the fault: it was kept and
    # written too once the directory became writable again.
    assert any(r.get("type") == "session_write_resumed" and r["sessionFile"] == second_file for r in p.records)
    second = _reloaded_messages(pi, second_file)
    assert [m["role"] for m in second] == ["system", "user", "assistant", "toolResult", "assistant"]


@pytest.mark.parametrize("fault", ["disk_full", "read_only"])
def test_fault_reported_once_per_episode(pi: Start, fault: str, read_only_dir: Callable[[Path, bool], None]) -> None:
    p = pi(script=[{"text": f"answer {i}"} for i in range(6)], args=("--session-dir", "sessions"))
    _prompt(p, "warm up")
    session_file = p.ok("get_state")["sessionFile"]
    if fault == "disk_full":
        size = Path(session_file).stat().st_size
        resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
    else:
        # An existing open file stays writable in a read-only dir; the single-writer lock
        # and new files do not. Switch to a new session so the next entries need a new file.
        p.ok("new_session")
        session_file = p.ok("get_state")["sessionFile"]
        read_only_dir(p.cwd / "sessions", True)
    mark = p.mark()
    for i in range(3):
        _prompt(p, f"prompt {i}")
    errors = [r for r in p.since(mark) if r.get("type") == "session_write_error"]
    assert len(errors) == 1  # one report per fault, not one per entry
    if fault == "disk_full":
        resource.prlimit(p.popen.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    else:
        read_only_dir(p.cwd / "sessions", False)
    p.wait_for(is_event("session_write_resumed"), start=mark, timeout=30)
    live = p.ok("get_messages")["messages"]
    assert p.close() == 0
    assert _reloaded_messages(pi, session_file) == live
