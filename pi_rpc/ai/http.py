"""HTTP plumbing shared by the httpx providers: open a streaming POST, provider-level retries,
and SSE iteration whose every network read is cancellable by the abort signal.

Abort design: each ``await`` on the network (sending the request, reading the next chunk, a retry
sleep) runs inside its own ``with signal.scope():``. Nothing is awaited inside a scope while the
provider is suspended at a ``yield``, so an abort never cancels the consumer's code; an abort that
fires during a read cancels that read at once and the response is closed (the server sees the
disconnect). Provider generators translate ``AbortedError`` into the ``aborted`` terminal event.
"""

from __future__ import annotations

import os
import random
import ssl
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from pi_rpc.ai.httpx_import import import_httpx_without_cli

import_httpx_without_cli()
import httpx  # noqa: E402

from pi_rpc.ai.abort import AbortSignal  # noqa: E402 - after httpx is imported without its CLI
from pi_rpc.ai.errors import FETCH_ABORTED, AbortedError, ProviderHTTPError  # noqa: E402 - after httpx is imported without its CLI
from pi_rpc.ai.jsjson import stringify  # noqa: E402 - after httpx is imported without its CLI
from pi_rpc.ai.sse import SSEEvent, SSEParser  # noqa: E402 - after httpx is imported without its CLI
from pi_rpc.ai.types import StreamOptions  # noqa: E402 - after httpx is imported without its CLI

_SSL_CONTEXT: ssl.SSLContext | None = None
_SSL_CONTEXT_LOCK = threading.Lock()  # built once, possibly first by the warm-up thread
_NO_CA_CONTEXT: ssl.SSLContext | None = None
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")
DEFAULT_TIMEOUT_S = 300.0
USER_AGENT = "pi/1.6.0 (pi-rpc; python)"


def _ssl_context() -> ssl.SSLContext:
    # Building a verified context (loading the CA bundle) costs tens of milliseconds; every
    # request client shares one.
    global _SSL_CONTEXT
    if _SSL_CONTEXT is None:
        with _SSL_CONTEXT_LOCK:
            if _SSL_CONTEXT is None:
                _SSL_CONTEXT = httpx.create_ssl_context()
    return _SSL_CONTEXT


def _unused_tls_context() -> ssl.SSLContext:
    """For a client that cannot need TLS: certificates required and none trusted, so a TLS
    connection it were ever asked for fails verification instead of going unverified."""
    global _NO_CA_CONTEXT
    if _NO_CA_CONTEXT is None:
        _NO_CA_CONTEXT = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return _NO_CA_CONTEXT


def tls_possible(url: str) -> bool:
    """Whether a request to ``url`` can use TLS: an ``https`` URL, or any URL while a proxy
    is configured in the environment (httpx honours the proxy variables)."""
    if url[:7].lower() != "http://":
        return True
    return any(os.environ.get(name) or os.environ.get(name.upper()) for name in _PROXY_VARIABLES)


def warm_up(url: str) -> None:
    """Do now, off the request path, what the first request to ``url`` would do first: build
    the TLS context it needs and import what a client's transport imports on creation."""
    httpx.AsyncHTTPTransport(verify=_ssl_context() if tls_possible(url) else _unused_tls_context())


def make_client(timeout_s: float | None, url: str | None = None) -> httpx.AsyncClient:
    t = timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S
    # A plain-http model server (a local one, typically) needs no CA bundle loaded.
    verify = _ssl_context() if url is None or tls_possible(url) else _unused_tls_context()
    return httpx.AsyncClient(verify=verify, timeout=httpx.Timeout(t, connect=min(t, 30.0)))


async def _checkpoint_scope(signal: AbortSignal | None, fn: Callable[[], Any]) -> Any:
    """Await ``fn()`` (sending the request, a retry sleep) inside the abort scope; raise
    AbortedError with fetch's text if the signal fired."""
    if signal is None:
        return await fn()
    if signal.aborted:
        raise AbortedError(FETCH_ABORTED)
    result = None
    with signal.scope():
        result = await fn()
    if signal.aborted:
        raise AbortedError(FETCH_ABORTED)
    return result


def _should_retry(err: ProviderHTTPError) -> bool:
    should = err.headers.get("x-should-retry")
    if should == "true":
        return True
    if should == "false":
        return False
    return err.status in (408, 409, 429) or err.status >= 500


def retry_delay_ms(headers: dict[str, str], attempt: int, max_retry_delay_ms: int, message: str) -> float:
    """SDK policy: retry-after-ms, retry-after (seconds or date), else capped exponential backoff."""
    delay: float | None = None
    if headers.get("retry-after-ms"):
        try:
            delay = float(headers["retry-after-ms"])
        except ValueError:
            delay = None
    if delay is None and headers.get("retry-after"):
        value = headers["retry-after"]
        try:
            delay = float(value) * 1000
        except ValueError:
            import email.utils  # (an HTTP date in Retry-After: rare, not at startup)

            parsed = email.utils.parsedate_to_datetime(value) if value else None
            if parsed is not None:
                delay = parsed.timestamp() * 1000 - time.time() * 1000
    if delay is not None:
        if max_retry_delay_ms > 0 and delay > max_retry_delay_ms:
            raise RuntimeError(
                f"Server requested {-(-int(delay) // 1000)}s retry delay "
                f"(max: {-(-max_retry_delay_ms // 1000)}s). {message}"
            )
        return max(0.0, delay)
    backoff_s: float = min(0.5 * 2**attempt, 8)  # (``int ** int`` is typed Any)
    return backoff_s * 1000 * (1 - random.random() * 0.25)


