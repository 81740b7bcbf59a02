"""The WebSocket transport of ``openai-codex-responses`` (pi-ai 1.6's socket code in
``api/openai-codex-responses.js``), on the **websockets** library (imported on first use).

- A socket per session and account is kept open between requests (upstream's session cache):
  reused while open and idle, closed after 5 minutes unused or, for a new request, once it is 45
  minutes old (the server ends sockets at 60 minutes, even mid-response). A request while the
  session's socket is busy gets a socket of its own, closed after it. Without a session id
  every request has its own socket.
- With a cached socket under ``auto`` / ``websocket-cached``, a request whose body equals the
  last one's except for ``input``, and whose input starts with the last input followed by the
  last response's items, sends only the new items with ``previous_response_id`` (the socket
  holds the conversation). Anything else sends the whole body.
- Frames are JSON events; the stream ends at the completion. A socket closed before it fails
  with upstream's texts: ``WebSocket error`` when cut without a close frame (what the browser
  WebSocket API upstream uses reports), ``WebSocket closed <code> [reason]`` otherwise.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.ai.errors import AbortedError, js_json

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

    from pi_rpc.ai.types import StreamOptions

DEFAULT_CONNECT_TIMEOUT_MS = 15_000
IDLE_TTL_S = 5 * 60
MAX_AGE_S = 45 * 60
COMPLETION_TYPES = ("response.done", "response.completed", "response.incomplete")


class WebSocketFailure(Exception):
    """The socket could not be opened, or ended before the response completed. ``name`` and
    ``code`` are what upstream's diagnostic records (its ``WebSocketCloseError`` for a close)."""

    def __init__(self, message: str, name: str = "Error", code: int | None = None) -> None:
        super().__init__(message)
        self.name = name
        self.code = code


@dataclass
class Continuation:
    """What the socket's server side holds: the last full body and the response's items."""

    body: dict[str, Any]
    response_id: str
    items: list[dict[str, object]]


@dataclass
class Entry:
    socket: ClientConnection
    created: float = field(default_factory=time.monotonic)
    busy: bool = True
    continuation: Continuation | None = None
    timer: asyncio.TimerHandle | None = None


# session id -> account id -> its socket (upstream's ``websocketSessionCache``).
_cache: dict[str, dict[str, Entry]] = {}
_closing: set[asyncio.Task[None]] = set()


@dataclass
class Lease:
    """A socket for one request; ``release(keep)`` returns it to the cache or closes it."""

    socket: ClientConnection
    entry: Entry | None
    release: Callable[[bool], None]


def _is_open(socket: ClientConnection) -> bool:
    from websockets.protocol import State

    return socket.state is State.OPEN


def _close_later(socket: ClientConnection) -> None:
    task = asyncio.get_running_loop().create_task(socket.close())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


def _forget(session: str, account: str, entry: Entry) -> None:
    entries = _cache.get(session)
    if entries is not None and entries.get(account) is entry:
        del entries[account]
        if not entries:
            del _cache[session]


def _expire(session: str, account: str, entry: Entry) -> None:
    if entry.busy:
        return
    _close_later(entry.socket)
    _forget(session, account, entry)


def _releaser(session: str, account: str, entry: Entry) -> Callable[[bool], None]:
    def release(keep: bool) -> None:
        if not keep or not _is_open(entry.socket):
            if entry.timer is not None:
                entry.timer.cancel()
            _close_later(entry.socket)
            _forget(session, account, entry)
            return
        entry.busy = False
        entry.timer = asyncio.get_running_loop().call_later(IDLE_TTL_S, _expire, session, account, entry)

    return release


async def connect(url: str, headers: dict[str, str], options: StreamOptions) -> ClientConnection:
    try:
        from websockets.asyncio.client import connect as ws_connect
        from websockets.exceptions import InvalidHandshake
    except ImportError as exc:
        # Without the ``codex`` extra: upstream's words for a runtime without WebSocket (the
        # request then falls back to SSE).
        raise WebSocketFailure("WebSocket transport is not available in this runtime") from exc

    if options.secrets is not None:
        options.secrets.add_headers(headers)
    connect_ms = options.websocket_connect_timeout_ms
    if connect_ms is None:
        connect_ms = DEFAULT_CONNECT_TIMEOUT_MS
    if options.signal is not None and options.signal.aborted:
        raise AbortedError()
    try:
        opening = ws_connect(
            url,
            additional_headers=list(headers.items()),
            user_agent_header=None,
            open_timeout=connect_ms / 1000 if connect_ms > 0 else None,
            max_size=None,
        )
        if options.signal is None:
            return await opening
        socket = None
        with options.signal.scope():
            socket = await opening
        if options.signal.aborted or socket is None:
            if socket is not None:
                _close_later(socket)
            raise AbortedError()
        return socket
    except TimeoutError as exc:
        raise WebSocketFailure(f"WebSocket connect timeout after {connect_ms}ms") from exc
    except (InvalidHandshake, OSError) as exc:
        # The browser WebSocket API upstream uses reports a refused upgrade (or connection)
        # as an error event without a message.
        raise WebSocketFailure("WebSocket error") from exc


