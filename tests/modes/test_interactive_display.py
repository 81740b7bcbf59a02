"""The display settings of ``/settings`` (display.py): editor padding, output padding,
autocomplete rows and OSC 9;4 terminal progress, set through the picker or read from
settings.json at start, under Textual's pilot with the faux model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .interactive_support import idle, roles_texts, running_app, type_and_enter, until
from .test_interactive_settings import _notices, _pick, _settings

pytestmark = pytest.mark.anyio


def _write_settings(agent: Path, data: dict[str, Any]) -> None:
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "settings.json").write_text(json.dumps(data))


async def test_display_settings_from_the_picker_restyle_the_app(isolated_env, tmp_path):
    from rich.padding import Padding

    from pi_rpc.modes.interactive.transcript import Notice, as_renderable

    agent = isolated_env
    async with running_app(tmp_path) as (app, pilot):
        assert app.editor.styles.padding.left == 1  # unset: this mode's own look
        await type_and_enter(pilot, "/settings")
        await _pick(pilot, "editor padding")
        await _pick(pilot, "3")
        await until(pilot, lambda: "Editor padding: 3" in _notices(app))
        assert _settings(agent)["editorPaddingX"] == 3
        assert (app.editor.styles.padding.left, app.editor.styles.padding.right) == (3, 3)
        await _pick(pilot, "output padding")
        await _pick(pilot, "0")
        await until(pilot, lambda: "Output padding: 0" in _notices(app))
        assert _settings(agent)["outputPad"] == 0
        notices = list(app.query(Notice))
        assert all(n.styles.padding.left == 0 for n in notices)
        printed = as_renderable(notices[-1], app.transcript.output_pad)
        assert isinstance(printed, Padding) and printed.left == 0
        await _pick(pilot, "autocomplete")
        await _pick(pilot, "3")
        await until(pilot, lambda: _settings(agent).get("autocompleteMaxVisible") == 3)
        await _pick(pilot, "quiet startup")
        await _pick(pilot, "header")
        await until(pilot, lambda: _settings(agent).get("quietStartup") == "header")
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ != "SelectScreen")
        app.editor.load_text("/")
        await until(pilot, lambda: str(app.areas["completions"].render()).count("\n") == 2)


async def test_display_settings_in_settings_json_apply_at_start(isolated_env, tmp_path):
    _write_settings(isolated_env, {"editorPaddingX": 0, "autocompleteMaxVisible": 7, "outputPad": 0})
    async with running_app(tmp_path) as (app, pilot):
        assert app.editor.styles.padding.left == 0
        app.editor.load_text("/")
        await until(pilot, lambda: str(app.areas["completions"].render()).count("\n") == 6)
        await type_and_enter(pilot, "hi")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        assert all(child.styles.padding.left == 0 for child in app.transcript.children)


async def _run_and_record(app: Any, pilot: Any) -> list[str]:
    written: list[str] = []
    app.write_terminal = written.append
    await type_and_enter(pilot, "hi")
    await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
    await pilot.pause(0.05)
    return [w for w in written if w.startswith("\x1b]9;4;")]


async def test_terminal_progress_is_shown_while_a_turn_runs_when_enabled(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.display import PROGRESS_ACTIVE, PROGRESS_CLEAR

    _write_settings(isolated_env, {"terminal": {"showTerminalProgress": True}})
    async with running_app(tmp_path) as (app, pilot):
        progress = await _run_and_record(app, pilot)
        assert progress[0] == PROGRESS_ACTIVE and progress[-1] == PROGRESS_CLEAR
        assert not app.progress.active


async def test_terminal_progress_stays_silent_by_default_and_is_switched_on_by_settings(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.display import PROGRESS_ACTIVE

    agent = isolated_env
    async with running_app(tmp_path) as (app, pilot):
        assert await _run_and_record(app, pilot) == []
        await type_and_enter(pilot, "/settings")
        await _pick(pilot, "terminal progress")
        await _pick(pilot, "true")
        await until(pilot, lambda: "Terminal progress: true" in _notices(app))
        assert _settings(agent)["terminal"] == {"showTerminalProgress": True}
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ != "SelectScreen")
        assert PROGRESS_ACTIVE in await _run_and_record(app, pilot)
