"""``pi sessions import`` / ``pi sessions export`` through the real CLI (a subprocess per
command): JSONL -> SQLite -> JSONL byte-identical on every session file of the fixtures
(written by upstream pi 1.6) and on sessions our JSONL store writes, files named and
foldered as the JSONL store names them, what is skipped and why, errors and exit codes, the
default database, and that ``pi --mode rpc`` does not import any of it."""

from __future__ import annotations

import glob
import json
import os
import sqlite3
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from pi_rpc.config import paths
from pi_rpc.session.jsonl_store import JsonlSessionStore
from pi_rpc.session.listing import list_sessions
from pi_rpc.session.lock import SessionLock
from pi_rpc.session.manager import SessionManager
from pi_rpc.session.sqlite_store import (
    SqliteBackend,
    SqliteSessionStore,
    integrity_check,
    lock_path_for,
    make_locator,
)

REPO = Path(__file__).resolve().parents[2]
FIXTURE_SESSIONS = sorted(
    path
    for path in glob.glob(str(REPO / "tests" / "fixtures" / "**" / "*.jsonl"), recursive=True)
    if Path(path).read_bytes().startswith(b'{"type":"session"')
)


def _pi(*argv: str, cwd: Path, agent: Path, check: int | None = 0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), paths.ENV_AGENT_DIR: str(agent), "HOME": str(agent.parent)}
    env.pop(paths.ENV_SESSION_DIR, None)
    done = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "sessions", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    if check is not None:
        assert done.returncode == check, (done.stdout, done.stderr)
    return done


def _header(path: str | Path) -> dict[str, object]:
    return dict(json.loads(Path(path).read_bytes().split(b"\n", 1)[0]))


def _expected_path(out: Path, source: str | Path, run_cwd: Path) -> Path:
    """Where the JSONL store names the session under the sessions root ``out``."""
    header = _header(source)
    cwd = str(header["cwd"])
    folder = paths.encode_cwd(cwd if os.path.isabs(cwd) else os.path.join(run_cwd, cwd))
    name = f"{str(header['timestamp']).replace(':', '-').replace('.', '-')}_{header['id']}.jsonl"
    return out / folder / name


def test_fixture_sessions_exist() -> None:
    # The round trip below must cover upstream-written files, including the non-ASCII one.
    assert len(FIXTURE_SESSIONS) >= 9
    assert any("sessions-upstream" in path for path in FIXTURE_SESSIONS)


