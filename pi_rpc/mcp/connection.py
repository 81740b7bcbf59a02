"""One configured server's connection, through the ``mcp`` SDK's ``ClientSession`` over the
stdio transport (``stdio``) or the SDK's streamable HTTP client (upstream's
``McpServerConnection``).

- Connects lazily and once at a time; a connection that dropped reconnects on the next call.
  HTTP servers get two more attempts after a network error or a 408/429/5xx status (not 501),
  250 ms and 1 s apart.
- Every request has the server's ``timeout`` (default 60 s); progress notifications reset it.
  An abort or a timeout sends ``notifications/cancelled`` and fails the request at once.
- ``tools/list_changed`` refreshes the tool list; ``notifications/message`` goes to ``mcp.log``.
- Listing and reading resources are retried once after a transient HTTP error; tool calls are
  not, since the server may already have run them.
- States: ``connecting``, ``connected``, ``failed``, ``needs-auth``, ``disconnected``,
  ``closed``; ``error`` says why (with the tail of a stdio server's stderr).

The SDK is imported here only when a connection opens, never at pi's startup.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio
from anyio.abc import TaskGroup, TaskStatus

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.config.paths import expand_tilde
from pi_rpc.errors import PiError
from pi_rpc.mcp.config import ServerEntry
from pi_rpc.mcp.configvalue import resolve_headers_or_raise, resolve_or_raise
from pi_rpc.mcp.log import ServerLog
from pi_rpc.mcp.stdio import StderrTail, stdio_transport

if TYPE_CHECKING:
    from pi_rpc.mcp.oauth import OAuthSupport

DEFAULT_TIMEOUT_S = 60.0
CANCEL_NOTICE_GRACE_S = 2.0  # to send notifications/cancelled for a request given up on
DROP_GRACE_S = 5.0  # for a dropped session's transport to shut down
CLOSE_GRACE_S = 10.0  # in close(), for the session being opened and the open one to shut down
STDERR_TAIL_CHARS = 2000
CONNECT_RETRY_DELAYS_S = (0.25, 1.0)
MAX_LIST_PAGES = 100
CLIENT_NAME = "pi"

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]


#: Where a connection is: ``connecting`` (each time it opens), ``connected``, ``needs-auth``
#: (OAuth required), ``failed``, ``disconnected`` (the server went away), ``closed`` (shut down).
ConnectionState = Literal["connecting", "connected", "needs-auth", "failed", "disconnected", "closed"]


class McpClientError(PiError):
    """One MCP server's connection or request failed (the ``McpClientError`` branch of the tree
    in ``pi_rpc.errors``); ``str(err)`` is what the tool result or ``/mcp`` shows."""


class McpConnectFailed(McpClientError, ConnectionError):
    """The server could not be connected (or is shut down); the text names the server."""


class McpConnectionClosed(McpClientError):
    def __init__(self, message: str = "MCP connection closed") -> None:
        super().__init__(message)


class McpTimeout(McpClientError):
    """Neither an answer nor a progress notification within the server's ``timeout``."""

    def __init__(self, timeout_ms: int) -> None:
        super().__init__(f"MCP request timed out after {timeout_ms}ms")


class McpAborted(McpClientError):
    """The caller's abort signal fired while the request was in flight."""

    def __init__(self) -> None:
        super().__init__("MCP request aborted")


class McpRequestError(McpClientError):
    """A JSON-RPC error answered by the server."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class McpSignInRequired(McpClientError):
    """The server needs an OAuth sign-in (``/mcp login`` or ``pi mcp login``)."""


class McpListingError(McpClientError):
    """A paginated listing that repeats a cursor or does not end within ``MAX_LIST_PAGES``."""


METHOD_NOT_FOUND = -32601
INVALID_REQUEST = -32600


_SDK_MODULES = (
    "httpx",
    "mcp.types",
    "mcp.shared.message",
    "mcp.client.session",
    "mcp.client.streamable_http",
)
_sdk_loaded: anyio.Event | None = None


async def load_sdk() -> None:
    """Import the SDK (half a second of CPU) in a worker thread, once, so the event loop keeps
    serving the session meanwhile instead of stalling for the whole import."""
    global _sdk_loaded
    if _sdk_loaded is None:
        _sdk_loaded = anyio.Event()
        try:
            import importlib

            await anyio.to_thread.run_sync(lambda: [importlib.import_module(name) for name in _SDK_MODULES])
        finally:
            _sdk_loaded.set()
    await _sdk_loaded.wait()


def _quiet_sdk_logging() -> None:
    """The SDK logs transport failures with tracebacks; pi reports them through the server's
    state instead, so they must not reach stderr through logging's last-resort handler."""
    import logging

    logger = logging.getLogger("mcp")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def _version() -> str:
    from pi_rpc import __version__

    return __version__


