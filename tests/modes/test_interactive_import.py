"""``/import`` of a session whose stored working directory is gone, under Textual's pilot:
upstream's prompt ("Session cwd does not exist: <cwd>") with *Continue in <cwd>* (opened here,
the file keeps its cwd), *Fork into <cwd>* (a new session, the source untouched) and *Cancel*
(nothing copied)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .interactive_support import idle, roles_texts, running_app, type_and_enter, until
from .test_interactive_settings import _notices, _pick

pytestmark = pytest.mark.anyio


async def _exported_with_gone_cwd(app: Any, pilot: Any, tmp_path: Path) -> tuple[Path, str, str]:
    """A session file whose header names a deleted directory; then a fresh session is open."""
    await type_and_enter(pilot, "remember the word teapot")
    await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
    source = tmp_path / "exported.jsonl"
    lines = Path(app.session.session.session_file).read_text().splitlines()
    header = json.loads(lines[0])
    gone = str(tmp_path / "deleted-project")
    header["cwd"] = gone
    source.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    session_id = app.session.session.session_id
    await type_and_enter(pilot, "/new")
    await until(pilot, lambda: not roles_texts(app))
    await type_and_enter(pilot, f"/import {source}")
    await _pick(pilot, "yes")
    await until(pilot, lambda: getattr(app.screen, "title_text", "") == f"Session cwd does not exist: {gone}")
    return source, session_id, gone


async def test_import_with_a_missing_cwd_continues_here_without_rewriting_the_file(isolated_env, tmp_path):
    sessions = tmp_path / "sessions"
    async with running_app(tmp_path, session_dir=str(sessions)) as (app, pilot):
        source, session_id, gone = await _exported_with_gone_cwd(app, pilot, tmp_path)
        labels = [label for label, _ in app.screen.options]
        assert labels == [
            f"Continue in {tmp_path} (asks again next time)",
            f"Fork into {tmp_path} (new session ID, original kept)",
            "Cancel",
        ]
        await _pick(pilot, "asks again")
        await until(pilot, lambda: ("user", "remember the word teapot") in roles_texts(app))
        store = app.session.session
        assert store.session_id == session_id and Path(store.session_file) == sessions / "exported.jsonl"
        assert store.cwd == str(tmp_path)
        assert json.loads((sessions / "exported.jsonl").read_text().splitlines()[0])["cwd"] == gone
        assert f"Session imported from: {source}" in _notices(app)


async def test_import_with_a_missing_cwd_forks_into_a_new_session_here(isolated_env, tmp_path):
    sessions = tmp_path / "sessions"
    async with running_app(tmp_path, session_dir=str(sessions)) as (app, pilot):
        source, session_id, _ = await _exported_with_gone_cwd(app, pilot, tmp_path)
        before = source.read_bytes()
        await _pick(pilot, "new session id")
        await until(pilot, lambda: ("user", "remember the word teapot") in roles_texts(app))
        store = app.session.session
        assert store.session_id != session_id and store.cwd == str(tmp_path)
        header = json.loads(Path(store.session_file).read_text().splitlines()[0])
        assert header["cwd"] == str(tmp_path) and header["parentSession"] == str(source)
        assert source.read_bytes() == before
        assert not (sessions / "exported.jsonl").exists()
        assert f"Forked into new session {store.session_id} in {tmp_path}" in _notices(app)


async def test_import_with_a_missing_cwd_declined_leaves_no_copy(isolated_env, tmp_path):
    sessions = tmp_path / "sessions"
    async with running_app(tmp_path, session_dir=str(sessions)) as (app, pilot):
        await _exported_with_gone_cwd(app, pilot, tmp_path)
        current = app.session.session.session_id
        await _pick(pilot, "cancel")
        await until(pilot, lambda: "Import cancelled" in _notices(app))
        assert not (sessions / "exported.jsonl").exists()
        assert app.session.session.session_id == current
