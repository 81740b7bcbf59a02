"""The interactive mode's /settings, /scoped-models, /trust, /import and /mcp commands, a
keybindings.json override and themes, driven headless with Textual's pilot over the real
session runtime (offline faux models); plus units of the key names and theme colours."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from .test_interactive import idle, roles_texts, running_app, type_and_enter, until

pytestmark = pytest.mark.anyio


async def _pick(pilot: Any, filter_text: str) -> None:
    app = pilot.app
    await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
    for ch in filter_text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.press("enter")


def _notices(app: Any) -> list[str]:
    from pi_rpc.modes.interactive.transcript import Notice

    return [str(n.text) for n in app.query(Notice)]


def _settings(agent: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((agent / "settings.json").read_text())
    return data


async def test_settings_writes_upstreams_keys_and_applies_them(isolated_env, tmp_path):
    agent = isolated_env
    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "/settings")
        await _pick(pilot, "steering")
        await _pick(pilot, "all")
        await until(pilot, lambda: "Steering mode: all" in _notices(app))
        assert _settings(agent)["steeringMode"] == "all"
        assert app.session.agent.steering_mode == "all"
        # the list comes back after a change; Escape closes it
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        await _pick(pilot, "auto-compact")
        await _pick(pilot, "false")
        await until(pilot, lambda: "Auto-compact: false" in _notices(app))
        assert _settings(agent)["compaction"] == {"enabled": False}
        await _pick(pilot, "default project")
        await _pick(pilot, "never")
        await until(pilot, lambda: _settings(agent).get("defaultProjectTrust") == "never")
        await _pick(pilot, "theme")
        await _pick(pilot, "light")
        await until(pilot, lambda: app.theme == "pi-light")
        assert _settings(agent)["theme"] == "light"
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ != "SelectScreen")


async def test_scoped_models_toggle_save_and_cycle(isolated_env, tmp_path):
    agent = isolated_env
    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "/scoped-models")
        await _pick(pilot, "faux-reasoner")  # toggles it on
        await _pick(pilot, "faux-1")
        await _pick(pilot, "save")
        await until(pilot, lambda: any(n.startswith("Scoped models (saved)") for n in _notices(app)))
        assert _settings(agent)["enabledModels"] == ["faux/faux-1", "faux/faux-reasoner"]
        assert [m["id"] for m in app.session.models.scoped_models] == ["faux-1", "faux-reasoner"]
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.session.model["id"] == "faux-reasoner")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: app.session.model["id"] == "faux-1")
        await type_and_enter(pilot, "/scoped-models")
        await _pick(pilot, "clear")
        await _pick(pilot, "save")
        await until(pilot, lambda: "enabledModels" not in _settings(agent))
        assert app.session.models.scoped_models == []


async def test_trust_saves_the_decision_in_trust_json(isolated_env, tmp_path):
    agent = isolated_env
    project = tmp_path / "proj"
    project.mkdir()
    async with running_app(project) as (app, pilot):
        await type_and_enter(pilot, "/trust")
        await _pick(pilot, "do not")
        await until(pilot, lambda: (agent / "trust.json").exists())
        assert json.loads((agent / "trust.json").read_text()) == {os.path.realpath(project): False}
        await type_and_enter(pilot, "/trust")
        await _pick(pilot, "parent")
        await until(pilot, lambda: json.loads((agent / "trust.json").read_text()) == {os.path.realpath(tmp_path): True})
        assert any("Saved trust decision: trusted" in n for n in _notices(app))


async def test_import_copies_the_file_into_the_session_dir_and_opens_it(isolated_env, tmp_path):
    sessions = tmp_path / "sessions"
    async with running_app(tmp_path, session_dir=str(sessions)) as (app, pilot):
        await type_and_enter(pilot, "remember the word teapot")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        source = tmp_path / "exported.jsonl"
        shutil.copyfile(app.session.session.session_file, source)
        session_id = app.session.session.session_id
        await type_and_enter(pilot, "/new")
        await until(pilot, lambda: not roles_texts(app))
        await type_and_enter(pilot, "/import")
        await until(pilot, lambda: "Usage: /import <path.jsonl>" in _notices(app))
        await type_and_enter(pilot, f"/import {source}")
        await _pick(pilot, "yes")
        await until(pilot, lambda: ("user", "remember the word teapot") in roles_texts(app))
        assert app.session.session.session_id == session_id
        assert Path(app.session.session.session_file) == sessions / "exported.jsonl"
        assert any(n == f"Session imported from: {source}" for n in _notices(app))


async def test_mcp_without_servers_says_where_to_configure_them(isolated_env, tmp_path):
    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "/mcp")
        await until(pilot, lambda: any("No MCP servers configured" in n for n in _notices(app)))


async def test_keybindings_json_overrides_the_defaults_and_hotkeys_shows_them(isolated_env, tmp_path):
    (isolated_env / "keybindings.json").write_text(
        json.dumps({"app.model.select": "ctrl+k", "tui.input.submit": ["ctrl+s"], "app.session.new": "alt+n"})
    )
    async with running_app(tmp_path) as (app, pilot):
        await pilot.press("ctrl+l")  # the default no longer opens the model picker
        await pilot.pause(0.1)
        assert type(app.screen).__name__ != "SelectScreen"
        await pilot.press("ctrl+k")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ != "SelectScreen")
        app.set_editor_text("hello there")
        await pilot.press("enter")  # Enter is no longer submit: the editor types a new line
        await pilot.pause(0.05)
        assert app.editor.text == "hello there\n"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: idle(app) and any(t.strip() == "hello there" for r, t in roles_texts(app)))
        app.editor.load_text("/hotkeys")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any("ctrl+k" in n and "app.model.select" in n for n in _notices(app)))
        await pilot.press("alt+n")
        await until(pilot, lambda: "New session started" in _notices(app))


async def test_a_custom_theme_from_the_agent_dir(isolated_env, tmp_path):
    themes = isolated_env / "themes"
    themes.mkdir()
    (themes / "mine.json").write_text(
        json.dumps(
            {
                "name": "mine",
                "appearance": "light",
                "vars": {"brand": "#0af", "ink": "okhsl(295 50% 67%)"},
                "colors": {"accent": "brand", "border": 39, "text": "ink", "muted": "", "error": "oklch(62% 0.1 200)"},
            }
        )
    )
    (isolated_env / "settings.json").write_text(json.dumps({"theme": "mine"}))
    async with running_app(tmp_path) as (app, pilot):
        assert app.theme == "pi-mine"
        theme = app.current_theme
        assert (theme.accent, theme.primary, theme.foreground, theme.error) == (
            "#00aaff",
            "#00afff",
            "#a798d7",
            "#1c989e",
        )
        assert theme.dark is False
        await type_and_enter(pilot, "/settings")
        await _pick(pilot, "theme")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        labels = [label for label, _ in app.screen.options]
        assert labels == ["system", "dark", "light", "mine"]


async def test_an_invalid_theme_is_a_warning_and_the_terminal_colours_are_used(isolated_env, tmp_path):
    (isolated_env / "themes").mkdir()
    (isolated_env / "themes" / "bad.json").write_text(json.dumps({"name": "bad", "colors": {"text": "nope"}}))
    (isolated_env / "settings.json").write_text(json.dumps({"theme": "bad"}))
    async with running_app(tmp_path) as (app, pilot):
        assert app.theme in ("ansi-dark", "ansi-light")
        await until(pilot, lambda: any("Invalid theme" in n for n in _notices(app)))


@pytest.mark.parametrize(
    ("upstream", "textual"),
    [
        ("ctrl+shift+x", "ctrl+shift+x"),
        ("shift+ctrl+p", "ctrl+shift+p"),
        ("alt+enter", "alt+enter"),
        ("esc", "escape"),
        ("pageUp", "pageup"),
        ("ctrl+-", "ctrl+minus"),
        ("ctrl+]", "ctrl+right_square_bracket"),
        ("shift+l", "L"),
        ("ctrl+1", "ctrl+1"),
    ],
)
def test_upstream_key_names_become_textuals(upstream, textual):
    from pi_rpc.modes.interactive.keybindings import textual_key

    assert textual_key(upstream) == textual


def test_keybindings_json_empty_list_disables_and_bad_values_warn(tmp_path):
    from pi_rpc.modes.interactive.keybindings import Keymap

    (tmp_path / "keybindings.json").write_text(json.dumps({"app.clear": [], "app.exit": 5, "tui.altScreen.top": "x"}))
    keymap = Keymap.load(tmp_path)
    assert keymap.keys["app.clear"] == []
    assert keymap.keys["app.exit"] == ["ctrl+d"]
    assert len(keymap.warnings) == 1 and "app.exit" in keymap.warnings[0]
    assert all(b.action != "interrupt" for b in keymap.app_bindings())


def test_okhsl_matches_upstreams_conversion():
    # values from upstream's pi-tui oklab.js okhslToRgb
    from pi_rpc.modes.interactive.theme import okhsl_to_hex

    assert okhsl_to_hex(231, 0.57, 0.65) == "#5fa8cc"
    assert okhsl_to_hex(83, 0.99, 0.47) == "#8f6802"
    assert okhsl_to_hex(20, 0.72, 0.67) == "#ea7f81"


def test_theme_pair_follows_colorfgbg():
    from pi_rpc.modes.interactive.theme import choose_name

    assert choose_name("light/dark", {"COLORFGBG": "0;15"}) == "light"
    assert choose_name("light/dark", {"COLORFGBG": "15;0"}) == "dark"
    assert choose_name("light/dark", {}) == "dark"
    assert choose_name(None, {}) == "system"


async def test_login_with_an_api_key_then_logout(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.commands.auth import SecretScreen

    agent = isolated_env
    secret = "gsk-test-" + "x" * 24
    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "/login")
        await _pick(pilot, "api key")
        await _pick(pilot, "groq")
        await until(pilot, lambda: isinstance(app.screen, SecretScreen))
        from textual.widgets import Input

        assert app.screen.query_one(Input).password is True
        await pilot.press(*secret, "enter")
        await until(pilot, lambda: "Saved API key for Groq" in _notices(app))
        assert json.loads((agent / "auth.json").read_text())["groq"] == {"type": "api_key", "key": secret}
        assert not any(secret in n for n in _notices(app))
        assert app.session.registry.get_api_key("groq") == secret
        await type_and_enter(pilot, "/login groq")
        await until(pilot, lambda: isinstance(app.screen, SecretScreen))
        await pilot.press("escape")
        await until(pilot, lambda: "Login cancelled" in _notices(app))
        await type_and_enter(pilot, "/logout")
        await _pick(pilot, "groq")
        await until(pilot, lambda: any(n.startswith("Removed stored API key for Groq") for n in _notices(app)))
        assert "groq" not in json.loads((agent / "auth.json").read_text())
        await type_and_enter(pilot, "/logout")
        await until(pilot, lambda: any(n.startswith("No stored credentials to remove") for n in _notices(app)))


async def test_double_escape_on_an_empty_editor_follows_the_setting(isolated_env, tmp_path):
    (isolated_env / "settings.json").write_text(json.dumps({"doubleEscapeAction": "fork"}))
    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "first question")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        await pilot.press("escape")
        await pilot.pause(0.6)
        await pilot.press("escape")  # too late: not a double press
        await pilot.pause(0.1)
        assert type(app.screen).__name__ != "SelectScreen"
        await pilot.pause(0.6)
        await pilot.press("escape", "escape")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        assert app.screen.title_text == "Fork from message"


async def test_themes_array_exclusions_leave_themes_out(isolated_env, tmp_path):
    # what `pi config` writes for a disabled theme (`-path`) and a `!glob`, as upstream applies them
    themes = isolated_env / "themes"
    themes.mkdir()
    for name in ("mine", "other", "kept"):
        (themes / f"{name}.json").write_text(json.dumps({"name": name, "colors": {"accent": "#0af"}}))
    settings = {"theme": "mine", "themes": ["-themes/mine.json", "!themes/o*.json"]}
    (isolated_env / "settings.json").write_text(json.dumps(settings))
    async with running_app(tmp_path) as (app, pilot):
        assert app.theme in ("ansi-dark", "ansi-light")
        await until(pilot, lambda: any("Theme 'mine' not found" in n for n in _notices(app)))
        await type_and_enter(pilot, "/settings")
        await _pick(pilot, "theme")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        assert [label for label, _ in app.screen.options] == ["system", "dark", "light", "kept"]
