"""Clear errors instead of leaks of internals (issue 31 item 11), against the real process:
a NUL or a lone surrogate in ``sessionPath``, a ``list_sessions`` query with a NUL on the
SQLite store (found as the JSONL store finds it), an unknown 900 kB handle, a session id no
file name can hold, and ``--max-sessions`` beyond what a JSON number holds. Each answer is
the documented message, quoting at most ``pi_rpc.errors.ECHO_MAX_CHARS`` characters of the
client's input; the process keeps serving and writes no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pi_rpc.errors import ECHO_MAX_CHARS
from tests.support.pi_process import PiProcess, isolated_env

Start = Callable[..., PiProcess]


def test_session_paths_with_nul_or_lone_surrogates(pi: Start, tmp_path: Path) -> None:
    p = pi()
    other = p.ok("open_session")["handle"]  # other handles are open (the host compares paths)
    nul = str(tmp_path / "a\u0000b.jsonl")
    replaced = str(tmp_path / "x\ufffdy.jsonl")
    for command in ("switch_session", "open_session"):
        answer = p.cmd(command, sessionPath=nul)
        assert answer["success"] is False
        assert answer["error"] == f"Invalid session path (it contains a NUL character): {nul!r}"
    # A lone surrogate is U+FFFD in the file system, as node makes it (protocol §8.22).
    lone = str(tmp_path / "x\ud800y.jsonl")
    # (sent as JSON escapes: the client's string holds the lone surrogate)
    p.write(json.dumps({"id": "lone", "type": "open_session", "sessionPath": lone}).encode() + b"\n")
    opened = p.response("lone")
    assert opened["success"] is True, opened
    data = opened["data"]
    assert data["sessionFile"] == replaced
    p.write(json.dumps({"id": "again", "type": "switch_session", "sessionPath": lone}).encode() + b"\n")
    answer = p.response("again")
    assert answer["success"] is False
    assert answer["error"] == (f'Session file is already open in session handle "{data["handle"]}": {replaced}')
    p.write(json.dumps({"id": "own", "type": "switch_session", "sessionPath": lone, "handle": data["handle"]}).encode())
    p.write(b"\n")
    assert p.response("own")["data"] == {"cancelled": False}
    assert p.ok("get_state", handle=other)["isStreaming"] is False
    assert p.close() == 0
    assert "Traceback" not in p.stderr and "codec" not in p.stderr


def test_a_huge_unknown_handle_is_not_echoed_whole(pi: Start) -> None:
    p = pi()
    handle = "h" * 900_000
    answer = p.cmd("get_state", handle=handle)
    assert answer["success"] is False
    quoted = "h" * ECHO_MAX_CHARS + f"… ({900_000 - ECHO_MAX_CHARS} more characters)"
    assert answer["error"] == (
        f'Unknown session handle "{quoted}" (open_session returns handles; list_open_sessions lists them)'
    )
    assert p.close() == 0


def test_a_session_id_no_file_name_can_hold(pi: Start, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    p = pi(args=("--session-store", "sqlite", "--session-db", str(db)))
    long_id = "y" * 10_000
    # A database locator naming such an id: its lock file name is hashed, nothing too long.
    answer = p.cmd("switch_session", sessionPath=f"sqlite:{db}#{long_id}")
    assert "File name too long" not in str(answer.get("error")), answer
    assert p.close() == 0
    assert "Traceback" not in p.stderr
    done = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "--session", long_id, "-p", "hi"],
        cwd=tmp_path,
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and long_id not in done.stderr
    assert "No session found matching 'yyyy" in done.stderr and "(9800 more characters)" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "--session-id", long_id, "--model", "faux/faux-1", "-p", "hi"],
        cwd=tmp_path,
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith("Error: Session id is too long (10000 characters, at most 200)")


def test_a_nul_query_finds_the_session_on_both_stores(pi: Start, tmp_path: Path) -> None:
    for args in ((), ("--session-store", "sqlite", "--session-db", str(tmp_path / "s.db"))):
        p = pi(script=[{"text": "answer"}], args=args)
        mark = p.mark()
        p.ok("prompt", message="find me: a\u0000b here")
        p.settle(mark, timeout=30)
        found = p.ok("list_sessions", query="a\u0000b")["sessions"]
        assert [s["id"] for s in found] == [p.ok("get_state")["sessionId"]], args
        assert p.ok("list_sessions", query="a\u0000c")["sessions"] == []
        assert p.close() == 0
        assert "Traceback" not in p.stderr


@pytest.mark.parametrize(
    ("value", "error"), [("99999999999999999999", "at most 100000"), ("0", "expected a positive integer")]
)
def test_max_sessions_beyond_a_json_number(tmp_path: Path, value: str, error: str) -> None:
    (tmp_path / "cwd").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--max-sessions", value],
        cwd=tmp_path / "cwd",
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )
    assert done.returncode == 1
    assert f'Error: Invalid --max-sessions "{value}": {error}' in done.stderr
    assert "1e+20" not in done.stderr and "1e20" not in done.stderr
