"""``pi attach <address>`` in a real terminal (tmux) against a real ``pi --mode rpc --listen``
subprocess: the prompt typed there runs in the server's session (another client sees its
events), quitting leaves the server running, the server going away ends the app with 1, and an
unknown handle or a refused token are refused with the reason."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.support.listen_client import Conn, address_of, start_listening

from .interactive_support import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


def _wait_file(path: Path, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.1)
    raise AssertionError(f"{path} not written")


def _attach(tmp_path: Path, args: str, marker: Path) -> Tmux:
    command = f"{sys.executable} -m pi_rpc attach {args} --tui-mode regular; echo $? > {marker}; sleep 30"
    return Tmux(tmp_path, command, size=(120, 30))


def test_attach_drives_the_servers_session_and_leaves_it_running(tmp_path):
    # (the server's agent dir is the terminal's: the token file is found there)
    p, info = start_listening(tmp_path, [f"unix:{tmp_path}/pi.sock", "tcp:127.0.0.1:0"])
    marker = tmp_path / "exit-code"
    watcher = Conn(address_of(info, "unix"))
    term = _attach(tmp_path, address_of(info, "tcp"), marker)
    try:
        term.wait_for("Attached to session default")
        term.type("hello over the wire")
        term.wait_for("You said: hello over the wire")
        watcher.wait_for(lambda r: r.get("type") == "agent_settled", timeout=30)
        users = [r for r in watcher.records if r.get("type") == "message_start" and r["message"]["role"] == "user"]
        assert users[0]["message"]["content"][0]["text"] == "hello over the wire"
        # Another client's run shows on the attached terminal.
        watcher.cmd("prompt", message="sent by another client")
        term.wait_for("You said: sent by another client")
        term.type("/quit")
        assert _wait_file(marker) == "0"
        assert p.popen.poll() is None  # the server goes on
        messages = watcher.cmd("get_messages")["data"]["messages"]
        assert [m["role"] for m in messages if m["role"] != "system"] == ["user", "assistant"] * 2
    finally:
        term.kill()
        p.kill()


def test_the_server_going_away_ends_attach_with_1(tmp_path):
    p, info = start_listening(tmp_path, [f"unix:{tmp_path}/pi.sock"])
    marker = tmp_path / "exit-code"
    term = _attach(tmp_path, f"{address_of(info, 'unix')} --reconnect 1", marker)
    try:
        term.wait_for("Attached to session default")
        p.popen.kill()
        assert _wait_file(marker) == "1"
        assert "couldnotbemadeagainin1s" in "".join(term.screen().split())  # (wherever it wraps)
    finally:
        term.kill()
        p.kill()


def test_a_restarted_server_is_reattached_and_quitting_prints_the_resume_hint(tmp_path):
    """The server is killed and started again at the same address: the terminal shows it is
    reconnecting, then works on the new server's session; ``/quit`` prints how to attach again."""
    p, info = start_listening(tmp_path, [f"unix:{tmp_path}/pi.sock"])
    address = address_of(info, "unix")
    marker = tmp_path / "exit-code"
    term = _attach(tmp_path, address, marker)
    try:
        term.wait_for("Attached to session default")
        term.type("before the restart")
        term.wait_for("You said: before the restart")
        p.popen.kill()
        p.popen.wait()
        term.wait_for("reconnecting to")
        p, info = start_listening(tmp_path, [f"unix:{tmp_path}/pi.sock"])
        term.wait_for("Reconnected to")
        term.type("after the restart")
        term.wait_for("You said: after the restart")
        term.type("/quit")
        assert _wait_file(marker) == "0"
        screen = "".join(term.screen().split())  # (wherever it wraps)
        assert "Toresumethissession:" in screen
        assert f"piattach{address}" in screen
        assert p.popen.poll() is None
    finally:
        term.kill()
        p.kill()


def test_a_tcp_attach_reconnects_to_a_server_restarted_on_its_port(tmp_path):
    """Over TCP the token is read from the token file again for the new process (which made a
    new one here)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp:127.0.0.1:{port}"
    p, _ = start_listening(tmp_path, [address])
    marker = tmp_path / "exit-code"
    term = _attach(tmp_path, address, marker)
    try:
        term.wait_for("Attached to session default")
        term.type("first server")
        term.wait_for("You said: first server")
        p.popen.kill()
        p.popen.wait()
        term.wait_for("reconnecting to")
        token_file = tmp_path / "agent" / "listen-token"
        old_token = token_file.read_text()
        token_file.unlink()  # the new process makes a new token
        p, _ = start_listening(tmp_path, [address])
        assert token_file.read_text() != old_token
        term.wait_for("Reconnected to")
        term.type("second server")
        term.wait_for("You said: second server")
        term.type("/quit")
        assert _wait_file(marker) == "0"
    finally:
        term.kill()
        p.kill()


def test_unknown_handle_and_wrong_token_are_refused(tmp_path):
    p, info = start_listening(tmp_path, [f"unix:{tmp_path}/pi.sock", "tcp:127.0.0.1:0"])
    try:
        marker = tmp_path / "exit-code"
        term = _attach(tmp_path, f"{address_of(info, 'unix')} --session nope", marker)
        try:
            assert _wait_file(marker) == "1"
            # (whitespace dropped: where the terminal wraps the line depends on the path's length)
            assert 'Unknownsessionhandle"nope"' in "".join(term.screen().split())
        finally:
            term.kill()
        marker.unlink()
        wrong = tmp_path / "wrong-token"
        wrong.write_text("not-the-token")
        term = _attach(tmp_path, f"{address_of(info, 'tcp')} --token-file {wrong}", marker)
        try:
            assert _wait_file(marker) == "1"
            assert "wrong token" in term.screen().replace("\n", "")
        finally:
            term.kill()
        assert p.popen.poll() is None
    finally:
        p.kill()


def test_two_terminals_on_one_session(tmp_path):
    """An interactive ``pi --listen`` and a ``pi attach`` to it: what is typed in either runs in
    the one session and shows on both screens."""
    import tempfile

    sock_dir = Path(tempfile.mkdtemp(prefix="pi-a-", dir="/tmp"))
    sock = sock_dir / "pi.sock"
    host_marker, client_marker = tmp_path / "host-exit", tmp_path / "client-exit"
    host = Tmux(
        tmp_path,
        f"{sys.executable} -m pi_rpc --no-session --model faux/faux-1 --tui-mode regular --listen unix:{sock}; "
        f"echo $? > {host_marker}; sleep 30",
        size=(120, 30),
    )
    client: Tmux | None = None
    try:
        host.wait_for("Serving this session")
        client = _attach(tmp_path, f"unix:{sock}", client_marker)
        client.wait_for("Attached to session default")
        client.type("typed in the attached terminal")
        host.wait_for("You said: typed in the attached terminal")
        client.wait_for("You said: typed in the attached terminal")
        host.type("typed in the first terminal")
        client.wait_for("You said: typed in the first terminal")
        host.wait_for("You said: typed in the first terminal")
        client.type("/quit")
        assert _wait_file(client_marker) == "0"
        host.type("still here")
        host.wait_for("You said: still here")  # the host's session went on
        host.type("/quit")
        assert _wait_file(host_marker) == "0"
    finally:
        if client is not None:
            client.kill()
        host.kill()
        shutil.rmtree(sock_dir, ignore_errors=True)