@asynccontextmanager
async def open_stream(
    options: StreamOptions,
    url: str,
    headers: dict[str, str],
    body: dict[str, object],
    format_error: Callable[[int, str], str],
) -> AsyncIterator[httpx.Response]:
    """POST ``body`` and yield the 2xx streaming response; non-2xx raises ProviderHTTPError whose
    message is ``format_error(status, body_text)``."""
    signal = options.signal
    if options.on_request is not None:
        hooked_headers, body = await options.on_request(dict(headers), body)
        headers = {k: str(v) for k, v in hooked_headers.items() if v is not None}
    if options.secrets is not None:
        options.secrets.add_headers(headers)
    own_client = options.http_client is None
    client = options.http_client or make_client(options.timeout_s, url)
    payload = stringify(body)
    attempt = 0
    response: httpx.Response | None = None
    try:
        while True:
            request = client.build_request("POST", url, headers=headers, content=payload)
            try:
                response = await _checkpoint_scope(signal, lambda: client.send(request, stream=True))
            except AbortedError:
                raise
            except httpx.HTTPError as exc:
                if attempt < options.max_retries and not (signal and signal.aborted):
                    delay = min(0.5 * 2**attempt, 8) * (1 - random.random() * 0.25)
                    attempt += 1
                    await _checkpoint_scope(signal, lambda: anyio.sleep(delay))
                    continue
                raise ConnectionError(_transport_message(exc)) from exc
            assert response is not None
            if options.on_response is not None:
                await options.on_response(response.status_code, dict(response.headers))
            if response.status_code < 300:
                break
            try:
                raw = await _checkpoint_scope(signal, response.aread)
            finally:
                await response.aclose()
            text = raw.decode("utf-8", errors="replace") if raw else ""
            err = ProviderHTTPError(
                response.status_code, text, dict(response.headers), format_error(response.status_code, text)
            )
            err.reason_phrase = response.reason_phrase
            response = None
            if attempt < options.max_retries and _should_retry(err):
                delay_ms = retry_delay_ms(err.headers, attempt, options.max_retry_delay_ms, str(err))
                attempt += 1
                await _checkpoint_scope(signal, lambda: anyio.sleep(delay_ms / 1000))
                continue
            raise err
        yield response
    finally:
        if response is not None:
            with anyio.CancelScope(shield=True):
                await response.aclose()
        if own_client:
            with anyio.CancelScope(shield=True):
                await client.aclose()


def _transport_message(exc: httpx.HTTPError) -> str:
    # Upstream's OpenAI SDK says "Connection error." and appends the root cause.
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return f"Request timed out: {detail}"
    return f"Connection error: {detail}"


async def iter_sse_batches(
    response: httpx.Response, signal: AbortSignal | None, *, end_on_abort: bool = False
) -> AsyncGenerator[list[SSEEvent], None]:
    """The SSE events of a streaming response, as the list completed by each network read
    (never empty); each read is abortable.

    An abort raises ``AbortedError``, or with ``end_on_abort`` simply ends the iteration (the
    provider then closes its open blocks before failing as aborted, as upstream's
    openai-completions does when its SDK stream stops on abort). A consumer handles a whole
    batch per step: one async step per read rather than per event (a read carries many
    streamed deltas when the model server is fast), with the abort still checked after every
    read, as before."""
    parser = SSEParser()
    chunks = response.aiter_bytes()
    nxt = chunks.__anext__
    try:
        while True:
            try:
                if signal is None:
                    chunk = await nxt()
                else:
                    with signal.scope():
                        chunk = await nxt()
                    if signal.aborted:
                        if end_on_abort:
                            return
                        raise AbortedError()
            except StopAsyncIteration:
                break
            except httpx.HTTPError as exc:
                raise ConnectionError(_stream_drop_message(exc)) from exc
            if chunk:
                events = parser.feed(chunk)
                if events:
                    yield events
        events = parser.flush()
        if events:
            yield events
    finally:
        with anyio.CancelScope(shield=True):
            await response.aclose()


async def iter_sse(
    response: httpx.Response, signal: AbortSignal | None, *, end_on_abort: bool = False
) -> AsyncIterator[SSEEvent]:
    """SSE events of a streaming response one by one (``iter_sse_batches``, flattened)."""
    batches = iter_sse_batches(response, signal, end_on_abort=end_on_abort)
    try:
        async for batch in batches:
            for event in batch:
                yield event
    finally:
        await batches.aclose()


def _stream_drop_message(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"terminated: {exc}"
    if isinstance(exc, httpx.TimeoutException):
        return f"Request timed out: {exc}"
    return f"Connection error: {exc}"
