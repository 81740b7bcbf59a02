"""``AsyncRpcClient.connect``: the async Python client of a running ``pi --mode rpc --listen``
server (a real subprocess) over a Unix socket, TCP and WebSocket: the same coroutine methods and
event streams as a spawned client, wrong tokens refused, ``attach``/``detach``, ``reconnect=True``
catching up after the connection drops (no gap, no duplicate), and the end of the server failing
what waits on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from pi_rpc_client import connect as sync_connect
from pi_rpc_client.aio import AsyncRpcClient, AsyncRpcConnection, RpcCommandError, RpcError, RpcProcessExited
from pi_rpc_client.aio_connection import RpcConnectionClosed

from tests.support.listen_client import address_of, start_listening
from tests.support.pi_process import PiProcess

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

WORDS = " ".join(f"w{i:03d}" for i in range(80))
SCRIPT = [{"match": "slow", "text": WORDS, "delayMs": 10, "chunkChars": 4}] * 4 + [
    {"match": "quick", "text": "done", "delayMs": 1}
] * 8


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PiProcess, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("aconn")
    p, info = start_listening(root, [f"unix:{root}/pi.sock", "tcp:127.0.0.1:0", "ws://127.0.0.1:0/"], script=SCRIPT)
    yield p, info
    p.kill()


def _token(info: dict[str, Any]) -> str:
    return Path(info["tokenFile"]).read_text().strip()


@pytest.mark.parametrize("kind", ["unix", "tcp", "ws"])
async def test_connect_is_an_async_client_over_each_transport(server, kind):
    p, info = server
    token_file = None if kind == "unix" else info["tokenFile"]
    async with AsyncRpcClient.connect(address_of(info, kind), token_file=token_file) as pi:
        assert isinstance(pi, AsyncRpcConnection)
        assert (await pi.get_protocol_info())["transports"] == ["unix", "tcp", "ws"]
        assert (await pi.get_state())["isStreaming"] is False
        chat = await pi.open_session()
        result = await chat.prompt_and_wait("quick one", timeout=30)
        assert result.text() == "done"
        assert {s["handle"]: s["attached"] for s in await pi.list_open_sessions()}[chat.handle] == 1
        await chat.close()
    # Closing the connection leaves the server serving.
    pi2 = await AsyncRpcClient.connect(address_of(info, kind), token=None if kind == "unix" else _token(info))
    try:
        assert (await pi2.get_state())["isStreaming"] is False
    finally:
        await pi2.aclose()
    assert p.popen.poll() is None


async def test_wrong_tokens_are_refused(server):
    p, info = server
    with pytest.raises(RpcCommandError) as refused:
        async with AsyncRpcClient.connect(address_of(info, "tcp"), token="not-the-token"):
            pass
    assert refused.value.command == "authenticate" and "wrong token" in refused.value.error
    with pytest.raises(RpcError, match="HTTP 401"):  # the handshake's Authorization header
        async with AsyncRpcClient.connect(address_of(info, "ws"), token="not-the-token"):
            pass
    # No token on TCP: nothing is served.
    async with AsyncRpcClient.connect(address_of(info, "tcp")) as anonymous:
        with pytest.raises(RpcCommandError, match="Authentication required"):
            await anonymous.get_state()
    with pytest.raises(RpcError, match="unknown address"):
        await AsyncRpcClient.connect("http://127.0.0.1:1/")
    assert p.popen.poll() is None


async def test_attach_detach_and_reconnect_with_catch_up(server):
    p, info = server
    address = address_of(info, "ws")
    async with AsyncRpcClient.connect(address_of(info, "unix")) as opener:
        handle = (await opener.open_session()).handle
        watcher = sync_connect(address_of(info, "tcp"), token_file=info["tokenFile"])  # the reference stream
        watcher.set_event_options(seq=True)
        watcher.attach(handle)
        seen = watcher.events(handle=handle)
        async with AsyncRpcClient.connect(address, token_file=info["tokenFile"], reconnect=True) as follower:
            assert await follower.attach(handle) == {"replayed": 0, "complete": True}
            assert follower.attached == {"default", handle}
            with follower.events(handle=handle) as stream:
                await opener.session_handle(handle).prompt("slow please")
                got: list[dict[str, Any]] = []
                while sum(r.get("type") == "message_update" for r in got) < 5:
                    got.append(await stream.next(timeout=20))
                assert follower._wire is not None
                await follower._wire.aclose()  # the connection drops mid-run ...
                while got[-1].get("type") != "agent_settled":  # ... and the stream goes on
                    got.append(await stream.next(timeout=30))
            full = [seen.next(timeout=30)]
            while full[-1].get("type") != "agent_settled":
                full.append(seen.next(timeout=30))
            assert [r["handle"] for r in follower.reconnects] == ["default", handle]
            assert all(r["complete"] and r["since"] == follower.reconnects[0]["since"] for r in follower.reconnects)
            assert [r["seq"] for r in got] == [r["seq"] for r in full]  # no gap, no duplicate
            await follower.detach(handle)
            assert follower.attached == {"default"}
            listed = {s["handle"]: s["attached"] for s in await opener.list_open_sessions()}
            assert listed[handle] == 2  # the opener and the watcher
        watcher.close()


async def test_the_end_of_the_server_fails_what_waits(tmp_path):
    p, info = start_listening(tmp_path, [f"unix:{tmp_path}/pi.sock"], script=SCRIPT)
    try:
        async with AsyncRpcClient.connect(address_of(info, "unix"), default_timeout=20) as pi:
            events = pi.events()
            assert (await pi.get_state())["isStreaming"] is False
            p.popen.kill()
            with pytest.raises(RpcProcessExited):  # the stream ends ...
                with anyio.fail_after(20):
                    while True:
                        await events.next()
            with pytest.raises(RpcConnectionClosed, match="the connection to unix:"):  # ... and requests fail
                await pi.get_state()
    finally:
        p.kill()


async def test_tls_on_tcp_and_wss(tmp_path):
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
    p, info = start_listening(
        tmp_path, ["tcp:127.0.0.1:0", "wss://127.0.0.1:0/"], args=("--tls-cert", str(cert), "--tls-key", str(key))
    )
    try:
        context = ssl.create_default_context(cafile=str(cert))
        for kind in ("tcp", "wss"):
            async with AsyncRpcClient.connect(address_of(info, kind), token=_token(info), tls=context) as pi:
                assert (await pi.get_state())["isStreaming"] is False
        # A client that does not trust the certificate does not get through.
        with pytest.raises(ssl.SSLError):
            await AsyncRpcClient.connect(address_of(info, "wss"), token=_token(info))
    finally:
        p.kill()
