"""The SQLite session store in the real process (``--session-store sqlite``): a read-only
database directory is reported with the same ``session_write_error`` /
``session_write_resumed`` events as files, the process keeps serving and writes what it held
once the fault is gone; and SIGKILL at random moments of prompts, forks and compactions
leaves a database that opens, passes ``PRAGMA integrity_check`` and holds every entry a
response had shown (only the entry being written may be missing)."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_rpc.session.manager import SessionManager
from pi_rpc.session.sqlite_store import integrity_check
from tests.support.pi_process import OURS, PiProcess, RecordTimeout, StdoutClosed, is_event, isolated_env
from tests.support.session_stores import stored_lines

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


def test_read_only_database_directory_then_resumes(
    pi: Start, tmp_path: Path, read_only_dir: Callable[[Path, bool], None]
) -> None:
    dbdir = tmp_path / "db"
    dbdir.mkdir()
    db = dbdir / "sessions.db"
    flags = ("--session-store", "sqlite", "--session-db", str(db))
    p = pi(script=SCRIPT, args=flags)
    _prompt(p, "one")
    first = p.ok("get_state")["sessionFile"]
    first_lines = stored_lines(first)
    assert p.ok("new_session") == {"cancelled": False}
    second = p.ok("get_state")["sessionFile"]
    read_only_dir(dbdir, True)  # neither the session's lock file nor the WAL can be created
    mark = p.mark()
    _prompt(p, "two")
    error = p.wait_for(is_event("session_write_error"), start=mark)
    assert error["sessionFile"] == second and error["pendingEntries"] >= 3
    assert error["error"].startswith(f"Could not write session {second}: ")
    # Everything else keeps working, including a fork whose copy cannot be written either.
    entries = p.ok("get_fork_messages")["messages"]
    forked = p.cmd("fork", entryId=entries[0]["entryId"])
    assert forked["success"] is True, (forked.get("error"), p.stderr[-2000:])
    fork = p.ok("get_state")["sessionFile"]
    _prompt(p, "after fork")
    live = p.ok("get_messages")["messages"]
    errors = [r for r in p.since(mark) if r.get("type") == "session_write_error"]
    assert len({r["sessionFile"] for r in errors}) == len(errors)  # once per session and fault
    read_only_dir(dbdir, False)
    resumed = p.wait_for(is_event("session_write_resumed", sessionFile=fork), start=mark, timeout=30)
    assert resumed["writtenEntries"] >= 3
    p.wait_for(is_event("session_write_resumed", sessionFile=second), start=mark, timeout=30)
    assert p.close() == 0
    assert "Traceback" not in p.stderr
    assert stored_lines(first) == first_lines  # untouched throughout
    assert stored_lines(fork)[0]["parentSession"] == second
    again = pi(args=(*flags, "--session", fork))
    assert again.ok("get_messages")["messages"] == live
    assert again.close() == 0
    assert integrity_check(str(db)) == "ok"


# ------------------------------------------------------------------------------ SIGKILL

BUSY_SCRIPT = [
    {
        "text": "Let me look. " * 20,
        "chunkChars": 8,
        "delayMs": 1,
        "toolCalls": [{"name": "bash", "arguments": {"command": "echo step; sleep 0.02"}}],
    },
    {"text": "Done with this one. " * 20, "chunkChars": 8, "delayMs": 1},
]
SUMMARY = {"text": "SUMMARY OF THE WORK SO FAR " * 5, "chunkChars": 8, "delayMs": 1, "match": "<conversation>"}


def _snapshot(pi: PiProcess, n: int) -> tuple[str, list[dict[str, Any]]] | None:
    """The live session's locator and the entries a response has shown for it."""
    if not (pi.try_send({"id": f"s{n}", "type": "get_state"}) and pi.try_send({"id": f"e{n}", "type": "get_entries"})):
        return None
    state, entries = pi.response(f"s{n}", timeout=30), pi.response(f"e{n}", timeout=30)
    if not (state.get("success") and entries.get("success")):
        return None
    return state["data"]["sessionFile"], entries["data"]["entries"]


