"""``pi --listen <address>`` in the interactive mode (a real terminal: tmux): the session on
screen is served to RPC clients over a Unix socket and WebSocket. A client's prompt runs in it
and shows on the screen; what the person types reaches the clients as events; several clients
see one numbering; quitting closes the connections and removes the socket; flags that cannot
work refuse startup."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pi_rpc_client import RpcProcessExited, connect

from .interactive_support import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_file(path: Path, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.1)
    raise AssertionError(f"{path} not written")


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    # (a Unix socket path must be short: pytest's tmp paths can pass the 108-byte limit)
    d = Path(tempfile.mkdtemp(prefix="pi-l-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _until_settled(stream: Any, timeout: float = 30) -> list[dict[str, Any]]:
    got = [stream.next(timeout=timeout)]
    while got[-1].get("type") != "agent_settled":
        got.append(stream.next(timeout=timeout))
    return got


def test_the_terminal_session_is_served_to_clients(tmp_path, sock_dir):
    sock = sock_dir / "pi.sock"
    port = _free_port()
    marker = tmp_path / "exit-code"
    command = (
        f"{sys.executable} -m pi_rpc --no-session --model faux/faux-1 --tui-mode regular "
        f"--listen unix:{sock} --listen ws://127.0.0.1:{port}/; echo $? > {marker}; sleep 30"
    )
    term = Tmux(tmp_path, command, size=(120, 30))
    clients: list[Any] = []
    try:
        shown = term.wait_for("Serving this session")
        assert f"unix:{sock}" in shown.replace("\n", "")
        assert oct(os.stat(sock).st_mode & 0o777) == "0o600"
        editor = connect(f"unix:{sock}", default_timeout=20)
        clients.append(editor)
        token_file = tmp_path / "agent" / "listen-token"
        watcher = connect(f"ws://127.0.0.1:{port}/", token_file=token_file, default_timeout=20)
        clients.append(watcher)
        editor.set_event_options(seq=True)
        watcher.set_event_options(seq=True)
        state = editor.get_state()
        assert state["isStreaming"] is False and state["model"]["id"] == "faux-1"

        # A client's prompt runs in the terminal's session: the screen shows it.
        seen = watcher.events()
        result = editor.prompt_and_wait("from the editor", timeout=30)
        assert result.text() == "You said: from the editor"
        term.wait_for("You said: from the editor")
        watched = _until_settled(seen)
        assert [r["seq"] for r in watched] == [r["seq"] for r in result.events]  # one numbering

        # What the person types reaches the clients as events.
        stream = editor.events()
        term.type("typed in the terminal")
        events = _until_settled(stream)
        users = [e for e in events if e["type"] == "message_start" and e["message"]["role"] == "user"]
        assert users and users[0]["message"]["content"][0]["text"] == "typed in the terminal"
        assert editor.get_last_assistant_text() == "You said: typed in the terminal"
        roles = [m["role"] for m in watcher.get_messages() if m["role"] != "system"]
        assert roles == ["user", "assistant", "user", "assistant"]
        assert {s["handle"]: s["attached"] for s in editor.list_open_sessions()}["default"] == 2

        # A client may open another session in the process (not shown on screen).
        side = editor.open_session()
        assert side.prompt_and_wait("on the side", timeout=30).text() == "You said: on the side"
        assert "on the side" not in term.screen()
        assert [m["role"] for m in editor.get_messages() if m["role"] != "system"] == roles  # default untouched

        # Quitting closes the connections and the listeners; the exit code is the app's.
        term.type("/quit")
        assert _wait_file(marker) == "0"
        with pytest.raises(RpcProcessExited):
            while True:
                stream.next(timeout=10)
        assert not sock.exists()
    finally:
        for client in clients:
            client.close()
        term.kill()


def test_flags_that_cannot_work_refuse_startup(tmp_path, sock_dir):
    in_the_way = sock_dir / "file"
    in_the_way.write_text("not a socket")
    marker = tmp_path / "exit-code"
    command = (
        f"{sys.executable} -m pi_rpc --no-session --model faux/faux-1 --listen unix:{in_the_way}; "
        f"echo $? > {marker}; sleep 30"
    )
    term = Tmux(tmp_path, command, size=(120, 30))
    try:
        assert _wait_file(marker) == "1"
        assert "a file that is not a socket is in the way" in term.screen().replace("\n", "")
    finally:
        term.kill()
    marker.unlink()
    command = (
        f"{sys.executable} -m pi_rpc --no-session --model faux/faux-1 --listen unix:{sock_dir}/s --exit-when-idle 5; "
        f"echo $? > {marker}; sleep 30"
    )
    term = Tmux(tmp_path, command, size=(120, 30))
    try:
        assert _wait_file(marker) == "1"
        assert "--exit-when-idle go with --mode rpc --listen" in term.screen().replace("\n", "")
    finally:
        term.kill()
