"""pi_rpc_client: a stdlib-only client for ``pi --mode rpc`` (pi 1.6 wire protocol).

    from pi_rpc_client import RpcClient
    with RpcClient(["pi", "--mode", "rpc", "--no-session"]) as pi:
        result = pi.prompt_and_wait("hello", timeout=60)
        print(result.text())

The async flavour (anyio; ``pip install 'pi-rpc-client[async]'``) lives in ``pi_rpc_client.aio``;
``pi_rpc_client.AsyncRpcClient`` imports it on first access, so the sync client stays stdlib-only.

Many sessions in one process (pi_rpc): ``chat = pi.open_session(cwd=...)`` returns a
:class:`SessionHandle` with the same command methods, bound to its handle, and its own events.

A running ``pi --mode rpc --listen <address>`` server: ``pi = connect("unix:/path/pi.sock")`` (or
``tcp:host:port`` / ``ws://…`` with ``token=``) is the same client over a socket; ``pi.attach(handle,
since=seq)`` catches up on a session; ``reconnect=True`` does that by itself when the connection drops.
Asynchronously: ``async with AsyncRpcClient.connect(address, token=…) as pi`` (``pi_rpc_client.aio_connection``).
"""

from .client import EventStream, PromptResult, RpcClient
from .commands import (
    BEYOND_UPSTREAM_COMMAND_TYPES,
    COMMAND_TYPES,
    JSON_NULL,
    PROCESS_COMMAND_TYPES,
    SESSION_HANDLE_COMMAND_TYPES,
)
from .errors import RpcCommandError, RpcError, RpcProcessExited, RpcProtocolError, RpcTimeoutError
from .framing import LineSplitter, decode_record, encode_record
from .handles import DEFAULT_HANDLE, SessionHandle
from .host_tools import HostToolCall
from .sequence import EventsLost, SeqTracker, SequencedEvents

_ASYNC_NAMES = (
    "AsyncEventStream",
    "AsyncRpcClient",
    "AsyncRpcConnection",
    "AsyncSequencedEvents",
    "AsyncSessionHandle",
)
_CONNECTION_NAMES = ("RpcConnection", "connect")


def __getattr__(name: str) -> object:
    # lazy: importing the package must not require anyio
    if name in _ASYNC_NAMES:
        from . import aio

        return getattr(aio, name)
    if name in _CONNECTION_NAMES:  # (sockets and ssl only for a client that connects)
        from . import connection

        return getattr(connection, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BEYOND_UPSTREAM_COMMAND_TYPES",
    "COMMAND_TYPES",
    "DEFAULT_HANDLE",
    "EventStream",
    "EventsLost",
    "HostToolCall",
    "JSON_NULL",
    "LineSplitter",
    "PROCESS_COMMAND_TYPES",
    "PromptResult",
    "RpcClient",
    "RpcConnection",
    "RpcCommandError",
    "RpcError",
    "RpcProcessExited",
    "RpcProtocolError",
    "RpcTimeoutError",
    "SESSION_HANDLE_COMMAND_TYPES",
    "SeqTracker",
    "SequencedEvents",
    "SessionHandle",
    "connect",
    "decode_record",
    "encode_record",
]
