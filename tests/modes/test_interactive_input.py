"""The interactive mode's input and extension surface, headless under Textual's pilot with the
faux model: follow-ups (Alt+Enter), history, ``!``/``!!`` bash, ``@`` and ``/`` completion,
prompt templates and extension commands through the session, an edit's diff, and ``ctx.ui``
notifications, status, widgets, editor text and input/select dialogs."""

from __future__ import annotations

import pytest

from .interactive_support import idle, roles_texts, running_app, type_and_enter, until

pytestmark = pytest.mark.anyio


async def test_alt_enter_queues_a_follow_up_delivered_after_the_run(isolated_env, tmp_path, faux_script):
    script = faux_script([{"text": "y" * 200, "delayMs": 15, "chunkChars": 1}, {"text": "after follow-up"}])
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "start")
        await until(pilot, lambda: app.session.is_streaming)
        app.editor.load_text("and then this")
        await pilot.press("alt+enter")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1] == ("assistant", "after follow-up"), timeout=20)
        texts = roles_texts(app)
        assert texts[:2] == [("user", "start"), ("assistant", "y" * 200)]
        assert texts[2] == ("user", "and then this")


async def test_history_walks_with_up_and_down(isolated_env, tmp_path):
    async with running_app(tmp_path) as (app, pilot):
        for text in ("one", "two"):
            await type_and_enter(pilot, text)
            await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        app.editor.load_text("draft")
        await pilot.press("up")
        assert app.editor.text == "two"
        await pilot.press("up")
        assert app.editor.text == "one"
        await pilot.press("down", "down")
        assert app.editor.text == "draft"
        await pilot.press("shift+enter")
        assert app.editor.text == "draft\n"  # a newline, not a send


async def test_bang_runs_bash_into_the_context_and_double_bang_keeps_it_out(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.transcript import ToolCall

    async with running_app(tmp_path) as (app, pilot):
        await type_and_enter(pilot, "!echo in-context")
        await until(pilot, lambda: any(c.done for c in app.query(ToolCall)))
        await type_and_enter(pilot, "!!echo kept-out")
        await until(pilot, lambda: len([c for c in app.query(ToolCall) if c.done]) == 2)
        calls = list(app.query(ToolCall))
        assert "in-context" in calls[0].output and "kept-out" in calls[1].output
        kept = [m for m in app.session.get_messages() if m["role"] == "bashExecution"]
        assert [m.get("excludeFromContext", False) for m in kept] == [False, True]


async def test_completion_of_commands_and_file_references(isolated_env, tmp_path):
    (tmp_path / "notes-for-pi.md").write_text("x")
    async with running_app(tmp_path) as (app, pilot):
        app.editor.load_text("/hot")
        await pilot.pause(0.05)
        assert "/hotkeys" in str(app.areas["completions"].render())
        await pilot.press("tab")
        assert app.editor.text == "/hotkeys "
        app.editor.load_text("read @notes-f")
        await pilot.press("tab")
        assert app.editor.text == "read @notes-for-pi.md"


async def test_prompt_template_is_expanded_by_the_session(isolated_env, tmp_path):
    prompts = tmp_path / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("---\ndescription: review it\n---\nPlease review $1 carefully")
    async with running_app(tmp_path, approve=True) as (app, pilot):
        app.editor.load_text("/rev")
        await pilot.pause(0.05)
        assert "/review" in str(app.areas["completions"].render())
        await type_and_enter(pilot, "/review main.py")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1][0] == "assistant")
        assert ("user", "Please review main.py carefully") in roles_texts(app)


async def test_edit_tool_call_shows_the_diff(isolated_env, tmp_path, faux_script):
    from pi_rpc.modes.interactive.transcript import ToolCall

    target = tmp_path / "f.txt"
    target.write_text("alpha\nbeta\n")
    call = {"name": "edit", "arguments": {"path": "f.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}}
    script = faux_script([{"toolCalls": [call]}, {"text": "edited"}])
    async with running_app(tmp_path, faux_script=script) as (app, pilot):
        await type_and_enter(pilot, "edit it")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1] == ("assistant", "edited"))
        await pilot.pause(0.05)
        (widget,) = app.query(ToolCall)
        assert not widget.is_error, widget.output
        assert "-" in widget.output and "beta" in widget.output and "gamma" in widget.output
        assert target.read_text() == "alpha\ngamma\n"


