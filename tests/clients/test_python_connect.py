"""``pi_rpc_client.connect``: the Python client of a running ``pi --mode rpc --listen`` server over
a Unix socket, TCP and WebSocket: the same methods and event streams as a spawned client,
``attach``/``detach``, and ``reconnect=True`` catching up after the connection drops (no gap, no
duplicate)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pi_rpc_client import RpcConnection, connect

from tests.support.listen_client import address_of, start_listening
from tests.support.pi_process import PiProcess

WORDS = " ".join(f"w{i:03d}" for i in range(80))
SCRIPT = [{"match": "slow", "text": WORDS, "delayMs": 10, "chunkChars": 4}] * 4 + [
    {"match": "quick", "text": "done", "delayMs": 1}
] * 6


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PiProcess, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("conn")
    p, info = start_listening(root, [f"unix:{root}/pi.sock", "tcp:127.0.0.1:0", "ws://127.0.0.1:0/"], script=SCRIPT)
    yield p, info
    p.kill()


@pytest.mark.parametrize("kind", ["unix", "tcp", "ws"])
def test_connect_is_a_client_over_each_transport(server, kind):
    p, info = server
    token_file = None if kind == "unix" else info["tokenFile"]
    with connect(address_of(info, kind), token_file=token_file) as pi:
        assert isinstance(pi, RpcConnection)
        assert pi.get_protocol_info()["transports"] == ["unix", "tcp", "ws"]
        chat = pi.open_session()
        result = chat.prompt_and_wait("quick one", timeout=30)
        assert result.text() == "done"
        assert {s["handle"]: s["attached"] for s in pi.list_open_sessions()}[chat.handle] == 1
        chat.close()


def test_attach_detach_and_reconnect_with_catch_up(server):
    p, info = server
    address = address_of(info, "tcp")
    with connect(address, token_file=info["tokenFile"]) as opener:
        handle = opener.open_session().handle
        watcher = connect(address_of(info, "unix"))
        watcher.set_event_options(seq=True)
        assert watcher.attach(handle) == {"replayed": 0, "complete": True}
        seen = watcher.events(handle=handle)
        follower = connect(address, token_file=info["tokenFile"], reconnect=True)
        follower.attach(handle)
        stream = follower.events(handle=handle)
        opener.session_handle(handle).prompt("slow please")
        got: list[dict[str, Any]] = []
        while sum(r.get("type") == "message_update" for r in got) < 5:
            got.append(stream.next(timeout=20))
        assert follower._wire is not None
        follower._wire.close()  # the connection drops mid-run ...
        while got[-1].get("type") != "agent_settled":  # ... and the stream goes on
            got.append(stream.next(timeout=30))
        full = [seen.next(timeout=30) for _ in range(1)]
        while full[-1].get("type") != "agent_settled":
            full.append(seen.next(timeout=30))
        assert [r["handle"] for r in follower.reconnects] == ["default", handle]
        assert all(r["complete"] and r["since"] == follower.reconnects[0]["since"] for r in follower.reconnects)
        assert [r["seq"] for r in got] == [r["seq"] for r in full]  # no gap, no duplicate
        follower.detach(handle)
        assert {s["handle"]: s["attached"] for s in opener.list_open_sessions()}[handle] == 2
        follower.close()
        watcher.close()
