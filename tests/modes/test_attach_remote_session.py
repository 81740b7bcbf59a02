"""``RemoteSession`` (pi_rpc/modes/attach): the interactive app (``PiApp``, Textual's pilot)
driving a session held by a real ``pi --mode rpc --listen`` subprocess: a prompt typed in the
app runs in the server, another client's prompt shows in the app, Esc aborts the server's run,
``!cmd`` streams its output, ``/name`` names the server's session, what the protocol cannot
serve says so, and quitting the app leaves the server running."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.listen_client import Conn, address_of, start_listening

from .attach_support import attached_app
from .interactive_support import type_and_enter, until

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

SLOW = {"match": "start", "text": "x" * 600, "delayMs": 20, "chunkChars": 1}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _texts(app: Any, kind: str) -> list[str]:
    from pi_rpc.modes.interactive import transcript

    return [w.text for w in app.query(getattr(transcript, kind))]


async def test_the_app_drives_a_served_session(isolated_env, tmp_path):
    root = tmp_path / "server"
    p, info = start_listening(root, [f"unix:{root}/pi.sock"], script=[SLOW] * 2)
    address = address_of(info, "unix")
    try:
        async with attached_app(address, isolated_env, tmp_path) as (app, pilot, remote):
            assert "faux-1" in str(app.areas["footer"].render())
            # Typed in the app: runs in the server, the answer streams back into the transcript.
            await type_and_enter(pilot, "hello remote")
            await until(pilot, lambda: "You said: hello remote" in _texts(app, "AssistantText"), timeout=30)
            editor = Conn(address)
            messages = editor.cmd("get_messages")["data"]["messages"]
            assert [m["role"] for m in messages if m["role"] != "system"] == ["user", "assistant"]

            # Another client's prompt shows in the app as if typed there.
            editor.cmd("prompt", message="from the editor")
            await until(pilot, lambda: "from the editor" in _texts(app, "UserMessage"), timeout=30)
            await until(pilot, lambda: "You said: from the editor" in _texts(app, "AssistantText"), timeout=30)

            # Esc aborts the server's run.
            await until(pilot, lambda: not remote.is_streaming, timeout=30)
            await type_and_enter(pilot, "start slow")
            await until(pilot, lambda: remote.is_streaming, timeout=30)
            await pilot.pause(0.3)
            await pilot.press("escape")
            await until(pilot, lambda: not remote.is_streaming, timeout=30)
            last = editor.cmd("get_messages")["data"]["messages"][-1]
            assert last["role"] == "assistant" and last["stopReason"] == "aborted"

            # !cmd runs in the server's session, its output streamed into the call.
            from pi_rpc.modes.interactive.transcript import ToolCall

            await type_and_enter(pilot, "!echo from-the-server-shell")
            await until(pilot, lambda: any(c.done for c in app.query(ToolCall)), timeout=30)
            (call,) = app.query(ToolCall)
            assert "from-the-server-shell" in call.output and not call.is_error

            # /name names the server's session (and the footer shows it).
            await type_and_enter(pilot, "/name remote work")
            await until(pilot, lambda: editor.cmd("get_state")["data"].get("sessionName") == "remote work")
            await until(pilot, lambda: "remote work" in str(app.areas["footer"].render()))

            # /model and /thinking change the server's session; the footer follows.
            await type_and_enter(pilot, "/model faux/faux-reasoner")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["model"]["id"] == "faux-reasoner")
            await until(pilot, lambda: "faux-reasoner" in str(app.areas["footer"].render()))
            await type_and_enter(pilot, "/thinking high")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["thinkingLevel"] == "high")

            # /new replaces the server's session; the transcript is reloaded from it.
            before = editor.cmd("get_state")["data"]["sessionId"]
            await type_and_enter(pilot, "/new")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["sessionId"] != before)
            await until(
                pilot, lambda: remote.get_messages() == [] or all(m["role"] == "system" for m in remote.get_messages())
            )
            await until(pilot, lambda: _texts(app, "UserMessage") == [])

            # /scoped-models sets the server's cycling scope ("Use for this session": not saved).
            await type_and_enter(pilot, "/scoped-models")
            for filter_text in ("faux-1", "use for"):
                await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen", timeout=20)
                await pilot.pause(0.2)
                await pilot.press(*("space" if ch == " " else ch for ch in filter_text), "enter")
            await until(pilot, lambda: any(n.text == "Scoped models: faux/faux-1" for n in _notices(app)))
            assert editor.cmd("get_scoped_models")["data"] == {"models": ["faux/faux-1"]}
        # Quitting the app leaves the server and its session running.
        assert p.popen.poll() is None
        state = Conn(address).cmd("get_state")["data"]
        assert state["model"]["id"] == "faux-reasoner" and state["isStreaming"] is False
    finally:
        p.kill()


def _notices(app: Any) -> list[Any]:
    from pi_rpc.modes.interactive import transcript

    kind = getattr(transcript, "Notice", None)
    return list(app.query(kind)) if kind is not None else []


GATE = """
def setup(pi):
    @pi.on("tool_call")
    async def gate(event, ctx):
        ok = await ctx.ui.confirm("Run it?", event["input"]["command"])
        ctx.ui.notify(f"gate saw {ok}")
        if not ok:
            return {"block": True, "reason": "Blocked by user"}
