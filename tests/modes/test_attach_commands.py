"""``pi attach``'s slash commands whose work is the server's (pi_rpc/modes/attach/commands.py),
driven in the interactive app (Textual's pilot) against a real ``pi --mode rpc --listen``
subprocess: ``/tree`` moves and labels the server's session, ``/resume`` lists and opens the
server's sessions, ``/export`` writes the server's file, ``/login``/``/logout`` store and remove
a key in the server's auth.json (masked, never shown), ``/reload`` reloads the server's
resources and ``/scoped-models`` sets the server's cycling scope; and the mirror follows the runs without reading everything again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.listen_client import Conn, address_of, start_listening

from .attach_support import attached_app, notices, texts
from .interactive_support import type_and_enter, until

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(150)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _pick(pilot: Any, filter_text: str) -> None:
    app = pilot.app
    await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen", timeout=20)
    await pilot.pause(0.05)
    for ch in filter_text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.press("enter")


async def _ask(pilot: Any, text: str) -> None:
    await type_and_enter(pilot, text)
    await until(
        pilot,
        lambda: not pilot.app.session.is_streaming and texts(pilot.app, "AssistantText")[-1:] == [f"You said: {text}"],
        timeout=30,
    )


async def test_tree_resume_and_export_act_on_the_servers_sessions(isolated_env, tmp_path, monkeypatch):
    terminal = tmp_path / "terminal"
    terminal.mkdir()
    monkeypatch.chdir(terminal)
    root = tmp_path / "server"
    p, info = start_listening(root, [f"unix:{root}/pi.sock"])
    address = address_of(info, "unix")
    editor = Conn(address)
    try:
        async with attached_app(address, isolated_env, tmp_path) as (app, pilot, remote):
            await _ask(pilot, "first question")
            await _ask(pilot, "second question")
            # The runs were followed, not read again: one full read (attaching), light ones after.
            assert remote.reads["full"] == 1 and remote.reads["light"] >= 2
            assert remote.get_messages() == editor.cmd("get_messages")["data"]["messages"]
            assert remote.session.get_entries() == editor.cmd("get_entries")["data"]["entries"]
            assert remote.session.get_fork_messages() == editor.cmd("get_fork_messages")["data"]["messages"]

            # /tree: back to the second question (the server's leaf moves, its text in the editor).
            await type_and_enter(pilot, "/tree")
            await _pick(pilot, "user: second")
            await _pick(pilot, "continue from here")
            await until(pilot, lambda: app.editor.text == "second question")
            users = [m for m in editor.cmd("get_messages")["data"]["messages"] if m["role"] == "user"]
            assert [m["content"][0]["text"] for m in users] == ["first question"]
            await until(pilot, lambda: texts(app, "UserMessage") == ["first question"])
            # ... and a label set there is the server's.
            app.editor.load_text("")
            await type_and_enter(pilot, "/tree")
            await _pick(pilot, "user: first")
            await _pick(pilot, "label")
            await until(pilot, lambda: type(app.screen).__name__ == "InputScreen")
            await pilot.press(*"keep", "enter")
            first_id = editor.cmd("get_fork_messages")["data"]["messages"][0]["entryId"]

            def labelled() -> bool:
                stack = list(editor.cmd("get_tree")["data"]["tree"])
                while stack:
                    node = stack.pop()
                    if node["entry"]["id"] == first_id:
                        return node.get("label") == "keep"
                    stack.extend(node.get("children") or [])
                return False

            await until(pilot, labelled, timeout=20)

            # /export: the server writes the file; on this machine a relative path is the
            # terminal's cwd's, as in `pi`; without one, the server's name in its cwd.
            await type_and_enter(pilot, "/export out.html")
            await until(pilot, lambda: any(n.startswith("Exported to ") for n in notices(app)), timeout=20)
            assert f"Exported to {terminal / 'out.html'}" in notices(app)
            assert "<html" in (terminal / "out.html").read_text().lower()
            await type_and_enter(pilot, "/export")
            await until(pilot, lambda: any(n.endswith("(in the server's working directory)") for n in notices(app)))
            assert list((root / "cwd").glob("pi-session-*.html"))

            # /resume: the server's sessions; a new one, then back to the first.
            first_file = editor.cmd("get_state")["data"]["sessionFile"]
            await type_and_enter(pilot, "/new")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["sessionFile"] != first_file)
            await _ask(pilot, "in the second session")
            await type_and_enter(pilot, "/resume")
            await _pick(pilot, "first question")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["sessionFile"] == first_file, timeout=20)
            await until(pilot, lambda: texts(app, "UserMessage") == ["first question"])
            await until(pilot, lambda: any(n == "Resumed session" for n in notices(app)))
    finally:
        p.kill()


async def test_login_logout_reload_and_scoped_models(isolated_env, tmp_path):
    from pi_rpc.modes.interactive.commands.auth import SecretScreen

    root = tmp_path / "server"
    p, info = start_listening(root, [f"unix:{root}/pi.sock"])
    address = address_of(info, "unix")
    secret = "gsk-test-" + "y" * 24
    try:
        async with attached_app(address, isolated_env, tmp_path) as (app, pilot, remote):
            # /login: the server asks for the key (an extension UI input); typed masked here.
            await type_and_enter(pilot, "/login")
            await _pick(pilot, "api key")
            await _pick(pilot, "groq")
            await until(pilot, lambda: isinstance(app.screen, SecretScreen), timeout=20)
            from textual.widgets import Input

            assert app.screen.query_one(Input).password is True
            await pilot.press(*secret, "enter")
            await until(pilot, lambda: "Saved API key for Groq" in notices(app), timeout=20)
            stored = json.loads((root / "agent" / "auth.json").read_text())
            assert stored["groq"] == {"type": "api_key", "key": secret}
            assert not (isolated_env / "auth.json").exists()  # the server's, not the terminal's
            assert not any(secret in n for n in notices(app))
            assert any(m["provider"] == "groq" for m in remote.get_available_models())
            # Escape cancels a login.
            await type_and_enter(pilot, "/login groq")
            await until(pilot, lambda: isinstance(app.screen, SecretScreen), timeout=20)
            await pilot.press("escape")
            await until(pilot, lambda: "Login cancelled" in notices(app), timeout=20)
            # /logout removes it from the server's auth.json.
            await type_and_enter(pilot, "/logout")
            await _pick(pilot, "groq")
            await until(pilot, lambda: any(n.startswith("Removed stored API key for Groq") for n in notices(app)))
            assert "groq" not in json.loads((root / "agent" / "auth.json").read_text())

            # /reload: the server reloads its resources (a prompt template written after it
            # started), then the terminal reads the server's lists again.
            prompts = root / "agent" / "prompts"
            prompts.mkdir(parents=True, exist_ok=True)
            (prompts / "hello.md").write_text("---\ndescription: say hi\n---\nSay hi\n")
            assert not any(c["name"] == "hello" for c in remote.commands)
            await type_and_enter(pilot, "/reload")
            reloaded = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"
            await until(pilot, lambda: reloaded in notices(app), timeout=20)
            assert any(c["name"] == "hello" for c in remote.commands)
            assert any(c["name"] == "hello" for c in Conn(address).cmd("get_commands")["data"]["commands"])

            # /scoped-models: the picker on the server's scope; "Save" is the server's settings.
            await type_and_enter(pilot, "/scoped-models")
            await _pick(pilot, "faux-reasoner")
            await pilot.pause(0.2)
            await _pick(pilot, "save")
            await until(pilot, lambda: "Scoped models (saved): faux/faux-reasoner" in notices(app), timeout=20)
            editor = Conn(address)
            assert editor.cmd("get_scoped_models")["data"] == {"models": ["faux/faux-reasoner"]}
            settings = json.loads((root / "agent" / "settings.json").read_text())
            assert settings["enabledModels"] == ["faux/faux-reasoner"]
            assert editor.cmd("cycle_model")["data"]["isScoped"] is True
            # Opened again it shows the server's scope; "Use for this session" only sets it.
            await type_and_enter(pilot, "/scoped-models")
            await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen", timeout=20)
            labels = [label for label, _value in app.screen.options]
            assert "[x] faux/faux-reasoner" in labels and "[ ] faux/faux-1" in labels
            await pilot.pause(0.05)
            await pilot.press("escape")  # dismissed: nothing changes
            await until(pilot, lambda: type(app.screen).__name__ != "SelectScreen")
            assert editor.cmd("get_scoped_models")["data"] == {"models": ["faux/faux-reasoner"]}
    finally:
        p.kill()


async def test_reconnect_catches_up_after_a_drop_and_rereads_after_a_restart(isolated_env, tmp_path):
    """The connection drops while another client runs a prompt: the app reconnects and
    re-attaches with ``since``; the run it missed arrives once (no gap, no duplicate) and the
    mirror was not read again. Then the server is killed and started again: the app reconnects
    to the new process, reads its session in full and goes on working there."""
    import anyio

    from pi_rpc.modes.attach.connection import Connection

    root = tmp_path / "server"
    p, info = start_listening(root, [f"unix:{root}/pi.sock"])
    address = address_of(info, "unix")
    gate = anyio.Event()

    async def reopen() -> Connection:
        await gate.wait()  # (the drop lasts until the test lets it end)
        return await Connection.open(address)

    def footer(app: Any) -> str:
        return str(app.areas["footer"].render())

    try:
        async with attached_app(address, isolated_env, tmp_path, reopen=reopen) as (app, pilot, remote):
            await _ask(pilot, "before the drop")
            full_reads = remote.reads["full"]
            await remote.connection.aclose()  # the blip: the client's socket goes away
            await until(pilot, lambda: "reconnecting to" in footer(app), timeout=20)
            editor = Conn(address)
            editor.cmd("prompt", message="while away")
            editor.wait_for(lambda r: r.get("type") == "agent_settled", timeout=30)
            gate.set()
            await until(pilot, lambda: len(remote.reconnects) == 1, timeout=30)
            assert remote.reconnects[0]["reread"] is False and remote.reconnects[0]["replayed"] > 0
            assert remote.reads["full"] == full_reads  # caught up from the events alone
            await until(pilot, lambda: texts(app, "UserMessage") == ["before the drop", "while away"])
            await until(pilot, lambda: texts(app, "AssistantText").count("You said: while away") == 1)
            assert remote.get_messages() == editor.cmd("get_messages")["data"]["messages"]
            # (the footer and the notice are updated in the app's message loop, after the
            # reconnect is recorded: waited for, not read at once)
            await until(pilot, lambda: "reconnecting" not in footer(app))
            await until(pilot, lambda: any(n.startswith(f"Reconnected to {address}: caught up") for n in notices(app)))
            await _ask(pilot, "after the drop")

            # The server dies and a new one listens at the same address: a fresh session.
            p.kill()
            p.popen.wait()
            await until(pilot, lambda: "reconnecting to" in footer(app), timeout=20)
            p, info = start_listening(root, [f"unix:{root}/pi.sock"])
            await until(pilot, lambda: len(remote.reconnects) == 2, timeout=40)
            assert remote.reconnects[1]["reread"] is True
            fresh = Conn(address).cmd("get_state")["data"]["sessionId"]
            assert remote.session.session_id == fresh
            await until(pilot, lambda: texts(app, "UserMessage") == [])
            await _ask(pilot, "on the new server")
            assert texts(app, "UserMessage") == ["on the new server"]
    finally:
        p.kill()


async def test_reconnect_gives_up_after_its_bound(isolated_env, tmp_path):
    root = tmp_path / "server"
    p, info = start_listening(root, [f"unix:{root}/pi.sock"])
    address = address_of(info, "unix")
    try:
        async with attached_app(address, isolated_env, tmp_path, reconnect_seconds=1.5) as (app, pilot, remote):
            p.kill()
            p.popen.wait()
            await until(pilot, lambda: remote.closed.is_set(), timeout=20)
            assert remote.lost_reason is not None and "could not be made again in 1.5 s" in remote.lost_reason
    finally:
        p.kill()


def test_a_server_is_local_on_a_unix_socket_or_a_loopback_address():
    from pi_rpc.modes.attach.remote_session import is_local

    assert is_local("unix:/tmp/pi.sock") and is_local("tcp:127.0.0.1:4000") and is_local("tcp:[::1]:4000")
    assert is_local("ws://localhost:4000/rpc") and is_local("wss://127.0.0.1:4000")
    assert not is_local("tcp:10.1.2.3:4000") and not is_local("wss://pi.example.com:443/rpc")


async def test_trust_and_import_on_a_local_server_and_refused_for_a_remote_one(isolated_env, tmp_path):
    import shutil

    root = tmp_path / "server"
    p, info = start_listening(root, [f"unix:{root}/pi.sock"])
    address = address_of(info, "unix")
    editor = Conn(address)
    try:
        async with attached_app(address, isolated_env, tmp_path) as (app, pilot, remote):
            # /trust: the decision for the served session's folder, in this user's trust file.
            await type_and_enter(pilot, "/trust")
            await _pick(pilot, "")
            await until(pilot, lambda: any(n.startswith("Saved trust decision: trusted") for n in notices(app)))
            trust = json.loads((isolated_env / "trust.json").read_text())
            assert trust.get(str((root / "cwd").resolve())) is True

            # /import: a session file copied into the server's session directory and opened.
            await _ask(pilot, "to be imported")
            original = editor.cmd("get_state")["data"]["sessionFile"]
            copy = tmp_path / "exported-session.jsonl"
            shutil.copyfile(original, copy)
            await type_and_enter(pilot, "/new")
            await until(pilot, lambda: editor.cmd("get_state")["data"]["sessionFile"] != original)
            await until(pilot, lambda: texts(app, "UserMessage") == [])
            await type_and_enter(pilot, f"/import {copy}")
            await _pick(pilot, "yes")
            imported = str(__import__("pathlib").Path(original).parent / copy.name)
            await until(pilot, lambda: editor.cmd("get_state")["data"]["sessionFile"] == imported, timeout=20)
            await until(pilot, lambda: texts(app, "UserMessage") == ["to be imported"])

            # Not on this machine: both say why.
            remote.local = False
            await type_and_enter(pilot, "/trust")
            await until(
                pilot,
                lambda: any(
                    n.startswith("/trust is not available over `pi attach` to another machine") for n in notices(app)
                ),
            )
            await type_and_enter(pilot, f"/import {copy}")
            await until(
                pilot,
                lambda: any(
                    n.startswith("/import is not available over `pi attach` to another machine") for n in notices(app)
                ),
            )
    finally:
        p.kill()


async def test_another_clients_new_session_is_shown_after_its_run(isolated_env, tmp_path):
    root = tmp_path / "server"
    p, info = start_listening(root, [f"unix:{root}/pi.sock"])
    address = address_of(info, "unix")
    editor = Conn(address)
    try:
        async with attached_app(address, isolated_env, tmp_path) as (app, pilot, remote):
            await _ask(pilot, "in the old session")
            editor.cmd("new_session")
            editor.cmd("prompt", message="in the new session")
            await until(
                pilot, lambda: remote.session.session_id == editor.cmd("get_state")["data"]["sessionId"], timeout=30
            )
            await until(pilot, lambda: texts(app, "UserMessage") == ["in the new session"], timeout=30)
            assert remote.get_messages() == editor.cmd("get_messages")["data"]["messages"]
    finally:
        p.kill()


async def test_a_drop_mid_answer_is_caught_up_without_a_gap_or_a_duplicate(isolated_env, tmp_path):
    """The connection drops while the answer streams: the deltas sent meanwhile are replayed,
    then the stream goes on live; the answer on screen is the server's, character for character."""
    import anyio

    from pi_rpc.modes.attach.connection import Connection

    root = tmp_path / "server"
    answer = "".join(chr(ord("a") + i % 26) for i in range(300))
    p, info = start_listening(
        root, [f"unix:{root}/pi.sock"], script=[{"match": "go", "text": answer, "delayMs": 10, "chunkChars": 1}]
    )
    address = address_of(info, "unix")
    gate = anyio.Event()

    async def reopen() -> Connection:
        await gate.wait()
        connection = await Connection.open(address)
        # (a new connection starts attached to "default": let live deltas reach it before the
        # catch-up is asked for, so the replay of older ones comes after newer ones)
        connection.on_record = lambda record: None
        await anyio.sleep(0.3)
        return connection

    try:
        async with attached_app(address, isolated_env, tmp_path, reopen=reopen) as (app, pilot, remote):
            deltas: list[str] = []

            async def collect(event: dict[str, Any]) -> None:
                inner = event.get("assistantMessageEvent") or {}
                if event.get("type") == "message_update" and inner.get("type") == "text_delta":
                    deltas.append(inner["delta"])

            remote.subscribe(collect)
            await type_and_enter(pilot, "go")
            await until(pilot, lambda: any(len(t) > 20 for t in texts(app, "AssistantText")), timeout=30)
            await remote.connection.aclose()
            await pilot.pause(0.8)  # (deltas go on in the server meanwhile)
            gate.set()
            await until(pilot, lambda: len(remote.reconnects) == 1, timeout=30)
            await until(pilot, lambda: not remote.is_streaming, timeout=30)
            await until(pilot, lambda: texts(app, "AssistantText") == [answer], timeout=30)
            assert "".join(deltas) == answer  # every delta the app was given, once, in order
            assert remote.reconnects[0]["reread"] is False and remote.reconnects[0]["replayed"] > 0
            assert remote.get_messages() == Conn(address).cmd("get_messages")["data"]["messages"]
    finally:
        p.kill()
