"""``pi --mode rpc --listen`` (#34; protocol/README.md "Listeners"): the real server on Unix
sockets, TCP and WebSocket on 127.0.0.1, driven by real clients: the protocol on every
transport, tokens, attach/detach and catch-up, many connections on one streaming session, a
client that stops reading, connection churn, bad input on one connection while another streams,
kill -9."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.listen_client import Conn, address_of, start_listening
from tests.support.pi_process import PiProcess, RecordTimeout, start_in

ADDRS = ("unix", "tcp", "ws")


def _answer(words: int = 40) -> str:
    return " ".join(f"w{i:03d}" for i in range(words))


def _script(delay_ms: int = 5, words: int = 40) -> list[dict[str, Any]]:
    return [{"match": "stream", "text": _answer(words), "delayMs": delay_ms, "chunkChars": 4}]


def _settled(r: Any) -> bool:
    return r.get("type") == "agent_settled"


def _events(records: list[Any]) -> list[Any]:
    return [r for r in records if r.get("type") != "response"]


# (a matched turn answers once: enough of each for every test of the shared server)
SCRIPT = [
    *[{"match": "stream-fast", "text": _answer(12), "delayMs": 1, "chunkChars": 4}] * 10,
    *[{"match": "stream-slow", "text": _answer(80), "delayMs": 15, "chunkChars": 4}] * 10,
    *[{"match": "stream-mid", "text": _answer(60), "delayMs": 3, "chunkChars": 4}] * 10,
]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Callable[..., tuple[PiProcess, dict[str, Any]]]]:
    """A server of its own (for flags the shared one cannot have)."""
    procs: list[PiProcess] = []

    def start(
        listen: tuple[str, ...] = ADDRS, args: tuple[str, ...] = (), **kwargs: Any
    ) -> tuple[PiProcess, dict[str, Any]]:
        root = tmp_path / f"p{len(procs)}"
        root.mkdir()
        addresses = []
        for kind in listen:
            addresses.append(
                {"unix": f"unix:{root}/pi.sock", "tcp": "tcp:127.0.0.1:0", "ws": "ws://127.0.0.1:0/rpc"}.get(kind, kind)
            )
        p, info = start_listening(root, addresses, args=args, **kwargs)
        procs.append(p)
        return p, info

    yield start
    for p in procs:
        p.kill()


ASK = """
import anyio


def setup(pi):
    async def ask(args, ctx):
        ok = await ctx.ui.confirm("Go?", "sure?", timeout=20000)
        ctx.ui.notify(f"answer={ok}")

    async def later(args, ctx):
        await anyio.sleep(float(args or 1))
        ok = await ctx.ui.confirm("Later?", "sure?", timeout=300)
        ctx.ui.notify(f"later={ok}")

    pi.register_command("ask", {"handler": ask})
    pi.register_command("later", {"handler": later})