def _slice_tail(text: str, max_chars: int) -> str:
    return text[-max_chars:] if len(text) > max_chars else text


def _unwrap(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        inner = [e for e in error.exceptions if not isinstance(e, anyio.get_cancelled_exc_class())]
        error = inner[0] if inner else error.exceptions[0]
    return error


def error_message(error: BaseException) -> str:
    error = _unwrap(error)
    text = str(error)
    if not text:
        text = type(error).__name__
    return text


def is_transient(error: BaseException) -> bool:
    """Network failures and overloaded or restarting servers, worth another attempt."""
    import httpx

    error = _unwrap(error)
    if isinstance(error, httpx.HTTPStatusError):
        status = error.response.status_code
        return status in (408, 429) or (status >= 500 and status != 501)
    return isinstance(error, httpx.TransportError)


class _AsSent:
    """A ``result_type`` for the SDK's ``send_request`` that keeps a result exactly as the server
    sent it (JSON objects as dicts, keys in the server's order), where an SDK model would reorder
    the keys to its fields and rewrite values (URLs normalised)."""

    @staticmethod
    def model_validate(value: object) -> object:
        return value


def _is_object(value: object) -> bool:
    return isinstance(value, dict)


def _is_resource(item: dict[str, object]) -> bool:
    # ``name`` is required by the spec, but some servers omit it; the URI stands in (upstream).
    return isinstance(item.get("uri"), str) and ("name" not in item or isinstance(item["name"], str))


def _is_template(item: dict[str, object]) -> bool:
    return isinstance(item.get("uriTemplate"), str) and ("name" not in item or isinstance(item["name"], str))


def validate_list_page(method: str, key: str, value: Any) -> dict[str, Any]:
    """A ``resources/list`` or ``resources/templates/list`` page as upstream's client checks it
    (``pi-mcp`` ``validateListPage``): the items as sent, each with a ``name`` (the URI or URI
    template when missing, added last), and ``nextCursor`` unless it is absent, null or empty."""
    items = value.get(key) if _is_object(value) else None
    if not isinstance(items, list):
        raise McpRequestError(INVALID_REQUEST, f"Invalid MCP {method} result")
    is_item = _is_template if key == "resourceTemplates" else _is_resource
    source = "uriTemplate" if key == "resourceTemplates" else "uri"
    for item in items:
        if not _is_object(item) or not is_item(item):
            raise McpRequestError(INVALID_REQUEST, f"Invalid entry in MCP {method} result")
    cursor = value.get("nextCursor")
    if cursor is not None and cursor != "" and not isinstance(cursor, str):
        raise McpRequestError(INVALID_REQUEST, f"Invalid MCP {method} cursor")
    page: dict[str, object] = {key: [{**item, "name": item.get("name", item[source])} for item in items]}
    if cursor:
        page["nextCursor"] = cursor
    return page


def _dump(model: Any) -> dict[str, Any]:
    """An SDK model as a dict with exactly the fields the server sent."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def expand_home(value: str) -> str:
    return expand_tilde(value)


def uses_oauth(entry: ServerEntry) -> bool:
    """HTTP servers authenticate with OAuth unless they send an Authorization header or ``auth``."""
    config = entry.config
    if "url" not in config or config.get("auth"):
        return False
    return not any(name.lower() == "authorization" for name in (config.get("headers") or {}))


class _SentRequest:
    """The JSON-RPC id a request went out with (``notifications/cancelled`` must name it), as
    the write stream saw it: the SDK numbers requests itself and does not say how."""

    __slots__ = ("id",)

    def __init__(self) -> None:
        self.id: int | str | None = None


# The request the current task is sending (set by ``McpConnection._request`` around the SDK's
# ``send_request``, whose write runs in the same task, so the same context).
_sending: ContextVar[_SentRequest | None] = ContextVar("pi_mcp_sending", default=None)


class _RequestIdTap:
    """The session's write stream, unchanged, except that it tells the request being sent
    which id it went out with (see ``_SentRequest``)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, message: Any) -> None:
        sent = _sending.get()
        if sent is not None and sent.id is None:
            from mcp.types import JSONRPCRequest  # (loaded with the session that sends)

            root = message.message.root
            if isinstance(root, JSONRPCRequest):
                sent.id = root.id
        await self._inner.send(message)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RequestIdTap:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Live:
    """One open session: the SDK's ``ClientSession``, the events of its lifetime and the cancel
    scopes of the requests in flight (cancelled when the transport ends)."""

    def __init__(self, session: Any, closed: anyio.Event, stop: anyio.Event) -> None:
        self.session = session
        self.closed = closed  # the transport ended (server exited, stream dropped)
        self.stop = stop  # set to close it
        self.finished = anyio.Event()  # the transport is fully shut down
        self._requests: set[anyio.CancelScope] = set()

    @contextmanager
    def request_scope(self, timeout_s: float, signal: AbortSignal | None) -> Iterator[anyio.CancelScope]:
        """The one cancel scope of a request: cancelled by ``signal`` (its own ``scope()``), by
        the end of the transport, and at its ``deadline``, ``timeout_s`` from now, which the
        caller may move (progress). After it, ``why_cancelled`` says which."""
        with signal.scope() if signal is not None else anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + timeout_s
            if self.closed.is_set():
                scope.cancel()
            self._requests.add(scope)
            try:
                yield scope
            finally:
                self._requests.discard(scope)

    def why_cancelled(self, signal: AbortSignal | None, timeout_s: float) -> McpClientError:
        """The error of a request whose scope ended it (the transport's end wins: a closed
        connection can take no ``notifications/cancelled``)."""
        if self.closed.is_set():
            return McpConnectionClosed()
        if signal is not None and signal.aborted:
            return McpAborted()
        return McpTimeout(int(timeout_s * 1000))

    async def cancel_requests_when_closed(self) -> None:
        await self.closed.wait()
        self.cancel_requests()

    def cancel_requests(self) -> None:
        for scope in list(self._requests):
            scope.cancel()