"""


async def test_the_servers_extension_dialogs_are_the_terminals(isolated_env, tmp_path):
    """An extension of the server asks ``ctx.ui.confirm``: the attached app shows the dialog and
    its answer goes back to the server (``extension_ui_response``); its notices show too."""
    from pi_rpc.modes.interactive.transcript import Notice, ToolCall

    root = tmp_path / "server"
    (root / "cwd").mkdir(parents=True)
    ext = root / "gate.py"
    ext.write_text(GATE)
    script = [
        {"toolCalls": [{"name": "bash", "arguments": {"command": "echo should-not-run"}}]},
        {"text": "ok"},
        {"toolCalls": [{"name": "bash", "arguments": {"command": "echo allowed-elsewhere"}}]},
        {"text": "ran"},
    ]
    p, info = start_listening(
        root, [f"unix:{root}/pi.sock"], script=script, args=("--extension", str(ext), "--approve")
    )
    try:
        async with attached_app(address_of(info, "unix"), isolated_env, tmp_path) as (app, pilot, remote):
            await type_and_enter(pilot, "run it")
            await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen", timeout=30)
            assert app.screen.message == "echo should-not-run"
            await pilot.press("down", "enter")  # "No"
            await until(pilot, lambda: not remote.is_streaming and remote.get_last_assistant_text()["text"] == "ok")
            await until(pilot, lambda: any(c.done for c in app.query(ToolCall)))
            (call,) = app.query(ToolCall)
            assert call.is_error and "Blocked by user" in call.output
            await until(pilot, lambda: any(n.text == "gate saw False" for n in app.query(Notice)))

            # Another client answers first: the terminal's dialog goes away, the answer stands.
            other = Conn(address_of(info, "unix"))
            await type_and_enter(pilot, "again")
            await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen", timeout=30)
            request = other.wait_for(lambda r: r.get("type") == "extension_ui_request" and r["method"] == "confirm")
            other.send({"type": "extension_ui_response", "id": request["id"], "confirmed": True})
            await until(pilot, lambda: type(app.screen).__name__ != "SelectScreen", timeout=30)
            await until(pilot, lambda: not remote.is_streaming and remote.get_last_assistant_text()["text"] == "ran")
            await until(pilot, lambda: any(n.text == "gate saw True" for n in app.query(Notice)))
    finally:
        p.kill()


async def test_steering_session_commands_and_cycling_over_the_wire(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.transcript import Notice

    root = tmp_path / "server"
    # (a steer waits for the streaming message to end: a short slow one)
    script = [{**SLOW, "text": "x" * 150}, {"text": "steered reply"}, {"text": "plain"}]
    p, info = start_listening(root, [f"unix:{root}/pi.sock"], script=script)
    address = address_of(info, "unix")
    try:
        async with attached_app(address, isolated_env, tmp_path) as (app, pilot, remote):
            editor = Conn(address)
            # Enter while the server's run streams: a steer.
            await type_and_enter(pilot, "start")
            await until(pilot, lambda: remote.is_streaming, timeout=30)
            await type_and_enter(pilot, "go left instead")
            await until(
                pilot,
                lambda: not remote.is_streaming and remote.get_last_assistant_text()["text"] == "steered reply",
                timeout=30,
            )
            users = [m for m in editor.cmd("get_messages")["data"]["messages"] if m["role"] == "user"]
            assert [m["content"][0]["text"] for m in users] == ["start", "go left instead"]
            assert any(n.text == "Queued as steer: go left instead" for n in app.query(Notice))

            # /session shows the server's session; /clone replaces it with a copy.
            session_id = editor.cmd("get_state")["data"]["sessionId"]
            await type_and_enter(pilot, "/session")
            await until(pilot, lambda: any(f"ID: {session_id}" in n.text for n in app.query(Notice)))
            await type_and_enter(pilot, "/clone")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["sessionId"] != session_id)
            await until(pilot, lambda: any(n.text == "Cloned into a new session" for n in app.query(Notice)))

            # The cycling keys act on the server's session.
            level = editor.cmd("get_state")["data"]["thinkingLevel"]
            await type_and_enter(pilot, "/model faux/faux-reasoner")
            await until(pilot, lambda: remote.model is not None and remote.model["id"] == "faux-reasoner")
            await pilot.press("shift+tab")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["thinkingLevel"] != level)
            await pilot.press("ctrl+p")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["model"]["id"] != "faux-reasoner")
    finally:
        p.kill()
