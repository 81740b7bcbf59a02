"""Hostile session files against the real process (issue 31 items 6 and 7).

- A FIFO or a character device named as a session (``switch_session``, ``open_session``,
  ``--session``, ``pi sessions import``, a FIFO in the session folder a listing reads) is
  refused with a clear error at once: before, reading it blocked the process (a FIFO waits
  for a writer) or read until memory ran out (``/dev/zero``).
- A session file with an entry whose ``id`` or ``parentId`` is an array or a number stays
  usable: ``get_tree``, ``get_session_stats``, ``export_html``, ``navigate_tree`` and a
  prompt all answer (before: ``unhashable type: 'list'``, permanently), and ``pi sessions
  import`` stores it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.pi_process import PiProcess, is_event, isolated_env

Start = Callable[..., PiProcess]
TS = "2026-01-01T00:00:00.000Z"


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "cwd").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pi_rpc", *args],
        cwd=tmp_path / "cwd",
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_fifos_and_devices_are_refused_not_read(pi: Start, tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    p = pi()
    for path, kind in ((fifo, "a FIFO"), (Path("/dev/zero"), "a character device")):
        for command in ("switch_session", "open_session"):
            answer = p.cmd(command, timeout=30, sessionPath=str(path))
            assert answer["success"] is False
            assert answer["error"] == f"Session file is not a regular file ({kind}): {path}"
    # A FIFO named like a session in the folder a listing reads is not a session.
    folder = Path(p.ok("get_state")["sessionFile"]).parent
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "2026-01-01T00-00-00-000Z_stuck.jsonl")
    assert p.ok("list_sessions", timeout=30)["sessions"] == []
    assert p.ok("get_state")["isStreaming"] is False
    assert p.close() == 0
    assert "Traceback" not in p.stderr

    done = _cli(tmp_path, "sessions", "import", "--db", str(tmp_path / "s.db"), str(fifo), "/dev/zero")
    assert done.returncode == 1
    assert f"error: {fifo}: not a regular file (a FIFO)" in done.stderr
    assert "error: /dev/zero: not a regular file (a character device)" in done.stderr
    done = _cli(tmp_path, "--session", str(fifo), "--model", "faux/faux-1", "-p", "hi")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"Session file is not a regular file (a FIFO): {fifo}" in done.stderr


def _message(role: str, text: str) -> dict[str, object]:
    return {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}


def test_a_session_with_array_and_number_ids_stays_usable(pi: Start, tmp_path: Path) -> None:
    session = tmp_path / "hostile.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s-hostile", "timestamp": TS, "cwd": str(tmp_path)},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": TS, "message": _message("user", "first")},
        {"type": "message", "id": ["a"], "parentId": "a1", "timestamp": TS, "message": _message("assistant", "r")},
        {"type": "message", "id": "a3", "parentId": ["a"], "timestamp": TS, "message": _message("user", "second")},
        {"type": "message", "id": 5, "parentId": "a3", "timestamp": TS, "message": _message("assistant", "r2")},
        {"type": "label", "id": "l1", "parentId": 5, "timestamp": TS, "targetId": ["a"], "label": "x"},
    ]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    p = pi(script=[{"text": "after the odd entries"}], args=("--session", str(session)))
    tree = p.ok("get_tree")["tree"]
    # As upstream: the array id is a child of a1, the entry naming it by parentId is a root.
    assert [node["entry"]["id"] for node in tree] == ["a1", "a3"]
    assert tree[0]["children"][0]["entry"]["id"] == ["a"]
    assert p.ok("get_session_stats")["totalMessages"] == 4
    assert [m["content"][0]["text"] for m in p.ok("get_messages")["messages"]] == ["second", "r2"]
    assert p.ok("export_html", outputPath=str(tmp_path / "out.html"))["path"] == str(tmp_path / "out.html")
    # a3's parent names no entry: a3 is a root, so navigating to it starts a new root.
    assert p.ok("navigate_tree", targetId="a3") == {"cancelled": False, "editorText": "second"}
    mark = p.mark()
    assert p.cmd("prompt", message="go on")["success"] is True
    end = p.wait_for(is_event("agent_end"), start=mark, timeout=30)
    assert end["messages"][-1]["content"][0]["text"] == "after the odd entries"
    p.settle(mark, timeout=30)
    assert len(p.ok("get_tree")["tree"]) == 3
    assert p.ok("get_session_stats")["totalMessages"] == 7  # + the system prompt, user, assistant
    assert p.close() == 0
    assert "Traceback" not in p.stderr
    done = _cli(tmp_path, "sessions", "import", "--db", str(tmp_path / "s.db"), str(session))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("imported s-hostile from ")