def _command(pi: PiProcess, n: int, command: dict[str, Any]) -> bool:
    """Send and wait for the response; whether the command succeeded."""
    if not pi.try_send({"id": f"c{n}", **command}):
        raise StdoutClosed("stdin closed")
    return pi.response(f"c{n}", timeout=60).get("success") is True


def _one_kill(root: Path, rng: random.Random, kill_at: int) -> dict[str, Any]:
    """Prompts, renames, compactions (every 4th step) and forks (every 5th) until a SIGKILL at
    a random moment of step ``kill_at`` (counted in steps, not seconds, so a slow machine
    still gets there); then check every session a response had shown."""
    root.mkdir(parents=True)
    (root / "cwd").mkdir()
    (root / "agent").mkdir()
    (root / "agent" / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 10}}))
    (root / "script.json").write_text(json.dumps([SUMMARY] * 10 + BUSY_SCRIPT * 30))
    db = root / "sessions.db"
    pi = PiProcess(
        [*OURS, "--mode", "rpc", "--session-store", "sqlite", "--session-db", str(db)],
        isolated_env(root, {"PI_FAUX_SCRIPT": str(root / "script.json")}),
        root / "cwd",
        lenient=True,
    )
    shown: dict[str, list[dict[str, Any]]] = {}
    done = {"compactions": 0, "forks": 0}
    delay = rng.uniform(0.0, 0.8)
    killer = threading.Timer(delay, pi.popen.kill)
    n = 0
    try:
        while pi.popen.poll() is None:
            n += 1
            if n == kill_at:
                killer.start()
            if not pi.try_send({"id": f"p{n}", "type": "prompt", "message": f"prompt {n}"}):
                break
            pi.wait_for_next("agent_settled", timeout=60)
            if n % 3 == 0:
                _command(pi, n, {"type": "set_session_name", "name": f"name {n}"})
            if n % 4 == 0:
                done["compactions"] += _command(pi, n, {"type": "compact"})
            if n % 5 == 0:
                pi.try_send({"id": f"f{n}", "type": "get_fork_messages"})
                messages = pi.response(f"f{n}", timeout=30).get("data", {}).get("messages") or []
                if messages:
                    done["forks"] += _command(pi, n, {"type": "fork", "entryId": rng.choice(messages)["entryId"]})
            snap = _snapshot(pi, n)
            if snap is not None:
                shown[snap[0]] = snap[1]
    except (StdoutClosed, RecordTimeout):
        pass
    finally:
        killer.cancel()
        pi.kill()
    pi.close()
    result = {"delay": delay, "sessions": 0, "entries": 0, **done}
    if not db.exists():
        assert not any(_conversation(entries) for entries in shown.values()), "shown but no database"
        return result
    assert integrity_check(str(db)) == "ok"
    for locator, entries in shown.items():
        if not _conversation(entries):
            continue  # not stored yet: the same deferral as a file's first write
        manager = SessionManager.open(locator, read_only=True)  # the database opens
        try:
            stored = {e["id"]: e for e in manager.get_entries()}
            missing = [e["id"] for e in entries if stored.get(e["id"]) != e]
            assert not missing, f"{len(missing)} shown entries of {locator} are missing"
            assert all(e.get("parentId") in (None, *stored) for e in stored.values())  # one tree
        finally:
            manager.close()
        result["sessions"] += 1
        result["entries"] += len(entries)
    return result


def _conversation(entries: list[dict[str, Any]]) -> bool:
    return any(e["type"] == "message" and e["message"].get("role") in ("user", "assistant") for e in entries)


def test_sigkill_during_prompts_forks_and_compactions(tmp_path: Path) -> None:
    rng = random.Random(23)
    results = [_one_kill(tmp_path / f"i{i}", rng, kill_at) for i, kill_at in enumerate((2, 4, 5, 9))]
    assert sum(r["sessions"] for r in results) >= 2
    assert sum(r["entries"] for r in results) > 0
    # the kills landed among compactions and forks, not only plain prompts
    assert sum(r["compactions"] for r in results) >= 1 and sum(r["forks"] for r in results) >= 1, results
