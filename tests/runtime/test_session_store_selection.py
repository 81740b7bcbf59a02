"""Choosing the session store (``sessionStore``/``sessionDatabase`` settings, ``--session-store``
and ``--session-db`` flags) and using the SQLite one through every way a session is named: the
locator ``sqlite:<real db path>#<id>`` reported by ``get_state``, accepted by ``--session``,
``--fork``, ``switch_session`` and ``export_html``/``--export``; an id or id prefix with
``--session``/``--fork``; ``--continue`` and ``--session-id``. Real subprocesses throughout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pi_rpc.session.sqlite_store import integrity_check
from tests.support.in_process import start_in_process
from tests.support.pi_process import PiProcess
from tests.support.session_stores import is_stored, stored_lines


def _prompt(p: PiProcess, text: str) -> None:
    mark = p.mark()
    assert p.cmd("prompt", message=text)["success"] is True
    p.settle(mark, timeout=30)


def _locator(db: Path, session_id: str) -> str:
    return f"sqlite:{os.path.realpath(db)}#{session_id}"


def _jsonl_under(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


def test_the_setting_selects_the_database_and_nothing_else_is_written(pi) -> None:
    p = pi(settings={"sessionStore": "sqlite"}, script=[{"text": "stored in the database"}])
    before = p.ok("get_state")
    db = p.agent_dir / "sessions.db"
    assert before["sessionFile"] == _locator(db, before["sessionId"])
    assert not db.exists()  # the same deferral as a file: nothing before the first message
    _prompt(p, "hello")
    state = p.ok("get_state")
    assert state["sessionFile"] == before["sessionFile"] and is_stored(state["sessionFile"])
    assert [e["type"] for e in stored_lines(state["sessionFile"])][:2] == ["session", "model_change"]
    assert p.close() == 0
    assert _jsonl_under(p.root) == [] and not (p.agent_dir / "sessions").exists()
    assert (db.stat().st_mode & 0o777) == 0o600
    assert integrity_check(str(db)) == "ok"


def test_flags_win_over_settings_and_session_dir_does_not_move_the_database(pi, tmp_path: Path) -> None:
    chosen = tmp_path / "chosen.db"
    # settings say sqlite at one path; --session-db names another
    p = pi(
        settings={"sessionStore": "sqlite", "sessionDatabase": str(tmp_path / "from-settings.db")},
        args=("--session-db", str(chosen)),
    )
    assert p.ok("get_state")["sessionFile"].startswith(f"sqlite:{chosen}#")
    p.close()
    # the sessionDatabase setting, relative to the cwd
    p = pi(settings={"sessionStore": "sqlite", "sessionDatabase": "rel/here.db"})
    assert p.ok("get_state")["sessionFile"].startswith(f"sqlite:{os.path.realpath(p.cwd / 'rel' / 'here.db')}#")
    p.close()
    # settings say sqlite, the flag says jsonl
    p = pi(settings={"sessionStore": "sqlite"}, args=("--session-store", "jsonl"), script=[{"text": "a"}])
    _prompt(p, "q")
    assert p.ok("get_state")["sessionFile"].endswith(".jsonl")
    p.close()
    # --session-dir scopes listings but the database stays <agentDir>/sessions.db
    p = pi(args=("--session-store", "sqlite", "--session-dir", "flat"), script=[{"text": "a"}])
    _prompt(p, "in the flat dir")
    live = p.ok("get_state")["sessionFile"]
    assert live == _locator(p.agent_dir / "sessions.db", p.ok("get_state")["sessionId"])
    assert [s["path"] for s in p.ok("list_sessions")["sessions"]] == [live]
    assert p.close() == 0
    assert _jsonl_under(p.root) == [] and not (p.cwd / "flat").exists()


def test_invalid_store_names(pi, pi_process) -> None:
    p = pi(settings={"sessionStore": "mongo"}, script=[{"text": "a"}])
    _prompt(p, "q")
    assert p.ok("get_state")["sessionFile"].endswith(".jsonl")
    p.close()
    assert "invalid sessionStore 'mongo' in settings (expected jsonl, sqlite or postgres); using jsonl" in p.stderr
    bad = pi_process(args=("--session-store", "csv"))  # a process that fails to start
    assert bad.wait() != 0
    assert 'Invalid --session-store "csv". Valid values: jsonl, sqlite, postgres' in bad.stderr


def test_locators_ids_and_prefixes_on_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    flags = ("--session-store", "sqlite", "--session-db", str(db))
    started: list[PiProcess] = []

    def pi(**kwargs: Any) -> PiProcess:  # one after the other, in one agent dir and cwd
        started.append(start_in_process(tmp_path / "home", **kwargs))
        return started[-1]

    try:
        _command_line_lookups(pi, db, flags, tmp_path)
    finally:
        for p in started:
            p.kill()


def _command_line_lookups(pi: Any, db: Path, flags: tuple[str, ...], tmp_path: Path) -> None:
    first = pi(args=flags, script=[{"text": "answer one"}, {"text": "answer two"}])
    _prompt(first, "question one")
    _prompt(first, "question two")
    state = first.ok("get_state")
    messages = first.ok("get_messages")["messages"]
    assert first.close() == 0
    locator, session_id = state["sessionFile"], state["sessionId"]

    for named in (locator, f"sqlite:{tmp_path}/./shared.db#{session_id}", session_id, session_id[:12]):
        again = pi(args=(*flags, "--session", named))
        assert again.ok("get_state")["sessionFile"] == locator, named
        assert again.ok("get_messages")["messages"] == messages
        assert again.close() == 0
    # a locator is accepted whatever store is selected: it names its own database
    by_locator = pi(args=("--session", locator))
    assert by_locator.ok("get_state")["sessionFile"] == locator
    by_locator.close()

    fork = pi(args=(*flags, "--fork", session_id[:12]))
    fork_state = fork.ok("get_state")
    assert fork_state["sessionFile"].startswith(f"sqlite:{db}#") and fork_state["sessionId"] != session_id
    assert stored_lines(fork_state["sessionFile"])[0]["parentSession"] == locator
    assert fork.ok("get_messages")["messages"] == messages
    assert fork.close() == 0

    cont = pi(args=(*flags, "--continue"))
    assert cont.ok("get_state")["sessionFile"] == fork_state["sessionFile"]  # written last
    cont.close()
    by_id = pi(args=(*flags, "--session-id", session_id))
    assert by_id.ok("get_state")["sessionFile"] == locator
    by_id.close()
    missing = pi(args=(*flags, "--session", "no-such-session"))
    assert missing.wait() != 0 and "No session found matching 'no-such-session'" in missing.stderr
    assert integrity_check(str(db)) == "ok"
    assert _jsonl_under(tmp_path) == []


def test_two_processes_on_one_database(pi_process, tmp_path: Path) -> None:
    """Different sessions run concurrently; the same session is refused to a second writer."""
    pi = pi_process  # two real processes on one file
    db = tmp_path / "shared.db"
    flags = ("--session-store", "sqlite", "--session-db", str(db))
    script = [{"text": f"reply {i} " * 30, "chunkChars": 7, "delayMs": 1} for i in range(6)]
    a, b = pi(args=flags, script=script), pi(args=flags, script=script)
    marks = {a: a.mark(), b: b.mark()}
    for i in range(3):  # interleaved runs: both stream at the same time
        for p in (a, b):
            assert p.cmd("prompt", message=f"q{i} from {p.pid}")["success"] is True
        for p in (a, b):
            p.settle(marks[p], timeout=30)
            marks[p] = p.mark()
    a_file, b_file = a.ok("get_state")["sessionFile"], b.ok("get_state")["sessionFile"]
    assert a_file != b_file
    for p, locator in ((a, a_file), (b, b_file)):
        stored = [e["message"] for e in stored_lines(locator) if e.get("type") == "message"]
        assert stored == p.ok("get_messages")["messages"]
    # b may not take a's session while a has it open
    refused = b.cmd("switch_session", sessionPath=a_file)
    assert refused["success"] is False and f"pid {a.pid}" in refused["error"]
    third = pi(args=(*flags, "--session", a_file))
    assert third.wait() != 0 and f"pid {a.pid}" in third.stderr
    assert a.close() == 0
    assert b.ok("switch_session", sessionPath=a_file) == {"cancelled": False}  # free now
    assert b.ok("get_state")["sessionFile"] == a_file
    assert b.close() == 0
    assert integrity_check(str(db)) == "ok"


def test_export_of_a_database_session(pi, tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    p = pi(args=("--session-store", "sqlite"), script=[{"text": "Exported <answer>"}])
    _prompt(p, "hello")
    state = p.ok("get_state")
    expected = f"pi-session-{state['sessionId']}.html"
    assert p.ok("export_html") == {"path": expected}
    assert "Exported &lt;answer&gt;" in (p.cwd / expected).read_text()
    assert p.close() == 0
    # ``pi --export`` (the command line's entry point, in this process) with a bare environment
    from pi_rpc.cli import main

    for name in [k for k in os.environ if k.startswith("PI_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "page.html"
    capsys.readouterr()
    assert main(["--export", state["sessionFile"], str(out)]) == 0, capsys.readouterr().err
    assert "Exported &lt;answer&gt;" in out.read_text()
    capsys.readouterr()
    assert main(["--export", state["sessionFile"] + "-nope"]) == 1
    assert "File not found" in capsys.readouterr().err
