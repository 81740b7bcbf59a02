"""The interactive mode's pickers as upstream's selectors (issue 37): the filter being typed is
shown, the current item is marked with ✓, /settings and /thinking rows carry upstream's
descriptions, /settings has upstream's TUI-mode and fullscreen rows; /tree shows tool entries
and filters as upstream (Ctrl+D/T/U/L/A, Ctrl+O cycles); /resume has upstream's scope, sort,
named-only, rename and delete keys. Driven headless with Textual's pilot over the real session
runtime and the offline faux model."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from .interactive_support import Tmux, idle, roles_texts, running_app, type_and_enter, until

pytestmark = pytest.mark.anyio


def _screen_is(app: Any, name: str) -> bool:
    return type(app.screen).__name__ == name


def _rows(app: Any) -> list[str]:
    """The rows the open picker shows, as plain text."""
    from textual.widgets import OptionList

    choices = app.screen.query_one(OptionList)
    return [str(choices.get_option_at_index(i).prompt) for i in range(choices.option_count)]


def _highlighted(app: Any) -> str:
    from textual.widgets import OptionList

    choices = app.screen.query_one(OptionList)
    assert choices.highlighted is not None
    return str(choices.get_option_at_index(choices.highlighted).prompt)


def _filter_line(app: Any) -> str:
    from textual.widgets import Label

    return str(app.screen.query_one("#filter", Label).render())


def _notices(app: Any) -> list[str]:
    from pi_rpc.modes.interactive.transcript import Notice

    return [str(n.text) for n in app.query(Notice)]


async def _open(pilot: Any, command: str) -> None:
    await type_and_enter(pilot, command)
    await until(pilot, lambda: _screen_is(pilot.app, "SelectScreen"))
    await pilot.pause(0.05)


async def _type(pilot: Any, text: str) -> None:
    for ch in text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.pause(0.05)


async def test_the_filter_being_typed_is_shown_and_backspace_edits_it(isolated_env, tmp_path):
    async with running_app(tmp_path) as (app, pilot):
        await _open(pilot, "/model")
        assert _filter_line(app).startswith("> ")
        await _type(pilot, "reas")
        assert _filter_line(app).startswith("> reas")
        assert all("reas" in row for row in _rows(app)) and _rows(app)
        await pilot.press("backspace")
        await pilot.pause(0.05)
        assert _filter_line(app).startswith("> rea") and not _filter_line(app).startswith("> reas")
        await pilot.press("escape")


async def test_model_and_thinking_pickers_mark_the_current_item(isolated_env, tmp_path):
    async with running_app(tmp_path, model="faux/faux-reasoner") as (app, pilot):
        await _open(pilot, "/model")
        marked = [row for row in _rows(app) if row.startswith("✓ ")]
        assert marked == ["✓ faux/faux-reasoner"]
        assert _highlighted(app) == "✓ faux/faux-reasoner"
        assert all(row.startswith(("✓ ", "  ")) for row in _rows(app))
        await pilot.press("escape")
        await until(pilot, lambda: not _screen_is(app, "SelectScreen"))
        await type_and_enter(pilot, "/thinking high")
        await until(pilot, lambda: app.session.thinking_level == "high")
        await _open(pilot, "/thinking")
        rows = _rows(app)
        (current,) = [row for row in rows if row.startswith("✓ ")]
        assert current.split()[1] == "high" and "Deep reasoning (~16k tokens)" in current
        assert any(row.split()[0] == "off" and "No reasoning" in row for row in rows)
        assert "cycles thinking levels in-session" in app.screen.message
        await _type(pilot, "low")
        await pilot.press("enter")
        await until(pilot, lambda: app.session.thinking_level == "low")


async def test_settings_rows_carry_descriptions_and_value_lists_mark_the_current_value(isolated_env, tmp_path):
    agent = isolated_env
    async with running_app(tmp_path) as (app, pilot):
        await _open(pilot, "/settings")
        rows = _rows(app)
        auto = next(row for row in rows if row.startswith("Auto-compact: true"))
        assert "Automatically compact context when it gets too large" in auto
        for label in (
            "TUI mode: fullscreen",
            "Fullscreen exit output: transcript",
            "Fullscreen scrollbar: auto",
            "Fullscreen copy on select: true",
            "Fullscreen wheel scrolling: auto",
            "Tree filter mode: default",
        ):
            assert any(row.startswith(label) for row in rows), label
        # filtering matches the label, not the description
        await _type(pilot, "tui")
        assert [row.split(":")[0] for row in _rows(app)] == ["TUI mode"]
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.title_text == "TUI mode")
        assert [row.strip() for row in _rows(app)] == ["regular", "✓ fullscreen"]
        assert _highlighted(app) == "✓ fullscreen"
        await _type(pilot, "regular")
        await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("TUI mode: regular") for n in _notices(app)))
        assert "TUI mode: regular" in _notices(app) and not app.fullscreen  # switched at once
        data = json.loads((agent / "settings.json").read_text())
        assert data["tuiMode"] == "regular"
        # the list comes back on the row just changed, showing the new value
        await until(pilot, lambda: _screen_is(app, "SelectScreen") and app.screen.title_text == "Settings")
        await pilot.pause(0.05)
        assert _highlighted(app).startswith("TUI mode: regular")
        await _type(pilot, "wheel")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.title_text == "Fullscreen wheel scrolling")
        assert [row.strip() for row in _rows(app)] == ["✓ auto", "1", "2", "3", "5", "10"]
        await pilot.press("down", "down", "down", "down", "enter")
        await until(
            pilot, lambda: json.loads((agent / "settings.json").read_text()).get("fullscreenWheelScrollLines") == 5
        )
        await until(pilot, lambda: app.screen.title_text == "Settings")
        await _type(pilot, "copy")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.title_text == "Fullscreen copy on select")
        await _type(pilot, "false")
        await pilot.press("enter")
        await until(
            pilot, lambda: json.loads((agent / "settings.json").read_text()).get("fullscreenCopyOnSelect") is False
        )
        await until(pilot, lambda: app.screen.title_text == "Settings")
        await pilot.press("escape")


async def test_tree_shows_tool_entries_and_upstreams_filters(isolated_env, tmp_path, faux_script):
    script = faux_script(
        [
            {"toolCalls": [{"name": "bash", "arguments": {"command": "echo tree-tool"}}]},
            {"text": "ran it"},
            {"text": "second answer"},
        ]
    )
    async with running_app(tmp_path, faux_script=script, session_dir=str(tmp_path / "s")) as (app, pilot):
        await type_and_enter(pilot, "run the tool")
        await until(pilot, lambda: idle(app) and ("assistant", "ran it") in roles_texts(app))
        await type_and_enter(pilot, "second question")
        await until(pilot, lambda: idle(app) and ("assistant", "second answer") in roles_texts(app))
        first = app.session.session.get_fork_messages()[0]["entryId"]
        app.session.set_label(first, "start")
        await _open(pilot, "/tree")
        rows = [row.strip(" ●") for row in _rows(app)]
        # default: the tool result is shown as its call; the tool-only assistant turn is folded into it
        assert rows == [
            "user: run the tool [start]",
            "[bash: echo tree-tool]",
            "assistant: ran it",
            "user: second question",
            "assistant: second answer",
        ]
        assert _highlighted(app).startswith("● ") and app.screen.title_text == "Session tree (● current)"
        await pilot.press("ctrl+t")  # no-tools
        await until(pilot, lambda: _screen_is(app, "SelectScreen") and "[no-tools]" in app.screen.title_text)
        await pilot.pause(0.05)
        assert not any("[bash:" in row for row in _rows(app)) and len(_rows(app)) == 4
        await pilot.press("ctrl+u")  # user-only
        await until(pilot, lambda: "[user]" in getattr(app.screen, "title_text", ""))
        await pilot.pause(0.05)
        assert [row.strip(" ●") for row in _rows(app)] == ["user: run the tool [start]", "user: second question"]
        await pilot.press("ctrl+u")  # toggles back to default
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Session tree (● current)")
        await pilot.press("ctrl+l")  # labeled-only
        await until(pilot, lambda: "[labeled]" in getattr(app.screen, "title_text", ""))
        await pilot.pause(0.05)
        assert [row.strip(" ●") for row in _rows(app)] == ["user: run the tool [start]"]
        await pilot.press("ctrl+a")  # all: the label entry too
        await until(pilot, lambda: "[all]" in getattr(app.screen, "title_text", ""))
        await pilot.pause(0.05)
        assert any(row.strip(" ●") == "[label: start]" for row in _rows(app))
        await pilot.press("ctrl+o")  # all -> default (cycle)
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Session tree (● current)")
        await pilot.press("ctrl+o")  # default -> no-tools
        await until(pilot, lambda: "[no-tools]" in getattr(app.screen, "title_text", ""))
        await pilot.press("ctrl+d")
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Session tree (● current)")
        # the search typed survives a filter change, and picks the tool entry
        await _type(pilot, "tree-tool")
        await pilot.press("ctrl+a")
        await until(pilot, lambda: "[all]" in getattr(app.screen, "title_text", ""))
        await pilot.pause(0.05)
        assert _filter_line(app).startswith("> tree-tool")
        assert [row.strip(" ●") for row in _rows(app)] == ["[bash: echo tree-tool]"]
        assert not app.transcript.query("ToolCall") or True
        await pilot.press("escape")
        await until(pilot, lambda: not _screen_is(app, "SelectScreen"))


async def test_tree_opens_with_the_tree_filter_mode_setting(isolated_env, tmp_path):
    (isolated_env / "settings.json").write_text(json.dumps({"treeFilterMode": "user-only"}))
    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "hello there")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        await _open(pilot, "/tree")
        assert app.screen.title_text.endswith("[user]")
        assert [row.strip(" ●") for row in _rows(app)] == ["user: hello there"]
        await pilot.press("escape")


def _other_project_copy(path: str, sessions: Path) -> Path:
    """A copy of a session file that says it belongs to another folder (for the "All" scope)."""
    lines = Path(path).read_text().splitlines()
    header = json.loads(lines[0])
    header["id"] = "0000aaaa-0000-7000-8000-000000000001"
    header["cwd"] = "/somewhere/else"
    copy = sessions / "other-project.jsonl"
    copy.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return copy


async def test_resume_scope_sort_named_rename_and_delete(isolated_env, tmp_path):
    sessions = tmp_path / "sessions"
    async with running_app(tmp_path, session_dir=str(sessions)) as (app, pilot):
        await type_and_enter(pilot, "alpha question")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        first = app.session.session.session_file
        other = _other_project_copy(first, sessions)
        await type_and_enter(pilot, "/new")
        await until(pilot, lambda: not roles_texts(app))
        await type_and_enter(pilot, "beta question")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        current = app.session.session.session_file

        await _open(pilot, "/resume")
        assert app.screen.title_text == "Resume Session (Current Folder)"
        assert "◉ Current Folder | ○ All" in app.screen.message and "Sort: Threaded" in app.screen.message
        rows = _rows(app)
        assert len(rows) == 2 and not any("else" in row for row in rows)
        assert next(row for row in rows if row.startswith("✓ ")).startswith("✓ beta question")
        assert [p for _, p in app.screen.options] == [current, first]

        await pilot.press("tab")  # scope: all
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Resume Session (All)")
        await pilot.pause(0.05)
        assert str(other) in [p for _, p in app.screen.options]
        assert any("/somewhere/else" in row for row in _rows(app))
        await pilot.press("tab")
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Resume Session (Current Folder)")

        await pilot.press("ctrl+n")  # named only: none yet
        await until(pilot, lambda: "Name: Named" in (getattr(app.screen, "message", "") or ""))
        await pilot.pause(0.05)
        assert _rows(app) == []
        await pilot.press("ctrl+n")
        await until(pilot, lambda: "Name: All" in (getattr(app.screen, "message", "") or ""))

        await pilot.press("ctrl+s")
        await until(pilot, lambda: "Sort: Recent" in (getattr(app.screen, "message", "") or ""))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "Sort: Fuzzy" in (getattr(app.screen, "message", "") or ""))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "Sort: Threaded" in (getattr(app.screen, "message", "") or ""))

        # rename the other session of this folder (Ctrl+R on the highlighted row)
        await pilot.pause(0.05)
        await _type(pilot, "alpha")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: _screen_is(app, "InputScreen"))
        await pilot.press(*"kept")
        await pilot.press("enter")
        await until(pilot, lambda: _screen_is(app, "SelectScreen") and "Resume" in app.screen.title_text)
        assert any(n == "Session renamed: kept" for n in _notices(app))
        await pilot.press(*["backspace"] * 5)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: "Name: Named" in (getattr(app.screen, "message", "") or ""))
        await pilot.pause(0.05)
        assert [row.split("(")[0].strip() for row in _rows(app)] == ["kept"]
        await pilot.press("ctrl+n")
        await until(pilot, lambda: "Name: All" in (getattr(app.screen, "message", "") or ""))

        # the current session cannot be deleted; another one after a confirmation
        await pilot.pause(0.05)
        await _type(pilot, "beta")
        await pilot.press("ctrl+d")
        await until(pilot, lambda: "Cannot delete the currently active session" in _notices(app))
        await until(pilot, lambda: _screen_is(app, "SelectScreen") and "Resume" in app.screen.title_text)
        await pilot.press(*["backspace"] * 4)
        await _type(pilot, "kept")
        await pilot.press("ctrl+d")
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Delete session?")
        await _type(pilot, "yes")
        await pilot.press("enter")
        await until(pilot, lambda: not Path(first).exists())
        assert Path(current).exists() and other.exists()
        await until(pilot, lambda: _screen_is(app, "SelectScreen") and "Resume" in app.screen.title_text)
        await pilot.pause(0.05)
        assert [p for _, p in app.screen.options] == [current]
        await pilot.press("escape")


# ------------------------------------------------------------------ a real terminal


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
def test_a_picker_on_screen_shows_the_filter_and_the_current_mark(tmp_path, size):
    from .test_interactive_fullscreen import _pi

    command, _marker = _pi(tmp_path)
    term = Tmux(tmp_path, command, size=size)
    try:
        term.wait_for("faux-1")
        term.type("/model")
        shown = term.wait_for("✓ faux/faux-1")
        assert "> " in shown
        for ch in "reas":
            term.keys(ch)
        shown = term.wait_for("> reas")
        assert "faux/faux-reasoner" in shown and "✓ faux/faux-1" not in shown
        term.keys("Escape")
        time.sleep(0.5)  # a lone Escape is told from an escape sequence by a pause
        term.type("/thinking")
        shown = term.wait_for("Thinking Level")
        assert "No reasoning" in shown  # upstream's descriptions on the rows
    finally:
        term.kill()


async def test_resume_path_toggle_and_upstreams_search_syntax(isolated_env, tmp_path):
    sessions = tmp_path / "sessions"
    async with running_app(tmp_path, session_dir=str(sessions)) as (app, pilot):
        await type_and_enter(pilot, "alpha question about parsers")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        first = str(app.session.session.session_file)
        await type_and_enter(pilot, "/new")
        await until(pilot, lambda: not roles_texts(app))
        await type_and_enter(pilot, "beta question about lexers")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")

        await _open(pilot, "/resume")
        assert "^P path (off)" in app.screen.hint and 're:<pattern> regex · "phrase" exact' in app.screen.hint
        assert not any(Path(first).name in row for row in _rows(app))
        await pilot.press("ctrl+p")  # the session files' paths (upstream's togglePath)
        await until(pilot, lambda: "^P path (on)" in (getattr(app.screen, "hint", "") or ""))
        await pilot.pause(0.05)
        # at 80 columns the path's end shows, right-aligned; the message is cut to leave it room
        assert any(Path(first).name[-24:] in row and row.startswith("  alpha") for row in _rows(app))
        assert _screen_is(app, "SelectScreen") and "Resume" in app.screen.title_text
        await pilot.press("ctrl+p")
        await until(pilot, lambda: "^P path (off)" in (getattr(app.screen, "hint", "") or ""))
        await pilot.pause(0.05)

        await _type(pilot, "re:al.ha\\s+q")  # a regular expression, case-insensitive
        assert [row.split("  (")[0].strip() for row in _rows(app)] == ["alpha question about parsers"]
        await pilot.press(*["backspace"] * len("re:al.ha\\s+q"))
        await _type(pilot, "re:(")  # an invalid one: no rows, and why
        assert _rows(app) == [] and "Invalid regex" in _filter_line(app)
        await pilot.press(*["backspace"] * 4)
        await _type(pilot, '"question about lexers"')  # a phrase must appear as written
        assert [row.split("  (")[0].strip("✓ ") for row in _rows(app)] == ["beta question about lexers"]
        await pilot.press(*["backspace"] * len('"question about lexers"'))
        await _type(pilot, '"about question"')
        assert _rows(app) == []
        await pilot.press(*["backspace"] * len('"about question"'))
        await _type(pilot, "lexers beta")  # words in any order
        assert len(_rows(app)) == 1
        await pilot.press("ctrl+p")  # the typed search survives the toggle
        await until(pilot, lambda: "^P path (on)" in (getattr(app.screen, "hint", "") or ""))
        await pilot.pause(0.05)
        assert _filter_line(app).startswith("> lexers beta") and len(_rows(app)) == 1
        await pilot.press("escape")


async def test_tui_mode_switch_is_refused_while_a_dialog_is_open(isolated_env, tmp_path):
    """As upstream's switchTuiMode, which refuses while an overlay is shown: with an
    extension's dialog open under /settings, picking another TUI mode says so, changes
    nothing and stores nothing; once the dialog is closed the same pick switches."""
    agent = isolated_env
    async with running_app(tmp_path, fullscreen=True) as (app, pilot):
        answers: list[Any] = []

        async def ask() -> None:
            answers.append(await app.ui.select("Extension question", ["one", "two"]))

        app.run_worker(ask(), group="extension")
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Extension question")
        app.action_slash("settings")  # a key bound to a command reaches it over the dialog
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Settings")
        await pilot.pause(0.05)
        await _type(pilot, "tui")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.title_text == "TUI mode")
        await _type(pilot, "regular")
        await pilot.press("enter")
        await until(pilot, lambda: "Close active overlays before changing TUI mode" in _notices(app))
        assert app.fullscreen and not any(n.startswith("TUI mode:") for n in _notices(app))
        settings_file = agent / "settings.json"
        assert not settings_file.exists() or "tuiMode" not in json.loads(settings_file.read_text())
        # the list comes back showing the value still in force
        await until(pilot, lambda: _screen_is(app, "SelectScreen") and app.screen.title_text == "Settings")
        await pilot.pause(0.05)
        assert _highlighted(app).startswith("TUI mode: fullscreen")
        await pilot.press("escape")  # closes /settings: the extension's dialog is on top again
        await until(pilot, lambda: getattr(app.screen, "title_text", "") == "Extension question")
        await pilot.press("escape")
        await until(pilot, lambda: answers == [None])

        await _open(pilot, "/settings")
        await _type(pilot, "tui")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.title_text == "TUI mode")
        await _type(pilot, "regular")
        await pilot.press("enter")
        await until(pilot, lambda: "TUI mode: regular" in _notices(app))
        assert not app.fullscreen and json.loads(settings_file.read_text())["tuiMode"] == "regular"
        await until(pilot, lambda: _screen_is(app, "SelectScreen") and app.screen.title_text == "Settings")
        await pilot.press("escape")


@pytest.mark.parametrize("store", ["jsonl", "sqlite"])
async def test_resume_search_looks_at_every_message_of_a_session(isolated_env, tmp_path, store):
    """Upstream's selector searches the text of every user and assistant message of a
    session (``allMessagesText``), not only its first prompt or its name (the session files,
    or a session database)."""
    sessions = tmp_path / "sessions"
    async with running_app(tmp_path, session_dir=str(sessions), session_store=store) as (app, pilot):
        await type_and_enter(pilot, "alpha question about parsers")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        await type_and_enter(pilot, "zebra crossing later on")
        await until(pilot, lambda: idle(app) and len(roles_texts(app)) == 4)
        assert str(app.session.session.session_file).startswith("sqlite:") == (store == "sqlite")
        await type_and_enter(pilot, "/new")
        await until(pilot, lambda: not roles_texts(app))
        await type_and_enter(pilot, "beta question about lexers")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")

        await _open(pilot, "/resume")
        assert len(_rows(app)) == 2
        await _type(pilot, "zebra")  # the second prompt of the first session (its row shows the first)
        assert [row.split("  (")[0].strip() for row in _rows(app)] == ["alpha question about parsers"]
        await pilot.press(*["backspace"] * len("zebra"))
        await _type(pilot, '"you said: zebra"')  # a phrase only the faux model's answer holds
        assert [row.split("  (")[0].strip() for row in _rows(app)] == ["alpha question about parsers"]
        await pilot.press(*["backspace"] * len('"you said: zebra"'))
        await _type(pilot, "re:crossing\\s+later")  # a regular expression over every message too
        assert [row.split("  (")[0].strip() for row in _rows(app)] == ["alpha question about parsers"]
        await pilot.press(*["backspace"] * len("re:crossing\\s+later"))
        await _type(pilot, "lexers")
        assert [row.split("  (")[0].strip("✓ ") for row in _rows(app)] == ["beta question about lexers"]
        await pilot.press("escape")


def test_session_search_query_syntax():
    from pi_rpc.modes.interactive.session_search import SearchFields, match, parse_query

    fields = SearchFields(name="Parser work", text=("0191-abc", "fix the lexer tokens"), folder="/home/u/proj")
    assert match(parse_query(""), fields) == 0
    assert match(parse_query("re:^pars"), fields) is not None
    assert match(parse_query("re:LEXER\\s+tok"), fields) is not None
    assert match(parse_query("re:nothing here"), fields) is None
    assert parse_query("re:").error == "Empty regex"
    assert parse_query("re:(").error and match(parse_query("re:("), fields) is None
    assert parse_query('a "b c" d').tokens == (("fuzzy", "a"), ("phrase", "b c"), ("fuzzy", "d"))
    assert parse_query('a "b c').tokens == (("fuzzy", "a"), ("fuzzy", '"b'), ("fuzzy", "c"))
    assert match(parse_query('"the  lexer"'), fields) is not None
    assert match(parse_query('"lexer the"'), fields) is None
    # a name hit ranks before a hit elsewhere, which ranks before scattered letters
    name_hit = match(parse_query("parser"), fields)
    text_hit = match(parse_query("lexer"), fields)
    scattered = match(parse_query("prwk"), fields)
    assert name_hit is not None and text_hit is not None and scattered is not None
    assert name_hit < text_hit < scattered
    assert match(parse_query("zzz"), fields) is None


def _terminal(tmp_path: Path, size: tuple[int, int], answers: list[str]) -> Tmux:
    """pi in regular mode in tmux, its sessions kept in ``tmp_path/s``, the faux model giving
    ``answers`` in turn."""
    import sys

    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": answer} for answer in answers]))
    command = (
        f"{sys.executable} -m pi_rpc --model faux/faux-1 --tui-mode regular --session-dir {tmp_path / 's'}; sleep 60"
    )
    term = Tmux(tmp_path, command, {"PI_FAUX_SCRIPT": str(script)}, size=size)
    term.wait_for("faux-1")
    return term


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
def test_resume_in_a_real_terminal(tmp_path):
    term = _terminal(tmp_path, (80, 24), ["ANSWER-ONE", "ANSWER-TWO"])
    try:
        term.type("first question")
        term.wait_for("ANSWER-ONE")
        term.type("/new")
        term.wait_for("New session")
        term.type("second question")
        term.wait_for("ANSWER-TWO")
        term.type("/resume")
        shown = term.wait_for("Resume Session (Current Folder)")
        assert "✓ second question" in shown and "first question" in shown
        assert "^P path (off)" in shown
        term.keys("C-p")  # the session files' paths
        shown = term.wait_for("^P path (on)")
        assert ".jsonl" in shown
        for ch in "re:f.rst":
            term.keys(ch)
        shown = term.wait_for("> re:f.rst")
        rows = [line for line in shown.splitlines() if line.startswith("│ ▊ ")]
        assert len(rows) == 1 and "first que" in rows[0], shown  # the message cut to leave the path room
        term.keys("Enter")
        term.wait_for("Resumed session")
        time.sleep(0.5)
        history = term.history()
        # the resumed session's transcript is printed again after the picker: its answer too
        resumed = history[history.rindex("ANSWER-TWO") :]
        assert "first question" in resumed and "ANSWER-ONE" in resumed
        assert "Resume Session" not in term.screen()  # the picker left no ghost on the screen
    finally:
        term.kill()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
def test_tree_in_a_real_terminal(tmp_path):
    term = _terminal(tmp_path, (100, 30), ["ANSWER-ONE", "ANSWER-TWO"])
    try:
        term.type("first question")
        term.wait_for("ANSWER-ONE")
        term.type("second question")
        term.wait_for("ANSWER-TWO")
        term.type("/tree")
        shown = term.wait_for("Session tree (● current)")
        for row in ("user: first question", "assistant: ANSWER-ONE", "user: second question"):
            assert row in shown
        term.keys("C-u")  # user messages only
        shown = term.wait_for("[user]")
        assert "assistant: ANSWER-ONE" not in shown and "user: first question" in shown
        term.keys("Up")
        time.sleep(0.3)
        term.keys("Enter")
        term.wait_for("Continue from here")
        term.keys("Enter")
        term.wait_for("Moved in the session tree")
        # a user message goes back into the editor; the branch is now before it
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            shown = term.screen()
            if any("first question" in line for line in shown.splitlines() if line.startswith("│")):
                break
            time.sleep(0.2)
        assert any("first question" in line for line in shown.splitlines() if line.startswith("│")), shown
        assert "Session tree" not in shown
    finally:
        term.kill()