"""


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PiProcess, dict[str, Any]]]:
    """One server on all three transports for the tests that only need the defaults (each works
    in sessions of its own, or only reads)."""
    root = tmp_path_factory.mktemp("shared")
    p, info = start_listening(
        root,
        [f"unix:{root}/pi.sock", "tcp:127.0.0.1:0", "ws://127.0.0.1:0/rpc"],
        args=("--allow-origin", "https://ok.example", "--max-frame-bytes", "8192", "-e", "../ext/ask.py"),
        script=SCRIPT,
        files={"ext/ask.py": ASK},
    )
    yield p, info
    p.kill()


@pytest.fixture
def conns() -> Iterator[list[Conn]]:
    """Connections a test opened (closed after it)."""
    opened: list[Conn] = []
    yield opened
    for c in opened:
        c.close()


def _token(info: dict[str, Any]) -> str:
    return Path(info["tokenFile"]).read_text().strip()


def _connect(info: dict[str, Any], kind: str, opened: list[Conn] | None = None, **kwargs: Any) -> Conn:
    token = None if kind == "unix" else _token(info)
    c = Conn(address_of(info, kind), token=token, **kwargs)
    if opened is not None:
        opened.append(c)
    return c


# ------------------------------------------------------------------ the protocol on each transport


@pytest.mark.parametrize("kind", ADDRS)
def test_each_transport_speaks_the_protocol_and_streams_a_run(shared, conns, kind):
    p, info = shared
    assert info["tokenFile"].endswith("listen-token")
    assert stat.S_IMODE(os.stat(info["tokenFile"]).st_mode) == 0o600
    c = _connect(info, kind, conns)
    info_data = c.ok("get_protocol_info")
    assert info_data["protocolVersion"] == 4 and info_data["transports"] == ["unix", "tcp", "ws"]
    assert {"attach_session", "detach_session", "authenticate"} <= set(info_data["commands"])
    handle = c.ok("open_session")["handle"]
    assert c.ok("get_state", handle=handle)["isStreaming"] is False
    assert c.ok("set_event_options", runId=True) == {"seq": False, "runId": True}  # this connection's own
    data = c.ok("prompt", message="stream-fast please", handle=handle)
    assert data["disposition"] == "started" and isinstance(data["runId"], str)
    c.wait_for(lambda r: _settled(r) and r.get("handle") == handle, timeout=20)
    events = [e for e in _events(c.records) if e.get("handle") == handle]
    assert events[0]["type"] == "agent_start" and all("seq" not in e for e in events)
    assert events[0]["runId"] == data["runId"]
    c.ok("set_event_options", runId=False)
    # "default"'s events are untagged, as on stdio.
    c.ok("set_session_name", name=f"via {kind}")
    changed = c.wait_for(lambda r: r.get("type") == "session_info_changed" and r.get("name") == f"via {kind}")
    assert "handle" not in changed
    # Errors are the protocol's own.
    bad = c.cmd("nope")
    assert bad["success"] is False and bad["error"] == "Unknown command: nope"
    c.write(b"{not json\n")
    parse = c.wait_for(lambda r: r.get("command") == "parse")
    assert parse["success"] is False and parse["error"].startswith("Failed to parse command: ")
    c.ok("close_session", handle=handle)


def test_unix_socket_is_private_stale_replaced_live_refused(shared, server, tmp_path):
    p, info = shared
    path = address_of(info, "unix")[5:]
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    # A live socket refuses a second server.
    second = start_in(tmp_path / "second", args=("--listen", f"unix:{path}"))
    assert second.wait(20) == 1
    assert "another server is listening" in second.stderr
    stale_dir = tmp_path / "stale"
    stale_dir.mkdir()
    # A stale socket (nothing answers) is replaced; a Unix socket needs no token.
    stale = stale_dir / "s.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(stale))
    sock.close()
    p2, info2 = server(listen=(f"unix:{stale}",), args=("--stdio", "--max-connections", "2"))
    assert "tokenFile" not in info2
    # (the same server: --stdio next to --listen, and --max-connections, stdio not counted)
    assert p2.ok("get_state")["isStreaming"] is False
    handle = p2.ok("open_session")["handle"]
    a, b = Conn(address_of(info2, "unix")), Conn(address_of(info2, "unix"))
    a.ok("attach_session", handle=handle)
    listed = {s["handle"]: s["attached"] for s in a.ok("list_open_sessions")["sessions"]}
    assert listed == {"default": 3, handle: 2}
    a.ok("detach_session", handle=handle)
    p2.ok("set_session_name", name="named", handle=handle)
    p2.wait_for(lambda r: r.get("type") == "session_info_changed" and r.get("handle") == handle)
    with pytest.raises(RecordTimeout):
        a.wait_for(lambda r: r.get("type") == "session_info_changed", timeout=0.3)
    missing = a.cmd("attach_session", handle="nope")
    assert missing["success"] is False and "Unknown session handle" in missing["error"]
    refused = Conn(address_of(info2, "unix")).read_all()
    assert len(refused) == 1 and refused[0]["command"] == "connection" and "--max-connections" in refused[0]["error"]
    assert b.ok("get_state")
    # stdin EOF only detaches stdio; SIGTERM ends the process as on stdio (143), the socket removed.
    p2.close_stdin()
    assert b.ok("get_state")
    os.kill(p2.pid, signal.SIGTERM)
    assert p2.wait(20) == 143
    assert not os.path.exists(stale)


# ------------------------------------------------------------------ who may connect


def test_tcp_needs_the_token_first_and_failures_close(shared):
    p, info = shared
    address = address_of(info, "tcp")
    token = _token(info)
    # No token: the first record is refused with one error record, then the connection closes.
    c = Conn(address)
    c.send({"id": 1, "type": "get_state"})
    records = c.read_all()
    assert len(records) == 1 and records[0]["id"] == 1
    assert records[0]["command"] == "authenticate" and records[0]["success"] is False
    assert records[0]["error"].startswith("Authentication required")
    # A wrong token.
    c = Conn(address)
    c.send({"id": "a", "type": "authenticate", "token": "wrong"})
    records = c.read_all()
    assert len(records) == 1 and records[0]["error"] == "Authentication failed: wrong token"
    # The token in the wrong record (a command carrying it) is not an authentication.
    c = Conn(address)
    c.send({"type": "get_state", "token": token})
    records = c.read_all()
    assert len(records) == 1 and records[0]["command"] == "authenticate" and records[0]["success"] is False
    # Garbage first.
    c = Conn(address)
    c.write(b"\xff\xfe garbage\n")
    assert c.read_all()[0]["success"] is False
    # The right one, and a wrong one later closes the connection too.
    good = Conn(address, token=token)
    assert good.ok("get_state")["isStreaming"] in (True, False)
    assert good.cmd("authenticate", token="bad")["success"] is False
    good.read_all()
    # The token never reached stderr or a session file.
    assert token not in p.stderr
    for path in (p.agent_dir / "sessions").rglob("*"):
        if path.is_file():
            assert token not in path.read_text(errors="replace")


def test_failed_authentications_from_one_peer_are_slowed_down():
    from pi_rpc.modes.rpc.listen.auth import FREE_FAILURES, MAX_DELAY_S, FailureThrottle

    throttle = FailureThrottle()
    delays = [throttle.failed("10.0.0.1") for _ in range(12)]
    assert delays[:FREE_FAILURES] == [0.0] * FREE_FAILURES
    assert delays[FREE_FAILURES] > 0 and delays == sorted(delays) and delays[-1] == MAX_DELAY_S
    assert throttle.failed("10.0.0.2") == 0.0  # per peer
    throttle.succeeded("10.0.0.1")
    assert throttle.failed("10.0.0.1") == 0.0


def test_websocket_header_first_message_query_and_origin(shared):
    from websockets.exceptions import InvalidStatus

    p, info = shared
    address = address_of(info, "ws")
    token = _token(info)
    # The Authorization header authenticates the handshake.
    c = Conn(address, headers={"Authorization": f"Bearer {token}"})
    assert c.ok("get_state")["isStreaming"] in (True, False)
    c.close()
    # A wrong header: HTTP 401.
    with pytest.raises(InvalidStatus) as err:
        Conn(address, headers={"Authorization": "Bearer nope"})
    assert err.value.response.status_code == 401
    # A browser cannot set headers: the first message.
    c = Conn(address, token=token, origin="https://ok.example")
    assert c.ok("get_state")["isStreaming"] in (True, False)
    c.close()
    # An Origin that is not allowed: refused.
    with pytest.raises(InvalidStatus) as err:
        Conn(address, token=token, origin="https://evil.example")
    assert err.value.response.status_code == 403
    # Never a URL query string.
    with pytest.raises(InvalidStatus) as err:
        Conn(address + f"?token={token}")
    assert err.value.response.status_code == 400
    # No token at all: one error record, then closed.
    c = Conn(address)
    c.send({"id": 7, "type": "get_state"})
    records = c.read_all()
    assert len(records) == 1 and records[0]["command"] == "authenticate" and records[0]["success"] is False


def _setup(*argv: str) -> Any:
    from pi_rpc.config.cli_args import parse_args
    from pi_rpc.modes.rpc.listen.server import listen_setup

    return listen_setup(parse_args(["--mode", "rpc", *argv]))


def test_startup_refuses_unsafe_listen_flags(tmp_path, monkeypatch):
    """(in-process: the same checks run before anything else at startup; the live-socket case
    above is the one run through the real process's exit code)"""
    from pi_rpc.errors import StartupError

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    token_file = tmp_path / "tok"
    token_file.write_text("secret-token-value\n")
    token_file.chmod(0o644)
    refusals = {
        ("--listen", "tcp:127.0.0.1:0", "--listen-token-file", str(token_file)): "readable by others",
        ("--listen", "tcp:0.0.0.0:0"): "--listen-allow-remote",
        ("--listen", "tcp:0.0.0.0:0", "--listen-allow-remote"): "TLS",
        ("--listen", "wss://127.0.0.1:0"): "--tls-cert",
        ("--listen", "tcp:127.0.0.1:99999"): "port",
        ("--listen", "http://x"): "expected unix:",
        ("--listen", "ws://127.0.0.1:0/x?token=1"): "no query",
        ("--listen", "tcp:127.0.0.1:0", "--tls-cert", "c.pem"): "go together",
        ("--listen", f"unix:{tmp_path}/tok"): "not a socket",
    }
    public = tmp_path / "public"
    public.mkdir()
    public.chmod(0o777)
    refusals[("--listen", f"unix:{public}/s.sock")] = "world-writable"
    for argv, why in refusals.items():
        with pytest.raises(StartupError) as err:
            _setup(*argv)
        assert why in err.value.message, (argv, err.value.message)
        assert "secret-token-value" not in err.value.message
    token_file.chmod(0o600)
    addresses, token, path, context = _setup("--listen", "tcp:127.0.0.1:0", "--listen-token-file", str(token_file))
    assert token == "secret-token-value" and path == token_file and context is None
    # Without a token file: a random one, 0600, kept for the next start.
    _, token, path, _ = _setup("--listen", "ws://localhost:0")
    assert path == tmp_path / "agent" / "listen-token" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(token) >= 32 and _setup("--listen", "tcp:[::1]:0")[1] == token
    # Only Unix sockets: no token at all.
    assert _setup("--listen", f"unix:{tmp_path}/s.sock")[1:3] == (None, None)


# ------------------------------------------------------------------ many clients on one session


@pytest.mark.parametrize("count", [2, 20])
def test_connections_on_one_session_get_identical_streams(shared, conns, count):
    p, info = shared
    for i in range(count):
        _connect(info, ADDRS[i % 3], conns)
    for c in conns:
        c.ok("set_event_options", seq=True)
    handle = conns[0].ok("open_session")["handle"]
    for c in conns[1:]:
        assert c.ok("attach_session", handle=handle) == {"replayed": 0, "complete": True}
    listed = conns[0].ok("list_open_sessions")["sessions"]
    assert {s["handle"]: s["attached"] for s in listed}[handle] == count
    prompt_id = conns[-1].request("prompt", message="stream-mid it", handle=handle)
    streams = []
    for c in conns:
        c.wait_for(lambda r: _settled(r) and r.get("handle") == handle, timeout=30)
        streams.append([line for line, r in zip(c.raw, c.records) if r.get("handle") == handle])
    assert len(streams[0]) > 20
    assert all(stream == streams[0] for stream in streams)  # byte for byte, the same seq
    seqs = [json.loads(line)["seq"] for line in streams[0]]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # The response went to its sender only.
    assert any(r.get("id") == prompt_id for r in conns[-1].records)
    assert not any(r.get("id") == prompt_id and r.get("command") == "prompt" for c in conns[:-1] for r in c.records)
    conns[0].ok("close_session", handle=handle)


def test_disconnect_mid_run_then_attach_since_catches_up(shared, conns):
    p, info = shared
    c = _connect(info, "tcp", conns)
    c.ok("set_event_options", seq=True)
    handle = c.ok("open_session")["handle"]
    watcher = _connect(info, "unix", conns)
    watcher.ok("set_event_options", seq=True)
    watcher.ok("attach_session", handle=handle)
    c.ok("prompt", message="stream-slow please", handle=handle)
    for _ in range(10):
        c.wait_for(lambda r: r.get("type") == "message_update", start=len(c.records))
    before = [r["seq"] for r in c.records if r.get("handle") == handle]
    c.close()  # the run goes on
    time.sleep(0.3)
    again = _connect(info, "ws", conns)
    again.ok("set_event_options", seq=True)
    data = again.ok("attach_session", handle=handle, since=before[-1])
    assert data["complete"] is True and data["replayed"] > 0
    again.wait_for(lambda r: _settled(r) and r.get("handle") == handle, timeout=30)
    watcher.wait_for(lambda r: _settled(r) and r.get("handle") == handle, timeout=30)
    full = [r["seq"] for r in watcher.records if r.get("handle") == handle]
    after = [r["seq"] for r in again.records if r.get("handle") == handle]
    # The reconnected client saw every event exactly once: no gap, no duplicate.
    assert before + after == full
    watcher.ok("close_session", handle=handle)


def test_two_hundred_connections_come_and_go(shared, conns):
    p, info = shared
    c = _connect(info, "unix", conns)
    baseline = c.ok("list_open_sessions")["sessions"][0]["attached"]
    fds_before = len(os.listdir(f"/proc/{p.pid}/fd"))
    host, _, port = address_of(info, "tcp")[4:].rpartition(":")
    for i in range(200):
        if i % 2:
            s = socket.socket(socket.AF_UNIX)
            s.connect(address_of(info, "unix")[5:])
            if i % 4 == 1:
                s.sendall(b'{"type":"get_state","id":1}\n')
        else:
            s = socket.create_connection((host, int(port)))
        s.close()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        attached = c.ok("list_open_sessions")["sessions"][0]["attached"]
        fds = len(os.listdir(f"/proc/{p.pid}/fd"))
        if attached == baseline and fds <= fds_before:
            break
        time.sleep(0.1)
    assert attached == baseline  # every dropped connection was detached
    assert fds <= fds_before, (fds, fds_before)  # and closed
    assert c.ok("get_state")


def test_bad_input_on_one_connection_does_not_disturb_another(shared, conns):
    p, info = shared
    streamer = _connect(info, "unix", conns)
    streamer.ok("set_event_options", seq=True)
    handle = streamer.ok("open_session")["handle"]
    streamer.ok("prompt", message="stream-mid now", handle=handle)
    bad = _connect(info, "tcp", conns)
    bad.write(b"\x00\x01garbage\n" + b"x" * 10000 + b"\n" + b'{"id":"u","type":"\xff"}\n' + b"[1,2]\n")
    errors = [bad.read_record() for _ in range(4)]
    assert [e["success"] for e in errors] == [False] * 4
    assert errors[0]["command"] == "parse" and "frame too large" in errors[1]["error"]
    # Invalid UTF-8 is read as stdio reads it (U+FFFD), on every transport alike.
    assert errors[2] == {
        "id": "u",
        "type": "response",
        "command": "\ufffd",
        "success": False,
        "error": "Unknown command: \ufffd",
    }
    assert errors[3]["error"] == "Unknown command: undefined"
    assert bad.ok("get_state")
    ws = _connect(info, "ws", conns)
    ws._ws.send(b'{"id":"u","type":"\xff"}')  # (a binary message: text ones must be UTF-8)
    assert ws.read_record() == errors[2]
    ws._ws.send("y" * 10000)  # over the frame cap: the error record, then closed (1009)
    over = ws.read_record()
    assert over == {k: v for k, v in errors[1].items()}
    streamer.wait_for(lambda r: _settled(r) and r.get("handle") == handle, timeout=30)
    seqs = [r["seq"] for r in streamer.records if r.get("handle") == handle]
    assert seqs == sorted(set(seqs))
    kinds = [r["type"] for r in streamer.records if r.get("handle") == handle]
    assert kinds[0] == "agent_start" and kinds.count("message_end") >= 2
    streamer.ok("close_session", handle=handle)


def test_a_dialog_goes_to_every_attached_connection_and_the_first_answer_wins(shared, conns):
    p, info = shared
    a = _connect(info, "unix", conns)
    handle = a.ok("open_session")["handle"]
    b = _connect(info, "ws", conns)
    b.ok("attach_session", handle=handle)
    a.request("prompt", message="/ask", handle=handle)
    asked_a = a.wait_for(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")
    asked_b = b.wait_for(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")
    assert asked_a == asked_b and asked_a["handle"] == handle
    b.send({"type": "extension_ui_response", "id": asked_b["id"], "confirmed": True})
    a.send({"type": "extension_ui_response", "id": asked_a["id"], "confirmed": False})  # too late: ignored
    for c in (a, b):
        c.wait_for(lambda r: r.get("method") == "notify" and r.get("message") == "answer=True")
    resolved = a.wait_for(lambda r: r.get("type") == "extension_ui_resolved")
    assert resolved == {"type": "extension_ui_resolved", "id": asked_a["id"], "handle": handle}
    assert not any(r.get("type") == "extension_ui_resolved" for r in b.records)  # the winner is not told
    # A dialog asked while nobody is attached waits for the first connection that attaches,
    # and its timeout (300 ms) starts then.
    a.request("prompt", message="/later 0.3", handle=handle)
    a.close()
    b.close()
    time.sleep(1.2)
    c = _connect(info, "tcp", conns)
    c.ok("attach_session", handle=handle)
    held = c.wait_for(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")
    assert held["title"] == "Later?"
    c.send({"type": "extension_ui_response", "id": held["id"], "confirmed": True})
    c.wait_for(lambda r: r.get("method") == "notify" and r.get("message") == "later=True")
    c.ok("close_session", handle=handle)


# ------------------------------------------------------------------ servers of their own


def test_a_client_that_stops_reading_is_dropped_with_its_last_seq(server):
    p, info = server(listen=("unix",), args=("--max-connection-buffer", "200000"))
    reader = _connect(info, "unix")
    stuck = socket.socket(socket.AF_UNIX)
    stuck.connect(address_of(info, "unix")[5:])
    stuck.sendall(b'{"type":"set_event_options","seq":true}\n')
    reader.ok("get_state")
    # ~2.4 MB of bash_execution_update events on "default", to both clients.
    command = "for i in $(seq 1 40000); do echo line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done"
    result = reader.ok("bash", command=command, timeout=60)  # the reading client was not held up
    assert "line-40000-" in result["output"]
    updates = [r for r in reader.records if r.get("type") == "bash_execution_update"]
    assert sum(len(json.dumps(u)) for u in updates) > 2_000_000
    # The stuck client was detached when its queue overflowed ...
    assert reader.ok("list_open_sessions")["sessions"][0]["attached"] == 1
    # ... and, reading now, finds its stream ends with the final record.
    stuck.settimeout(10)
    data = b""
    while True:
        chunk = stuck.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    lines = [json.loads(line) for line in data.split(b"\n") if line]
    final = lines[-1]
    assert final["command"] == "connection" and final["success"] is False
    assert "--max-connection-buffer" in final["error"]
    delivered = [r["seq"] for r in lines[:-1] if "seq" in r]
    assert delivered and final["lastSeq"] == delivered[-1]
    assert len(data) < 1_000_000  # it was cut off, not fed the whole stream


def test_exit_when_idle_and_kill_9_leave_session_files_intact(server):
    p, info = server(listen=("unix",), args=("--exit-when-idle", "0.5"), script=_script(1, 20))
    c = _connect(info, "unix")
    c.ok("prompt", message="stream")
    c.wait_for(_settled, timeout=20)
    c.close()
    assert p.wait(20) == 0
    assert not os.path.exists(address_of(info, "unix")[5:])  # the socket is removed
    files = list((p.agent_dir / "sessions").rglob("*.jsonl"))
    assert files and all(json.loads(line) for f in files for line in f.read_text().splitlines())
    # kill -9 mid-run: what was written is whole lines.
    p2, info2 = server(listen=("unix",), script=_script(20, 200))
    c2 = _connect(info2, "unix")
    c2.ok("prompt", message="stream long")
    c2.wait_for(lambda r: r.get("type") == "message_update")
    os.kill(p2.pid, signal.SIGKILL)
    p2.wait(10)
    files = list((p2.agent_dir / "sessions").rglob("*.jsonl"))
    assert files
    for f in files:
        text = f.read_text()
        assert text.endswith("\n")
        assert all(json.loads(line) for line in text.splitlines())


def test_stdio_without_listen_answers_attach_with_an_error(tmp_path):
    p = start_in(tmp_path)
    try:
        response = p.cmd("attach_session", handle="default")
        assert response["success"] is False and "--listen" in response["error"]
        assert p.ok("authenticate", token="anything") is None
    finally:
        p.kill()


PROBE = """
import json, os, sys
from pi_rpc.cli import main
code = main(["--mode", "rpc", "--no-session"])
loaded = sorted(m for m in sys.modules if m.startswith(("websockets", "pi_rpc.modes.rpc.listen")))
os.write(2, ("LOADED " + json.dumps(loaded) + "\\n").encode())
sys.exit(code)
"""


def test_stdio_mode_never_loads_the_listeners(tmp_path):
    import subprocess
    import sys

    from tests.support.pi_process import isolated_env

    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=b'{"id":1,"type":"get_state"}\n{"id":2,"type":"get_protocol_info"}\n',
        capture_output=True,
        env=isolated_env(tmp_path),
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[0]["success"] is True and lines[1]["data"]["transports"] == ["stdio"]
    loaded = next(line for line in run.stderr.decode().splitlines() if line.startswith("LOADED "))
    assert json.loads(loaded[7:]) == []


def test_tls_on_tcp_and_wss(server, tmp_path):
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    p, info = server(listen=("tcp", "wss://127.0.0.1:0/"), args=("--tls-cert", str(cert), "--tls-key", str(key)))
    context = ssl.create_default_context(cafile=str(cert))
    host, _, port = address_of(info, "tcp")[4:].rpartition(":")
    raw = socket.create_connection((host, int(port)))
    sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
    sock.sendall(json.dumps({"type": "authenticate", "token": _token(info)}).encode() + b"\n")
    sock.sendall(b'{"id":1,"type":"get_state"}\n')
    data = b""
    while data.count(b"\n") < 2:
        data += sock.recv(65536)
    first, second = (json.loads(line) for line in data.split(b"\n")[:2])
    assert first["command"] == "authenticate" and first["success"] is True
    assert second["id"] == 1 and second["success"] is True
    sock.close()
    from websockets.sync.client import connect

    with connect(
        address_of(info, "wss"), ssl=context, additional_headers={"Authorization": f"Bearer {_token(info)}"}
    ) as ws:
        ws.send('{"id":2,"type":"get_state"}')
        assert json.loads(ws.recv(timeout=10))["success"] is True
    # A client that does not speak TLS gets nothing and the server goes on.
    plain = Conn(address_of(info, "tcp"))
    plain.send({"type": "authenticate", "token": _token(info)})
    with pytest.raises(RecordTimeout):
        plain.read_record(2)


def test_a_run_that_never_waits_does_not_starve_other_clients(server):
    """The offline model with no delay produces its deltas without awaiting anything; publishing
    never waits for a client, so the hub yields now and then: a client that connects mid-run is
    served before the run ends (without that, only after it)."""
    script = [{"match": "burst", "text": "x" * 20000, "delayMs": 0, "chunkChars": 1}]
    p, info = server(listen=("unix",), script=script)
    a = _connect(info, "unix")
    a.ok("prompt", message="burst")
    a.wait_for(lambda r: r.get("type") == "message_update")
    b = _connect(info, "unix")
    assert b.ok("get_state")["isStreaming"] is True
    a.wait_for(_settled, timeout=60)