async def acquire(
    url: str, headers: dict[str, str], session: str | None, account: str, options: StreamOptions
) -> Lease:
    """The session's cached socket when it is free and usable, else a new one (cached for the
    session unless its socket is busy)."""
    if not session:
        socket = await connect(url, headers, options)
        return Lease(socket, None, lambda _keep: _close_later(socket))
    cached = _cache.get(session, {}).get(account)
    if cached is not None:
        if cached.timer is not None:
            cached.timer.cancel()
            cached.timer = None
        if not cached.busy and time.monotonic() - cached.created >= MAX_AGE_S:
            _close_later(cached.socket)
            _forget(session, account, cached)
        elif not cached.busy and _is_open(cached.socket):
            cached.busy = True
            return Lease(cached.socket, cached, _releaser(session, account, cached))
        elif cached.busy:
            socket = await connect(url, headers, options)
            return Lease(socket, None, lambda _keep: _close_later(socket))
        else:
            _close_later(cached.socket)
            _forget(session, account, cached)
    socket = await connect(url, headers, options)
    entry = Entry(socket)
    _cache.setdefault(session, {})[account] = entry
    return Lease(socket, entry, _releaser(session, account, entry))


def request_body(entry: Entry | None, body: dict[str, object]) -> dict[str, object]:
    """``body``, or only its new input items after ``previous_response_id`` when the socket
    holds the rest (``buildCachedWebSocketRequestBody``)."""
    if entry is None or entry.continuation is None:
        return body
    last = entry.continuation
    delta = _input_delta(body, last)
    if delta is None or not last.response_id:
        entry.continuation = None
        return body
    cached = dict(body)
    cached["previous_response_id"] = last.response_id
    cached["input"] = delta  # (keeps its place in the body)
    return cached


def _without_input(body: dict[str, object]) -> str:
    return js_json({k: v for k, v in body.items() if k not in ("input", "previous_response_id")})


def _input_delta(body: dict[str, Any], last: Continuation) -> list[Any] | None:
    if _without_input(body) != _without_input(last.body):
        return None
    current: list[object] = body.get("input") or []
    baseline = [*(last.body.get("input") or []), *last.items]
    if len(current) < len(baseline) or js_json(current[: len(baseline)]) != js_json(baseline):
        return None
    return current[len(baseline) :]


async def frames(socket: ClientConnection, options: StreamOptions) -> AsyncGenerator[str, None]:
    """The text of each frame until the completion event (a frame whose parsed ``type`` is one
    of ``COMPLETION_TYPES`` is recognised by the caller, which stops reading)."""
    from websockets.exceptions import ConnectionClosed

    idle_s = options.timeout_s or 0.0
    signal = options.signal
    while True:
        try:
            with anyio.fail_after(idle_s or None):
                if signal is None:
                    frame = await socket.recv()
                else:
                    frame = None
                    with signal.scope():
                        frame = await socket.recv()
                    if signal.aborted or frame is None:
                        raise AbortedError()
        except TimeoutError as exc:
            raise WebSocketFailure(f"WebSocket idle timeout after {round(idle_s * 1000)}ms") from exc
        except ConnectionClosed as exc:
            received = exc.rcvd
            if received is None:
                # Cut without a close frame: upstream's client reports an error event first.
                raise WebSocketFailure("WebSocket error") from exc
            reason = f" {received.reason}" if received.reason else ""
            if not reason and received.code == 1009:
                reason = " message too big"
            raise WebSocketFailure(
                f"WebSocket closed {received.code}{reason}", "WebSocketCloseError", received.code
            ) from exc
        text = frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame
        if text:
            yield text


def close_sessions(session: str | None = None) -> None:
    """Close the cached sockets of ``session`` (every session when None)."""
    for sid in [session] if session is not None else list(_cache):
        for entry in list(_cache.get(sid, {}).values()):
            if entry.timer is not None:
                entry.timer.cancel()
            _close_later(entry.socket)
        _cache.pop(sid, None)