UI_EXT = """
def setup(pi):
    async def ask(args, ctx):
        ctx.ui.set_status("mine", "ext-status-on")
        ctx.ui.set_widget("w", ["widget line one", "widget line two"])
        name = await ctx.ui.input("Your name?", "type it")
        color = await ctx.ui.select("Color?", ["red", "green"])
        ctx.ui.notify(f"hello {name} in {color}")
        ctx.ui.set_editor_text("prefilled by ext")
    pi.register_command("ask", {"description": "ask things", "handler": ask})
"""


async def test_extension_command_with_ui_calls(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.transcript import Notice

    ext = tmp_path / "ui_ext.py"
    ext.write_text(UI_EXT)
    async with running_app(tmp_path, extensions=[str(ext)], approve=True) as (app, pilot):
        await pilot.pause(0.2)
        await type_and_enter(pilot, "/ask")
        await until(pilot, lambda: type(app.screen).__name__ == "InputScreen")
        assert "ext-status-on" in str(app.areas["footer"].render())
        assert "widget line two" in str(app.areas["ext-widgets"].render())
        await pilot.press(*"Ada", "enter")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen")
        await pilot.press("down", "enter")
        await until(pilot, lambda: any(n.text == "hello Ada in green" for n in app.query(Notice)))
        await until(pilot, lambda: app.editor.text == "prefilled by ext")


async def test_ctrl_c_clears_then_quits_when_pressed_twice(isolated_env, tmp_path):
    async with running_app(tmp_path) as (app, pilot):
        app.editor.load_text("half-written")
        await pilot.press("ctrl+c")
        assert app.editor.text == "" and app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause(0.05)
        assert app.is_running  # one press on an empty editor only warns
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)
        assert app.return_code == 0


CUSTOM = """
from textual.widgets import Static


class Asker(Static, can_focus=True):
    def __init__(self, done):
        super().__init__("Press y or n")
        self.done = done

    def on_key(self, event):
        if event.key in ("y", "n"):
            event.stop()
            self.done(event.key == "y")


def setup(pi):
    async def ask(args, ctx):
        answer = await ctx.ui.custom(lambda app, theme, keybindings, done: Asker(done))
        ctx.ui.notify(f"custom said {answer}")

    pi.register_command("ask", {"handler": ask})
"""


@pytest.mark.parametrize(("key", "said"), [("y", "True"), ("n", "False"), ("escape", "None")])
async def test_an_extensions_custom_component_replaces_the_editor_until_done(tmp_path, key, said):
    from pi_rpc.modes.interactive.transcript import Notice

    ext = tmp_path / "custom.py"
    ext.write_text(CUSTOM)
    async with running_app(tmp_path, extensions=[str(ext)], approve=True) as (app, pilot):
        await pilot.pause(0.3)  # extensions bound by the app's startup worker
        await type_and_enter(pilot, "/ask")
        await until(pilot, lambda: type(app.screen).__name__ == "CustomScreen")
        await until(pilot, lambda: bool(app.screen.query("Asker")))
        await pilot.press(key)
        await until(pilot, lambda: any(n.text == f"custom said {said}" for n in app.query(Notice)))
        assert type(app.screen).__name__ != "CustomScreen"


async def test_typing_updates_the_completion_line_only_when_it_changes(isolated_env, tmp_path, monkeypatch):
    """Each key typed recomputes the completions; an area whose text stays the same (empty
    while a prompt is typed) is not updated, so typing does not lay the screen out per key."""
    async with running_app(tmp_path) as (app, pilot):
        area = app.areas["completions"]
        shown: list[str] = []
        update = area.update

        def spy(content: object = "", **options: object) -> None:
            shown.append(str(content))
            update(content, **options)  # type: ignore[arg-type]

        monkeypatch.setattr(area, "update", spy)
        for ch in "plain words":
            await pilot.press("space" if ch == " " else ch)
        await pilot.pause(0.05)
        assert app.editor.text == "plain words" and shown == []
        app.editor.load_text("")
        await pilot.press("slash", "m", "o")
        await until(pilot, lambda: any("/model" in text for text in shown))
        assert area.display
        await pilot.press("backspace", "backspace", "backspace")
        await until(pilot, lambda: shown[-1] == "" and not area.display)