class McpConnection:
    def __init__(
        self,
        entry: ServerEntry,
        cwd: str,
        host: TaskGroup,
        *,
        on_tools: Callable[[McpConnection], None] = lambda _c: None,
        on_change: Callable[[McpConnection], None] = lambda _c: None,
        log: ServerLog | None = None,
        oauth: OAuthSupport | None = None,
        provider_token: Callable[[str], str | None] | None = None,
    ) -> None:
        self.entry = entry
        self.cwd = cwd
        self._host = host
        self._on_tools = on_tools
        self._on_change = on_change
        self._log = log
        self._oauth = oauth
        self._provider_token = provider_token
        self.state: ConnectionState = "connecting"
        self.error: str | None = None
        self.tools: list[dict[str, Any]] = []
        self.has_resources = False
        self.instructions: str | None = None
        self._live: _Live | None = None
        self._opening: _Flight | None = None
        self._shutdown = False
        self._stderr: StderrTail | None = None

    # ------------------------------------------------------------------ properties

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def closed(self) -> bool:
        return self._shutdown

    @property
    def timeout_s(self) -> float:
        return float(self.entry.config.get("timeout") or DEFAULT_TIMEOUT_S)

    @property
    def oauth_url(self) -> str | None:
        return str(self.entry.config["url"]) if uses_oauth(self.entry) else None

    def _changed(self) -> None:
        self._on_change(self)

    # ------------------------------------------------------------------ connecting

    async def get_session(self) -> _Live:
        if self._shutdown:
            raise McpConnectFailed(f'MCP server "{self.name}" is shut down')
        live = self._live
        if live is not None and not live.closed.is_set():
            return live
        if self._opening is None:
            flight = self._opening = _Flight()
            self._host.start_soon(self._open, flight)
        return await self._opening.wait()

    async def _open(self, flight: _Flight) -> None:
        self.state = "connecting"
        self._changed()
        await load_sdk()
        retries = CONNECT_RETRY_DELAYS_S if self.entry.is_http else ()
        attempt = 0
        try:
            while True:
                try:
                    live = await self._host.start(self._run_live)
                    flight.resolve(live)
                    return
                except Exception as exc:  # noqa: BLE001 - reported through the state
                    delay = retries[attempt] if attempt < len(retries) else None
                    attempt += 1
                    if self._shutdown or delay is None or not is_transient(exc):
                        flight.reject(self._connect_failed(exc))
                        return
                    await anyio.sleep(delay)
                    if self._shutdown:
                        flight.reject(self._connect_failed(exc))
                        return
        finally:
            if self._opening is flight:
                self._opening = None

    def _connect_failed(self, exc: BaseException) -> Exception:
        exc = _unwrap(exc)
        if isinstance(exc, McpSignInRequired) and not self._shutdown:
            self.state = "needs-auth"
            self.error = None
            self._changed()
            return McpSignInRequired(self.sign_in_required_message())
        self.state = "closed" if self._shutdown else "failed"
        message = error_message(exc)
        tail = _slice_tail(self._stderr.text.strip(), STDERR_TAIL_CHARS) if self._stderr else ""
        self.error = f"{message}\n{tail}" if tail else message
        self._changed()
        return McpConnectFailed(f'MCP server "{self.name}" failed to connect: {self.error}')

    def sign_in_required_message(self) -> str:
        auth = self.entry.config.get("auth") if self.entry.is_http else None
        provider = auth.get("provider") if isinstance(auth, dict) else None
        where = f"/login {provider}" if provider else "/mcp"
        return f'MCP server "{self.name}" requires sign-in. Run {where} to sign in.'

    def _transport(self, stack: AsyncExitStack) -> Awaitable[tuple[Any, Any, anyio.Event]]:
        config, name = self.entry.config, self.name
        if "url" in config:
            return self._http_transport(stack)
        env = {
            key: resolve_or_raise(value, f'MCP server "{name}" env "{key}"')
            for key, value in (config.get("env") or {}).items()
        }
        cwd = os.path.join(self.cwd, expand_home(config.get("cwd") or "."))
        self._stderr = StderrTail()
        return stack.enter_async_context(
            stdio_transport(
                expand_home(config["command"]),
                [expand_home(arg) for arg in config.get("args") or []],
                env,
                os.path.normpath(cwd),
                self._stderr,
            )
        )

    async def _http_transport(self, stack: AsyncExitStack) -> tuple[object, object, anyio.Event]:
        import httpx
        from mcp.client.streamable_http import streamable_http_client

        config, name = self.entry.config, self.name
        headers = resolve_headers_or_raise(config.get("headers"), f'MCP server "{name}"') or {}
        auth: Any = None
        if self.oauth_url is not None and self._oauth is not None:
            auth = self._oauth.httpx_auth(self)
        elif isinstance(config.get("auth"), dict) and self._provider_token is not None:
            token = self._provider_token(config["auth"]["provider"])
            if token:
                headers = {**headers, "Authorization": f"Bearer {token}"}
        client = httpx.AsyncClient(
            headers=headers,
            auth=auth,
            timeout=httpx.Timeout(30.0, read=300.0),
            follow_redirects=True,
        )
        await stack.enter_async_context(client)
        read, write, _session_id = await stack.enter_async_context(
            streamable_http_client(str(config["url"]), http_client=client)
        )
        # The SDK's stream ends when the transport gives up; that is a dropped connection.
        closed = anyio.Event()
        forward, reader = anyio.create_memory_object_stream[object](0)

        async def pump() -> None:
            try:
                async with forward:
                    async for message in read:
                        await forward.send(message)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass
            finally:
                closed.set()

        tg = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(tg.cancel_scope.cancel)
        tg.start_soon(pump)
        return reader, write, closed

    async def _run_live(self, *, task_status: TaskStatus[_Live]) -> None:
        from mcp import types
        from mcp.client.session import ClientSession

        _quiet_sdk_logging()

        stop = anyio.Event()
        started = False
        live: _Live | None = None
        try:
            async with AsyncExitStack() as stack:
                read, write, closed = await self._transport(stack)
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        _RequestIdTap(write),  # type: ignore[arg-type]  # (send and aclose: all it uses)
                        logging_callback=self._on_log,
                        message_handler=self._on_message,
                        list_roots_callback=self._list_roots,  # type: ignore[arg-type]
                        client_info=types.Implementation(name=CLIENT_NAME, version=_version()),
                    )
                )
                live = _Live(session, closed, stop)
                # Requests in flight end with the transport, from the first (initialize) on.
                requests = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(requests.cancel_scope.cancel)
                requests.start_soon(live.cancel_requests_when_closed)
                init = await self._until_closed(live, session.initialize(), self.timeout_s)
                capabilities = init.capabilities
                tools = await self._list_tools(live) if capabilities.tools is not None else []
                if self._shutdown:
                    raise McpConnectFailed("shut down while connecting")
                if closed.is_set():
                    raise McpConnectionClosed("connection closed during setup")
                self._live = live
                self.tools = tools
                self.has_resources = capabilities.resources is not None
                self.instructions = (init.instructions or "").strip() or None
                self.state = "connected"
                self.error = None
                started = True
                task_status.started(live)
                self._on_tools(self)
                self._changed()
                with anyio.CancelScope() as scope:
                    async with anyio.create_task_group() as watch:

                        async def until(event: anyio.Event) -> None:
                            await event.wait()
                            scope.cancel()

                        watch.start_soon(until, stop)
                        watch.start_soon(until, closed)
        except Exception as exc:
            if not started:
                raise
            _ = exc  # a transport failure after setup: reported as a dropped connection below
        finally:
            if live is not None:
                live.closed.set()
                live.cancel_requests()
                live.finished.set()
            if started:
                self._handle_close(live)

    def _handle_close(self, live: _Live | None) -> None:
        if self._live is not live or live is None:
            return
        self._live = None
        if self._shutdown or live.stop.is_set():
            return
        self.state = "disconnected"
        tail = (
            _slice_tail(self._stderr.text.strip(), STDERR_TAIL_CHARS) if self._stderr and not self.entry.is_http else ""
        )
        self.error = f"Connection closed\n{tail}" if tail else "Connection closed"
        self._changed()

    # ------------------------------------------------------------------ SDK callbacks

    async def _on_log(self, params: object) -> None:
        if self._log is not None:
            self._log.write(self.name, _dump(params))

    async def _on_message(self, message: object) -> None:
        from mcp import types

        root = getattr(message, "root", None)
        if isinstance(root, types.ToolListChangedNotification):
            live = self._live
            if live is not None:
                self._host.start_soon(self._refresh_tools, live)

    async def _list_roots(self, _context: object) -> object:
        from mcp import types

        uri = Path(self.cwd).resolve().as_uri()
        return types.ListRootsResult(roots=[types.Root(uri=uri, name=os.path.basename(self.cwd))])  # type: ignore[arg-type]

    async def _refresh_tools(self, live: _Live) -> None:
        try:
            tools = await self._list_tools(live)
            if self._live is not live or self._shutdown:
                return
            self.tools = tools
            self._on_tools(self)
        except Exception as exc:  # noqa: BLE001 - shown in the state
            self.error = f"Failed to refresh tools: {error_message(exc)}"
        self._changed()

    # ------------------------------------------------------------------ requests

    async def _until_closed(self, live: _Live, coro: Awaitable[Any], timeout_s: float) -> Any:
        """Await ``coro``, failing when the transport ends or the time runs out."""
        with live.request_scope(timeout_s, None):
            try:
                return await coro
            except Exception as exc:  # noqa: BLE001 - every SDK failure becomes an error of the MCP tree
                raise self._translate(exc) from None
        raise live.why_cancelled(None, timeout_s)

    def _translate(self, error: BaseException) -> BaseException:
        from mcp.shared.exceptions import McpError
        from mcp.types import CONNECTION_CLOSED

        if isinstance(error, McpError):
            if error.error.code == CONNECTION_CLOSED:
                return McpConnectionClosed()
            return McpRequestError(error.error.code, error.error.message)
        return error

    async def _request(
        self,
        live: _Live,
        request: Any,
        result_type: Any,
        signal: AbortSignal | None,
        on_progress: ProgressCallback | None = None,
    ) -> object:
        """One request in one cancel scope (``_Live.request_scope``): the server's timeout is the
        scope's deadline, which each progress notification moves forward; an abort or the end
        of the transport cancels it. A request that timed out or was aborted is cancelled on
        the server too (``notifications/cancelled``).

        :raises McpTimeout: no answer nor progress within the server's ``timeout``
        :raises McpAborted: ``signal`` fired
        :raises McpConnectionClosed: the transport ended
        :raises McpRequestError: the server answered an error
        """
        from mcp import types

        timeout_s = self.timeout_s
        sent = _SentRequest()
        with live.request_scope(timeout_s, signal) as scope:

            async def progress(value: float, total: float | None, message: str | None) -> None:
                scope.deadline = anyio.current_time() + timeout_s
                if on_progress is not None:
                    outcome = on_progress(value, total, message)
                    if outcome is not None:
                        await outcome

            sending = _sending.set(sent)
            try:
                return await live.session.send_request(
                    types.ClientRequest(request), result_type, progress_callback=progress
                )
            except Exception as exc:  # noqa: BLE001 - every SDK failure becomes an error of the MCP tree
                raise self._translate(exc) from None
            finally:
                _sending.reset(sending)
        error = live.why_cancelled(signal, timeout_s)
        if isinstance(error, (McpTimeout, McpAborted)) and sent.id is not None:
            reason = (
                "Request timed out"
                if isinstance(error, McpTimeout)
                else (signal.reason if signal else None) or "Aborted"
            )
            await self._send_cancelled(live, sent.id, reason)
        raise error

    async def _send_cancelled(self, live: _Live, request_id: int | str, reason: str) -> None:
        from mcp import types

        notification = types.ClientNotification(
            types.CancelledNotification(params=types.CancelledNotificationParams(requestId=request_id, reason=reason))
        )
        with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_NOTICE_GRACE_S):
            try:
                await live.session.send_notification(notification)
            except Exception:  # noqa: BLE001 - the server may be gone
                pass

    async def _with_session(self, run: Callable[[_Live], Awaitable[Any]], read_only: bool = False) -> Any:
        attempt = 1
        while True:
            live = await self.get_session()
            try:
                return await run(live)
            except McpConnectionClosed:
                raise
            except Exception as exc:
                if read_only and attempt == 1 and is_transient(exc):
                    attempt += 1
                    await anyio.sleep(CONNECT_RETRY_DELAYS_S[0])
                    continue
                if self._needs_sign_in(exc):
                    await self._drop(live)
                    self._mark_needs_auth()
                    raise McpSignInRequired(self.sign_in_required_message()) from None
                raise

    def _needs_sign_in(self, exc: BaseException) -> bool:
        return isinstance(_unwrap(exc), McpSignInRequired)

    def _mark_needs_auth(self) -> None:
        self.state = "needs-auth"
        self.error = None
        self._changed()

    async def _list_tools(self, live: _Live) -> list[dict[str, object]]:
        return await self._list_all(live, "tools/list", "tools")

    async def _list_all(
        self, live: _Live, method: str, key: str, signal: AbortSignal | None = None
    ) -> list[dict[str, object]]:
        items: list[dict[str, object]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            page = await self._page(live, method, cursor, signal)
            items.extend(page.get(key) or [])
            cursor = page.get("nextCursor")
            if not cursor:
                return items
            if cursor in seen:
                raise McpListingError(f"MCP {method} returned duplicate cursor: {cursor}")
            seen.add(cursor)
        raise McpListingError(f"MCP {method} exceeded {MAX_LIST_PAGES} pages")

    async def _page(self, live: _Live, method: str, cursor: str | None, signal: AbortSignal | None) -> dict[str, Any]:
        from mcp import types

        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        request: object
        if method == "tools/list":
            request = types.ListToolsRequest(params=params)
            return _dump(await self._request(live, request, types.ListToolsResult, signal))
        # Resource listings reach the model as the server sent them (key order included), as
        # upstream's own client hands them on; only upstream's checks apply.
        if method == "resources/list":
            request, key = types.ListResourcesRequest(params=params), "resources"
        else:
            request, key = types.ListResourceTemplatesRequest(params=params), "resourceTemplates"
        return validate_list_page(method, key, await self._request(live, request, _AsSent, signal))

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, object],
        signal: AbortSignal | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> dict[str, object]:
        from mcp import types

        async def run(live: _Live) -> dict[str, object]:
            request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))
            return _dump(await self._request(live, request, types.CallToolResult, signal, on_progress))

        return await self._with_session(run)

    async def read_resource(self, uri: str, signal: AbortSignal | None = None) -> dict[str, object]:
        from mcp import types

        async def run(live: _Live) -> dict[str, object]:
            request = types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=uri))  # type: ignore[arg-type]
            return _dump(await self._request(live, request, types.ReadResourceResult, signal))

        return await self._with_session(run, read_only=True)

    async def resources_page(self, cursor: str | None, signal: AbortSignal | None = None) -> dict[str, object]:
        return await self._with_session(lambda live: self._page(live, "resources/list", cursor, signal), True)

    async def templates_page(self, cursor: str | None, signal: AbortSignal | None = None) -> dict[str, object]:
        async def run(live: _Live) -> dict[str, object]:
            try:
                return await self._page(live, "resources/templates/list", cursor, signal)
            except McpRequestError as exc:
                if exc.code == METHOD_NOT_FOUND:
                    return {"resourceTemplates": []}
                raise

        return await self._with_session(run, True)

    async def all_resources(self, signal: AbortSignal | None = None) -> list[dict[str, object]]:
        return await self._with_session(lambda live: self._list_all(live, "resources/list", "resources", signal), True)

    async def all_templates(self, signal: AbortSignal | None = None) -> list[dict[str, object]]:
        async def run(live: _Live) -> list[dict[str, object]]:
            try:
                return await self._list_all(live, "resources/templates/list", "resourceTemplates", signal)
            except McpRequestError as exc:
                if exc.code == METHOD_NOT_FOUND:
                    return []
                raise

        return await self._with_session(run, True)

    # ------------------------------------------------------------------ lifecycle

    async def _drop(self, live: _Live) -> None:
        if self._live is live:
            self._live = None
        live.stop.set()
        with anyio.CancelScope(shield=True), anyio.move_on_after(DROP_GRACE_S):
            await live.finished.wait()

    async def reconnect(self) -> None:
        """Connect again with fresh credentials, for example after signing in."""
        if self._opening is not None:
            try:
                await self._opening.wait()
            except Exception:  # noqa: BLE001
                pass
        if self._live is not None:
            await self._drop(self._live)
        await self.get_session()

    async def sign_out(self) -> None:
        if self._live is not None:
            await self._drop(self._live)
        if not self._shutdown:
            self._mark_needs_auth()

    async def close(self) -> None:
        """Returns once no transport of this server is open."""
        self._shutdown = True
        self.state = "closed"
        self._changed()
        live, self._live = self._live, None
        if live is not None:
            live.stop.set()
        flight = self._opening
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_GRACE_S):
            if flight is not None:
                try:
                    opened = await flight.wait()
                    opened.stop.set()
                    await opened.finished.wait()
                except Exception:  # noqa: BLE001
                    pass
            if live is not None:
                await live.finished.wait()


class _Flight:
    """The outcome of one connection attempt, which every caller that asked meanwhile awaits.
    The attempt runs in the connection's own task group, not in a caller's task: a caller that
    is aborted must not cancel the attempt the others wait for (anyio has no primitive for a
    result shared by several waiters; this is an event and the outcome)."""

    def __init__(self) -> None:
        self._done = anyio.Event()
        self._value: _Live | None = None
        self._error: BaseException | None = None

    def resolve(self, value: _Live) -> None:
        self._value = value
        self._done.set()

    def reject(self, error: BaseException) -> None:
        self._error = error
        self._done.set()

    async def wait(self) -> _Live:
        await self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value
