"""Extension dialogs in ACP sessions: ``ctx.ui.confirm``/``select`` as ``session/request_permission``
(a synthetic tool call announced and finished), ``input``/``editor`` as form elicitations when the
client offers them (else their defaults), ``notify`` in the conversation, and dialogs resolved with
their defaults on timeout, ``session/cancel`` and a ``cancelled`` answer — through the official
client SDK against the real process."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

pytestmark = pytest.mark.anyio

GATE = Path(__file__).resolve().parents[2] / "examples" / "extensions" / "permission_gate.py"

# A command per dialog; each reports what it got with ctx.ui.notify, so the test reads it back.
ASKING_EXTENSION = """
def setup(pi):
    async def ask(args, ctx):
        kind = args.strip()
        if kind == "confirm":
            answer = await ctx.ui.confirm("Deploy?", "This pushes to production.")
        elif kind == "confirm-timeout":
            answer = await ctx.ui.confirm("Quick?", "Answer fast.", timeout=300)
        elif kind == "select":
            answer = await ctx.ui.select("Pick a color", ["red", "green", "blue"])
        elif kind == "input":
            answer = await ctx.ui.input("Your name", "e.g. Ada")
        elif kind == "editor":
            answer = await ctx.ui.editor("Commit message", "fix: ")
        else:
            answer = (ctx.has_ui, ctx.mode)
        ctx.ui.notify(f"answer={answer!r}", "info")

    async def started(event, ctx):
        ctx.ui.notify("extension ready", "warning")

    pi.register_command("ask", {"description": "Ask the user", "handler": ask})
    pi.on("session_start", started)
"""


def _extension(tmp_path: Path) -> str:
    path = tmp_path / "asking.py"
    path.write_text(ASKING_EXTENSION)
    return str(path)


async def _session(run):
    """A new session, once session_start's notification (held until the result) arrived."""
    session = await run.new_session()
    with anyio.fail_after(10):
        await run.client.when(lambda u: u.session_update == "agent_message_chunk" and "ready" in u.content.text).wait()
    return session


def _final(run, call_id):
    return [u for u in run.client.of("tool_call_update") if u.tool_call_id == call_id][-1]


async def test_permission_gate_select_becomes_a_permission_request(acp_agent):
    script = [
        {"toolCalls": [{"id": "rm1", "name": "bash", "arguments": {"command": "rm -rf build && echo removed"}}]},
        {"toolCalls": [{"id": "rm2", "name": "bash", "arguments": {"command": "rm -rf dist"}}]},
        {"text": "done"},
    ]
    async with acp_agent("-e", str(GATE), script=script) as run:
        (run.cwd / "build").mkdir()
        (run.cwd / "dist").mkdir()
        run.client.permission_answers = ["choice-0", "choice-1"]  # "Yes", then "No"
        await run.initialize()
        session = await run.new_session()
        assert (await run.prompt(session.session_id, "clean up")).stop_reason == "end_turn"
        (first, first_options), (second, _) = run.client.permission_requests
        assert [(o.option_id, o.name, o.kind) for o in first_options] == [
            ("choice-0", "Yes", "allow_once"),
            ("choice-1", "No", "allow_once"),
        ]
        assert first.title.startswith("⚠️ Dangerous command:") and "rm -rf build" in first.title
        assert first.kind == "other" and first.tool_call_id.startswith("ui-") and first.status == "pending"
        announced = {u.tool_call_id for u in run.client.of("tool_call")}
        assert {first.tool_call_id, second.tool_call_id} <= announced  # shown before asked
        assert _final(run, first.tool_call_id).raw_output == {"value": "Yes"}
        assert _final(run, first.tool_call_id).status == "completed"
        assert _final(run, second.tool_call_id).raw_output == {"value": "No"}
        assert _final(run, "rm1").status == "completed" and not (run.cwd / "build").exists()
        blocked = _final(run, "rm2")
        assert blocked.status == "failed" and blocked.content[0].content.text == "Blocked by user"
        assert (run.cwd / "dist").exists()


async def test_confirm_select_and_ui_in_commands(acp_agent, tmp_path):
    async with acp_agent("-e", _extension(tmp_path)) as run:
        run.client.permission_answers = ["yes", "choice-2", "cancelled", "no"]
        await run.initialize()
        session = await _session(run)
        # session_start's notification waits for the session/new result, then shows up.
        result_at = next(i for i, m in enumerate(run.raw) if "result" in m and "sessionId" in m.get("result", {}))
        ready_at = next(i for i, m in enumerate(run.raw) if "extension ready" in str(m))
        assert result_at < ready_at
        assert "Warning: extension ready" in run.client.text()
        assert "/ask" in [
            f"/{c.name}" for u in run.client.of("available_commands_update") for c in u.available_commands
        ]

        async def ask(kind: str) -> str:
            before = len(run.client.text())
            result = await run.prompt(session.session_id, f"/ask {kind}")
            assert result.stop_reason == "end_turn"
            return run.client.text()[before:].strip()

        assert await ask("") == "answer=(True, 'acp')"  # ctx.has_ui, ctx.mode
        assert await ask("confirm") == "answer=True"
        confirm, options = run.client.permission_requests[0]
        assert (confirm.title, confirm.content[0].content.text) == ("Deploy?", "This pushes to production.")
        assert [(o.option_id, o.kind) for o in options] == [("yes", "allow_once"), ("no", "reject_once")]
        assert await ask("select") == "answer='blue'"
        assert await ask("select") == "answer=None"  # the client answered "cancelled"
        assert _final(run, run.client.permission_requests[2][0].tool_call_id).status == "failed"
        assert await ask("confirm") == "answer=False"
        # No elicitation capability: input and editor return their defaults without asking.
        assert await ask("input") == "answer=None"
        assert await ask("editor") == "answer=None"
        assert run.client.elicitations == []