def test_round_trip_is_byte_identical_on_every_fixture_session(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    by_id: dict[str, list[str]] = defaultdict(list)
    for path in FIXTURE_SESSIONS:
        by_id[str(_header(path)["id"])].append(path)
    # Copies of one session (same id) go to separate databases: a database holds an id once.
    rounds = max(len(paths_) for paths_ in by_id.values())
    for n in range(rounds):
        batch = [paths_[n] for paths_ in by_id.values() if len(paths_) > n]
        db = tmp_path / f"round{n}.db"
        out = tmp_path / f"out{n}"
        done = _pi("import", "--db", str(db), *batch, cwd=tmp_path, agent=agent)
        lines = done.stdout.splitlines()
        assert len(lines) == len(batch)
        for line, source in zip(lines, batch, strict=True):
            assert line == f"imported {_header(source)['id']} from {source}"
        assert integrity_check(str(db)) == "ok"
        done = _pi("export", "--db", str(db), "--out", str(out), cwd=tmp_path, agent=agent)
        assert len(done.stdout.splitlines()) == len(batch)
        for source in batch:
            exported = _expected_path(out, source, tmp_path)
            assert exported.read_bytes() == Path(source).read_bytes(), source
            assert f"exported {_header(source)['id']} to {exported}" in done.stdout
            # Upstream named its files as the JSONL store does.
            if "sessions" in Path(source).parent.name:
                assert exported.name == Path(source).name
        assert sorted(p for p in out.rglob("*") if p.is_file()) == sorted(
            _expected_path(out, source, tmp_path) for source in batch
        )


def _write_sessions(agent: Path, cwd: Path) -> list[str]:
    """Sessions written by our JSONL store under the default sessions root: a long one with
    a name, non-ASCII, a fork; an empty one (header only)."""
    session_dir = str(paths.default_session_dir(agent, cwd))
    os.makedirs(session_dir, exist_ok=True)
    manager = SessionManager.create(str(cwd), session_dir)
    for n in range(5):
        manager.append_message({"role": "user", "content": f"question {n} — ünï \u2028 😀", "timestamp": 1000 + n})
        manager.append_message(
            {"role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}], "timestamp": 2000.5 + n}
        )
    manager.append_session_info("  Named ✓ ")
    first = manager.get_entries()[0]["id"]
    fork = manager.create_branched_session(str(first), "at")
    manager.close()
    files = sorted(glob.glob(os.path.join(session_dir, "*.jsonl")))
    assert len(files) >= 2, fork
    return files


def test_sessions_written_by_the_jsonl_store_come_back_under_the_same_names(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    cwd = tmp_path / "project"
    cwd.mkdir()
    files = _write_sessions(agent, cwd)
    root = paths.sessions_root(agent)
    db = tmp_path / "s.db"
    done = _pi("import", "--db", str(db), str(root), cwd=cwd, agent=agent)
    assert sorted(done.stdout.splitlines()) == sorted(f"imported {_header(f)['id']} from {f}" for f in files)
    out = tmp_path / "out"
    _pi("export", "--db", str(db), "--out", str(out), cwd=cwd, agent=agent)
    for path in files:
        again = out / Path(path).relative_to(root)
        assert again.read_bytes() == Path(path).read_bytes()
        assert again.stat().st_mode & 0o777 == 0o600
        # The last write's time is kept (``--continue`` picks by mtime).
        assert again.stat().st_mtime_ns // 1_000_000 == Path(path).stat().st_mtime_ns // 1_000_000
    # Listed under the session directory pi uses for that cwd, as the JSONL listing lists it.
    session_dir = str(paths.default_session_dir(agent, cwd))
    from_db = SqliteBackend(str(db)).list_sessions(session_dir)
    from_files = list_sessions(session_dir)
    assert [(i.id, i.name, i.message_count, i.first_message, i.modified) for i in from_db] == [
        (i.id, i.name, i.message_count, i.first_message, i.modified) for i in from_files
    ]
    # A second import says each one is there already and changes nothing.
    done = _pi("import", "--db", str(db), str(root), cwd=cwd, agent=agent)
    assert sorted(done.stdout.splitlines()) == sorted(
        f"skipped {_header(f)['id']} from {f}: already in {db}" for f in files
    )
    # Exporting onto the same files again: identical bytes, skipped.
    done = _pi("export", "--db", str(db), "--out", str(out), cwd=cwd, agent=agent)
    assert all(
        line.startswith("skipped ") and line.endswith("already exported (same bytes)")
        for line in done.stdout.splitlines()
    )


def test_imported_sessions_open_and_take_appends(tmp_path: Path) -> None:
    source = next(p for p in FIXTURE_SESSIONS if "sessions-upstream" in p)
    db = tmp_path / "s.db"
    _pi("import", "--db", str(db), source, cwd=tmp_path, agent=tmp_path / "agent")
    session_id = str(_header(source)["id"])
    store = SqliteSessionStore(str(db), session_id, diagnostics=[])
    loaded, index = store.load()
    assert loaded is not None and index is not None
    expected_loaded, expected_index = JsonlSessionStore(source, read_only=True, diagnostics=[]).load()
    assert expected_loaded is not None and expected_index is not None
    assert index.entries == expected_index.entries
    assert store.append(
        [{"type": "session_info", "id": "zz", "parentId": index.leaf_id, "timestamp": "x", "name": "Ok"}]
    )
    store.close()
    found = SqliteBackend(str(db)).query_sessions(None, query="ok")
    assert [info.id for info in found] == [session_id]


def test_old_format_files_are_migrated_and_damage_is_reported(tmp_path: Path) -> None:
    v1 = tmp_path / "v1.jsonl"
    v1.write_text(
        '{"type":"session","id":"old-one","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}\n'
        '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n'
        '{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage","content":"h"}}\n'
    )
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(
        b'{"type":"session","version":3,"id":"dmg","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}\n'
        b"not json\n\n"
        b'{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}\n'
        b'{"type":"message","id":"a2","par'
    )
    db = tmp_path / "s.db"
    done = _pi("import", "--db", str(db), str(v1), str(damaged), cwd=tmp_path, agent=tmp_path / "agent")
    assert done.stdout.splitlines() == [
        f"imported old-one from {v1} (migrated from format v1 to v3)",
        f"imported dmg from {damaged} (line 2: malformed JSON dropped (8 bytes); torn last line dropped (32 bytes))",
    ]
    out = tmp_path / "out"
    _pi("export", "--db", str(db), "--out", str(out), "old-one", "dmg", cwd=tmp_path, agent=tmp_path / "agent")
    migrated = (out / "--w--" / "2025-01-01T00-00-00-000Z_old-one.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in migrated]
    assert entries[0]["version"] == 3
    assert [e["parentId"] for e in entries[1:]] == [None, entries[1]["id"]]
    assert entries[2]["message"]["role"] == "custom"
    repaired = (out / "--w--" / "2025-01-01T00-00-00-000Z_dmg.jsonl").read_bytes()
    lines = damaged.read_bytes().split(b"\n")
    assert repaired == lines[0] + b"\n" + lines[3] + b"\n"


def test_errors_are_clear_and_exit_non_zero(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    db = tmp_path / "s.db"
    missing = _pi("import", "--db", str(db), str(tmp_path / "nope.jsonl"), cwd=tmp_path, agent=agent, check=1)
    assert "nope.jsonl: no such file or directory" in missing.stderr
    not_session = tmp_path / "notes.jsonl"
    not_session.write_text('{"hello":1}\n')
    done = _pi("import", "--db", str(db), str(not_session), cwd=tmp_path, agent=agent, check=1)
    assert f"error: {not_session}: not a session file (no session header)" in done.stderr
    # In a folder, a file that is not a session is skipped, not an error.
    done = _pi("import", "--db", str(db), str(tmp_path), cwd=tmp_path, agent=agent)
    assert f"skipped {not_session}: not a session file" in done.stdout
    source = next(p for p in FIXTURE_SESSIONS if "sessions-upstream" in p)
    _pi("import", "--db", str(db), source, cwd=tmp_path, agent=agent)
    unknown = _pi(
        "export", "--db", str(db), "--out", str(tmp_path / "o"), "no-such-id", cwd=tmp_path, agent=agent, check=1
    )
    assert f"no session no-such-id in {db}" in unknown.stderr
    # A different file where the export would go is never overwritten.
    target = _expected_path(tmp_path / "o", source, tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"mine\n")
    clash = _pi("export", "--db", str(db), "--out", str(tmp_path / "o"), cwd=tmp_path, agent=agent, check=1)
    assert "a different file is there already (not overwritten)" in clash.stderr
    assert target.read_bytes() == b"mine\n"
    no_db = _pi(
        "export", "--db", str(tmp_path / "none.db"), "--out", str(tmp_path / "o"), cwd=tmp_path, agent=agent, check=1
    )
    assert "no such session database" in no_db.stderr
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.commit()
    bad = _pi("import", "--db", str(foreign), source, cwd=tmp_path, agent=agent, check=1)
    assert "not a pi session database" in bad.stderr
    assert _pi("export", "--db", str(db), cwd=tmp_path, agent=agent, check=2).stderr.startswith(
        "error: export needs --out DIR"
    )
    assert "unknown subcommand" in _pi("list", cwd=tmp_path, agent=agent, check=2).stderr
    assert "missing subcommand" in _pi(cwd=tmp_path, agent=agent, check=2).stderr
    assert _pi("--help", cwd=tmp_path, agent=agent).stdout.startswith("Usage:")


def test_default_database_is_the_setting_else_the_agent_dir(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    source = next(p for p in FIXTURE_SESSIONS if "sessions-upstream" in p)
    done = _pi("import", source, cwd=tmp_path, agent=agent)
    assert done.stdout.startswith("imported ")
    assert (agent / "sessions.db").exists()
    (agent / "settings.json").write_text(json.dumps({"sessionDatabase": "~/elsewhere.db"}))
    _pi("import", source, cwd=tmp_path, agent=agent)
    assert (tmp_path / "elsewhere.db").exists()  # HOME is tmp_path
    done = _pi("export", "--out", str(tmp_path / "o"), cwd=tmp_path, agent=agent)
    assert done.stdout.startswith("exported ")


@pytest.mark.parametrize("argv", [["--mode", "rpc", "--no-session"]])
def test_rpc_startup_does_not_import_the_transfer_code(tmp_path: Path, argv: list[str]) -> None:
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in sys.modules"
        " if m in ('pi_rpc.session.transfer', 'pi_rpc.modes.sessions_cli', 'pi_rpc.session.sqlite_search'))))\n"
        "from pi_rpc.cli import main\n"
        f"main({argv!r})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), paths.ENV_AGENT_DIR: str(tmp_path / "agent"), "PI_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    # (RPC mode keeps stdout for the protocol: the print lands on stderr.)
    assert "LOADED []" in done.stdout + done.stderr, (done.stdout, done.stderr)


def test_a_session_a_writer_holds_is_not_imported(tmp_path: Path) -> None:
    """The import takes each session's single-writer lock, as a writer does."""
    source = next(p for p in FIXTURE_SESSIONS if "sessions-upstream" in p)
    session_id = str(_header(source)["id"])
    db = tmp_path / "s.db"
    real = os.path.realpath(db)
    lock = SessionLock(make_locator(real, session_id), lock_path_for(real, session_id))
    lock.acquire()
    try:
        done = _pi("import", "--db", str(db), source, cwd=tmp_path, agent=tmp_path / "agent", check=1)
    finally:
        lock.release()
    assert f"in use by another pi process (pid {os.getpid()})" in done.stderr
    assert SqliteBackend(str(db)).query_sessions(None) == []
    done = _pi("import", "--db", str(db), source, cwd=tmp_path, agent=tmp_path / "agent")
    assert done.stdout.startswith(f"imported {session_id} ")
    assert not os.path.exists(lock_path_for(real, session_id))  # released, sidecar removed
