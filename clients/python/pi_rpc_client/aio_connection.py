"""The async client of a running ``pi --mode rpc --listen`` server, next to spawning one.

    from pi_rpc_client.aio import AsyncRpcClient
    async with AsyncRpcClient.connect("unix:/run/user/1000/pi.sock") as pi:   # no token on a Unix socket
        print(await pi.get_state())
    async with AsyncRpcClient.connect("ws://127.0.0.1:7777/", token_file="~/.pi/agent/listen-token") as pi:
        await pi.attach("s1", since=last_seq)

``AsyncRpcConnection`` is an :class:`~pi_rpc_client.aio.AsyncRpcClient` whose records travel over
a socket instead of a child's stdin/stdout: the same coroutine command methods, event streams,
session handles and host tools, and what :class:`pi_rpc_client.connection.RpcConnection` adds
(``attach``/``detach`` bookkeeping, ``reconnect=True`` with catch-up, ``reconnects``).

Every transport runs on anyio's byte streams, so the client works on asyncio and trio alike:
``unix:<path>`` and ``tcp:<host>:<port>`` (TLS with ``tls=``) carry LF-framed records;
``ws://``/``wss://`` carry one record per text message, the WebSocket protocol spoken by the
``websockets`` package's sans-I/O ``ClientProtocol`` (imported only for a ``ws://`` address). On
TCP the token is the first record (``authenticate``); on WebSocket it is the handshake's
``Authorization: Bearer`` header (a wrong one is refused with HTTP 401: ``RpcError``).

Task model as the spawning client's: ``start()`` (or ``async with``) enters a task group that holds
the reader task; ``aclose()`` leaves it, so both run in the same task.
"""

from __future__ import annotations

from typing import Any

from .aio import AsyncRpcConnection
from .aio_wire import RpcConnectionClosed

__all__ = ["AsyncRpcConnection", "RpcConnectionClosed", "connect"]


def connect(address: str, token: str | None = None, **kwargs: Any) -> AsyncRpcConnection:
    """An async client of ``pi --mode rpc --listen <address>`` (``unix:<path>``,
    ``tcp:<host>:<port>``, ``ws://…``/``wss://…``); ``token`` (or ``token_file=``) for TCP and
    WebSocket. Connects on ``await`` / ``async with`` / ``start()``."""
    return AsyncRpcConnection(address, token=token, **kwargs)