async def test_input_and_editor_use_form_elicitation_when_offered(acp_agent, tmp_path):
    async with acp_agent("-e", _extension(tmp_path)) as run:
        run.client.elicitation_answers = ["Ada", "fix: the bug", "decline"]
        await run.initialize(elicitation=True)
        session = await _session(run)
        for command, expected in (
            ("input", "answer='Ada'"),
            ("editor", "answer='fix: the bug'"),
            ("input", "answer=None"),
        ):
            before = len(run.client.text())
            await run.prompt(session.session_id, f"/ask {command}")
            assert run.client.text()[before:].strip() == expected
        (message, mode), (_, editor_mode), _ = run.client.elicitations
        assert message == "Your name"
        field = mode.requested_schema.properties["value"]
        assert (field.type, field.title, field.description) == ("string", "Your name", "e.g. Ada")
        assert mode.requested_schema.required == ["value"] and mode.session_id == session.session_id
        assert editor_mode.requested_schema.properties["value"].default == "fix: "


async def test_dialogs_end_with_their_defaults_on_timeout_and_cancel(acp_agent, tmp_path):
    async with acp_agent("-e", _extension(tmp_path)) as run:
        run.client.permission_answers = ["hold", "hold"]
        await run.initialize()
        session = await _session(run)
        with anyio.fail_after(30):
            before = len(run.client.text())
            await run.prompt(session.session_id, "/ask confirm-timeout")  # nobody answers within 300 ms
            assert run.client.text()[before:].strip() == "answer=False"
            timed_out = run.client.permission_requests[0][0].tool_call_id
            assert _final(run, timed_out).status == "failed" and _final(run, timed_out).raw_output == {
                "cancelled": True
            }

            asked = run.client.when(lambda u: u.session_update == "tool_call" and u.title == "Deploy?")
        result = await run.prompt_then_cancel(session.session_id, "/ask confirm", asked.wait)
        assert result.stop_reason == "cancelled"
        assert run.client.text().endswith("answer=False\n\n")


async def test_extension_errors_are_shown_in_the_conversation(acp_agent, tmp_path):
    failing = tmp_path / "failing.py"
    failing.write_text(
        "def setup(pi):\n    async def boom(event, ctx):\n        raise RuntimeError('turn hook broke')\n    pi.on('turn_start', boom)\n"
    )
    async with acp_agent("-e", str(failing)) as run:
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "hello")
        assert f"Extension error ({failing}): turn hook broke" in run.client.text()


async def test_a_broken_extension_fails_the_session_request(acp_agent, tmp_path):
    from acp.exceptions import RequestError

    broken = tmp_path / "broken.py"
    broken.write_text("def setup(pi):\n    raise RuntimeError('gate did not start')\n")
    async with acp_agent("-e", str(broken)) as run:
        await run.initialize()
        with pytest.raises(RequestError) as failure:
            await run.new_session()
        assert "gate did not start" in failure.value.data["details"] and "pi -ne" in failure.value.data["details"]


async def test_model_and_name_changes_by_extensions_reach_the_client(acp_agent, tmp_path):
    changer = tmp_path / "changer.py"
    changer.write_text(
        "def setup(pi):\n"
        "    async def switch(args, ctx):\n"
        "        await pi.set_model(ctx.model_registry.find('faux', 'faux-reasoner'))\n"
        "        pi.set_session_name('Renamed by an extension')\n"
        "    pi.register_command('switch', {'description': 'switch', 'handler': switch})\n"
    )
    async with acp_agent("-e", str(changer), "--model", "faux/faux-1") as run:
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "/switch")
        (update,) = run.client.of("config_option_update")
        assert {o.id: o.current_value for o in update.config_options}["model"] == "faux/faux-reasoner"
        with anyio.fail_after(10):  # the runtime emits the rename in the background
            await run.client.when(lambda u: u.session_update == "session_info_update").wait()
        assert [u.title for u in run.client.of("session_info_update")] == ["Renamed by an extension"]
        await run.prompt(session.session_id, "no change")
        assert len(run.client.of("config_option_update")) == 1
