"""A symbolic link planted where pi used to put its temporary file (``<target>.tmp-<pid>``,
``<target>.tmp``, ``<target>.<pid>.tmp``) never makes a write land in an unrelated file (#31
item 10): every writer that replaces a file through a temporary one (``pi sessions export``,
the JSONL store's rewrite, ``trust.json``, the MCP OAuth credential store) creates it under an
unpredictable name with ``O_EXCL | O_NOFOLLOW`` (``pi_rpc.config.safe_write``)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pi_rpc.config import paths
from pi_rpc.config.safe_write import create_temp_beside, replace_file
from pi_rpc.session import SessionManager
from pi_rpc.session.backends import sqlite_backend
from pi_rpc.session.transfer import export_sessions

VICTIM_BYTES = b"precious, not pi's\n"


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM_BYTES)
    return victim


def _plant(link: str | Path, victim: Path) -> None:
    os.symlink(victim, link)


def _user(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def test_sessions_export_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    manager = SessionManager.create(str(tmp_path / "cwd"), str(tmp_path / "dir"), backend=sqlite_backend(str(db)))
    manager.append_message(_user("exported"))
    manager.close()
    # Where the export goes (a dry run elsewhere), then the link planted beside it.
    written: list[str] = []
    assert export_sessions(str(db), str(tmp_path / "probe"), [], lambda o: written.append(o.source)) == 0
    target = Path(str(written[0]).replace(str(tmp_path / "probe"), str(tmp_path / "out")))
    target.parent.mkdir(parents=True)
    victim = _victim(tmp_path)
    _plant(f"{target}.tmp-{os.getpid()}", victim)
    assert export_sessions(str(db), str(tmp_path / "out"), [], lambda o: None) == 0
    assert victim.read_bytes() == VICTIM_BYTES
    assert target.read_bytes() == Path(written[0]).read_bytes() and not target.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_the_jsonl_rewrite_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    session = tmp_path / "empty.jsonl"
    session.write_bytes(b"")  # an empty file is given a header by a rewrite
    victim = _victim(tmp_path)
    _plant(f"{session}.tmp-{os.getpid()}", victim)
    manager = SessionManager.open(str(session))
    manager.close()
    assert victim.read_bytes() == VICTIM_BYTES
    assert not session.is_symlink()
    assert json.loads(session.read_text().splitlines()[0])["type"] == "session"


def test_trust_json_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    from pi_rpc.config.trust import remember

    agent = tmp_path / "agent"
    agent.mkdir()
    victim = _victim(tmp_path)
    path = paths.trust_path(agent)
    path.parent.mkdir(parents=True, exist_ok=True)
    _plant(f"{path}.tmp", victim)
    remember(agent, tmp_path / "project", True)
    assert victim.read_bytes() == VICTIM_BYTES
    assert json.loads(path.read_text()) == {str((tmp_path / "project").resolve()): True}


def test_mcp_credentials_never_write_through_a_planted_link(tmp_path: Path) -> None:
    from pi_rpc.mcp.oauth import CredentialStore

    path = tmp_path / "mcp-oauth.json"
    victim = _victim(tmp_path)
    _plant(f"{path}.{os.getpid()}.tmp", victim)
    store = CredentialStore(str(path))
    store.update("srv", "https://example.invalid/mcp", lambda state: {**state, "tokens": {"access_token": "t"}})
    assert victim.read_bytes() == VICTIM_BYTES
    assert "access_token" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_temp_file_is_new_and_never_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "t.json"
    # Whatever name comes up first is taken already (planted): another one is used.
    import secrets

    names = iter(["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(names))
    victim = _victim(tmp_path)
    _plant(f"{target}.tmp-aaaaaaaaaaaaaaaa", victim)
    fd, tmp = create_temp_beside(str(target))
    os.close(fd)
    assert tmp == f"{target}.tmp-bbbbbbbbbbbbbbbb"
    os.unlink(tmp)
    monkeypatch.undo()
    replace_file(str(target), b"new")
    assert target.read_bytes() == b"new" and victim.read_bytes() == VICTIM_BYTES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json", "t.json.tmp-aaaaaaaaaaaaaaaa", "victim.txt"]
