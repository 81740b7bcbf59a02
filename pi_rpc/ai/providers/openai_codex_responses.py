"""``openai-codex-responses``: ChatGPT-subscription models (provider ``openai-codex``), pi-ai 1.6's
``api/openai-codex-responses.js`` over httpx and **websockets**, the Responses event mapping
shared with ``openai_responses`` (``map_responses_events``).

- URL ``<baseUrl>/codex/responses`` (default base ``https://chatgpt.com/backend-api``; a base
  already ending in ``/codex`` or ``/codex/responses`` is kept); the WebSocket URL is the same
  with ``ws(s)://``.
- Auth: the ChatGPT OAuth access token (a JWT) as ``Authorization: Bearer``, and
  ``chatgpt-account-id`` from its ``https://api.openai.com/auth`` claim; ``originator: pi``.
- The body: Responses API with ``store: false``, the system prompt as a leading developer item
  (not ``instructions``), ``text.verbosity: "low"``, ``include: ["reasoning.encrypted_content"]``,
  ``prompt_cache_key`` = the session id, ``tool_choice: "auto"``, ``parallel_tool_calls``. On
  models with mid-conversation system messages and ``additional_tools`` (every catalogue model),
  system messages stay in place and declare their tools in ``additional_tools`` items; a model
  with ``supportsMidConvoEffort`` carries the thinking level in ``configuration_update`` items
  (the body's own effort then reads ``"medium"``) and the message records it as
  ``providerThinkingLevel`` (``codex_request`` builds the body).
- Transport (the ``transport`` setting, ``settings.json``): ``auto`` (default), ``websocket``
  and ``websocket-cached`` open a WebSocket first (``OpenAI-Beta:
  responses_websockets=2026-02-06``, the body sent uncompressed as ``{"type":
  "response.create", ...body}``; the socket is kept for the session, ``codex_websocket``);
  ``auto`` and ``websocket-cached`` then send later requests as a delta after
  ``previous_response_id``. A socket failing before the first event falls back to SSE, and the
  session stays on SSE from then on; either way the message gets upstream's
  ``provider_transport_failure`` diagnostic. ``sse``: only the POST. The POST body is always
  compressed with zstd (``content-encoding: zstd``, level 3, as upstream whose Node has zstd).
- Errors: an ``error`` event reads ``Codex error: <message>``; ``response.failed`` its
  message; an HTTP error the body's ``error.message``, or for a 429 / usage-limit code
  "You have hit your ChatGPT usage limit (<plan> plan). Try again in ~N min."; a refused
  connection and a cut-off body in fetch's words. HTTP retries (``retry.provider.maxRetries``,
  default none) on 429/5xx, rate-limit texts and network errors, 1 s doubling or
  ``retry-after`` (capped by ``maxRetryDelayMs``); a usage limit is not retried.

Not carried over: grammar (``custom``) tools (no built-in tool declares one; an extension's goes
out as a JSON-schema function), ``service_tier`` requests, ``textVerbosity`` other than
``low``, closing a session's socket when the session is switched (it closes after 5 idle
minutes).
"""

from __future__ import annotations

import base64
import math
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
import orjson

from pi_rpc.ai.errors import AbortedError, js_json
from pi_rpc.ai.http import iter_sse, make_client
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.output import new_output
from pi_rpc.ai.providers.codex_request import (
    build_body,
    configuration_update_effort,
    convert_input,
    reasoning_effort,
)
from pi_rpc.ai.providers.common import failure_event, update_headers
from pi_rpc.ai.providers.openai_responses import finish_output, map_responses_events
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

if TYPE_CHECKING:
    import httpx

API = "openai-codex-responses"
DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
JWT_CLAIM_PATH = "https://api.openai.com/auth"
ZSTD_LEVEL = 3
BASE_DELAY_MS = 1000
OPENAI_BETA_WEBSOCKETS = "responses_websockets=2026-02-06"
PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"
CONNECTION_LIMIT_REACHED = "websocket_connection_limit_reached"
CODEX_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled", "queued", "in_progress"})
COMPLETION_TYPES = ("response.done", "response.completed", "response.incomplete")
_TERMINAL_LIMIT = (
    "goUsageLimitError",
    "freeusagelimiterror",
    "monthly usage limit reached",
    "available balance",
    "insufficient_quota",
    "out of budget",
    "quota exceeded",
    "billing",
)
# Sessions whose WebSocket failed: their later requests go straight to SSE (upstream's
# process-wide ``websocketSseFallbackSessions``).
_sse_only_sessions: set[str] = set()


class CodexApiError(Exception):
    """An error the backend reported in the stream (never a transport failure: no fallback)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class CodexProtocolError(Exception):
    """A frame that is not JSON (no fallback either)."""


def transport_failure(exc: BaseException, configured: str, started: bool, request_bytes: int) -> dict[str, object]:
    """The ``provider_transport_failure`` diagnostic upstream appends to the message when the
    socket fails (the stack is Node's there; its first line here)."""
    name = getattr(exc, "name", None) or type(exc).__name__
    message = str(exc) or name
    error: dict[str, object] = {"name": name, "message": message, "stack": f"Error: {message}"}
    code = getattr(exc, "code", None)
    if isinstance(code, (str, int)):
        error["code"] = code
    details: dict[str, object] = {"configuredTransport": configured}
    if not started:
        details["fallbackTransport"] = "sse"
    details.update(
        eventsEmitted=started,
        phase="after_message_stream_start" if started else "before_message_stream_start",
        requestBytes=request_bytes,
    )
    return {
        "type": "provider_transport_failure",
        "timestamp": int(time.time() * 1000),
        "error": error,
        "details": details,
    }


# ----------------------------------------------------------------------------- auth and URLs


def extract_account_id(token: str) -> str:
    """The ChatGPT account id of the access token's ``https://api.openai.com/auth`` claim."""
    try:
        parts = token.split(".")
        if len(parts) != 3:
            raise ValueError("Invalid token")
        # atob: standard base64; a JWT's segment is base64url without padding.
        segment = parts[1].replace("-", "+").replace("_", "/")
        payload = orjson.loads(base64.b64decode(segment + "=" * (-len(segment) % 4)))
        account = (payload.get(JWT_CLAIM_PATH) or {}).get("chatgpt_account_id")
        if not account or not isinstance(account, str):
            raise ValueError("No account ID in token")
        return account
    except Exception as exc:  # noqa: BLE001 - any malformed token gives upstream's one message
        raise RuntimeError("Failed to extract accountId from token") from exc


def resolve_url(base_url: str | None) -> str:
    raw = base_url if base_url and base_url.strip() else DEFAULT_BASE_URL
    normalized = raw.rstrip("/")
    if normalized.endswith("/codex/responses"):
        return normalized
    if normalized.endswith("/codex"):
        return f"{normalized}/responses"
    return f"{normalized}/codex/responses"


def resolve_websocket_url(base_url: str | None) -> str:
    url = resolve_url(base_url)
    if url.startswith("https:"):
        return "wss:" + url[len("https:") :]
    if url.startswith("http:"):
        return "ws:" + url[len("http:") :]
    return url


def _base_headers(model: Model, options: StreamOptions, account_id: str, token: str) -> dict[str, str]:
    # Defaults first so the model's and the caller's headers can override them.
    headers = {"originator": "pi", "user-agent": "pi-rpc"}
    update_headers(headers, model.get("headers") or {})
    update_headers(headers, options.headers or {})
    update_headers(headers, {"authorization": f"Bearer {token}", "chatgpt-account-id": account_id})
    return headers


def sse_headers(
    model: Model, options: StreamOptions, account_id: str, token: str, session: str | None
) -> dict[str, str]:
    headers = _base_headers(model, options, account_id, token)
    update_headers(
        headers,
        {"openai-beta": "responses=experimental", "accept": "text/event-stream", "content-type": "application/json"},
    )
    if session:
        update_headers(headers, {"session-id": session, "x-client-request-id": session})
    return headers


def websocket_headers(
    model: Model, options: StreamOptions, account_id: str, token: str, request_id: str
) -> dict[str, str]:
    headers = _base_headers(model, options, account_id, token)
    for name in [k for k in headers if k.lower() in ("accept", "content-type", "openai-beta")]:
        del headers[name]
    update_headers(
        headers, {"openai-beta": OPENAI_BETA_WEBSOCKETS, "x-client-request-id": request_id, "session-id": request_id}
    )
    # What the handshake of upstream's WebSocket client (undici) carries.
    headers.setdefault("accept", "*/*")
    return headers


# ------------------------------------------------------------------------------ the response


def _json_error_text(text: str) -> str:
    """V8's ``JSON.parse`` message for the common malformed frame, one that does not start
    with a JSON value (other shapes get the parser's own wording)."""
    stripped = text.lstrip(" \t\n\r")
    if not stripped:
        return "Unexpected end of JSON input"
    i = len(text) - len(stripped)
    ch = text[i]
    if ch in '{["-0123456789tfn':
        try:
            orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            return str(exc)
        return "Unexpected end of JSON input"
    context = 10  # V8 kMaxContextCharacters
    if len(text) <= 2 * context:
        return f"Unexpected token '{ch}', \"{text}\" is not valid JSON"
    if i < context:
        return f"Unexpected token '{ch}', \"{text[: i + context]}\"... is not valid JSON"
    return f"Unexpected token '{ch}', ...\"{text[i - context : i + context]}\"... is not valid JSON"


def _parse_frame(text: str, kind: str) -> object:
    try:
        return js_loads(text)
    except orjson.JSONDecodeError as exc:
        raise CodexProtocolError(f"Invalid Codex {kind} JSON: {_json_error_text(text)}") from exc


async def codex_events(
    frames: AsyncIterator[object], output: dict[str, object], model: Model, options: StreamOptions
) -> AsyncIterator[tuple[str | None, dict[str, object]]]:
    """``mapCodexEvents``: errors raised in Codex's words, the completion (``response.done``,
    ``.completed`` or ``.incomplete``) passed on as ``response.completed`` with its status
    normalised, and nothing read after it."""
    async for event in frames:
        if options.on_stream_event is not None:
            await options.on_stream_event(event, model)
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            continue
        etype = event["type"]
        if etype == "error":
            nested: dict[str, object] = event["error"] if isinstance(event.get("error"), dict) else {}
            code = event.get("code") if isinstance(event.get("code"), str) else nested.get("code")
            message = event.get("message") if isinstance(event.get("message"), str) else nested.get("message")
            code = code if isinstance(code, str) else None
            message = message if isinstance(message, str) else None
            raise CodexApiError(f"Codex error: {message or code or js_json(event)}", code)
        if etype == "response.failed":
            error = (event.get("response") or {}).get("error") or {}
            raise CodexApiError(error.get("message") or "Codex response failed", error.get("code"))
        if etype in COMPLETION_TYPES:
            response = event.get("response")
            if isinstance(response, dict):
                if isinstance(response.get("end_turn"), bool):
                    output["endTurn"] = response["end_turn"]
                status = response.get("status")
                response = {**response, "status": status if status in CODEX_STATUSES else None}
            yield None, {**event, "type": "response.completed", "response": response}
            return
        yield None, event


def codex_tier_multiplier(model: Model) -> Any:
    def multiplier(tier: str | None) -> float:
        if tier == "flex":
            return 0.5
        if tier == "priority":
            return 2.5 if model["id"] == "gpt-5.5" else 2
        return 1

    return multiplier


async def _sse_frames(response: httpx.Response, options: StreamOptions) -> AsyncIterator[Any]:
    async for sse in iter_sse(response, options.signal):
        data = sse.data.strip()
        if data and data != "[DONE]":
            yield _parse_frame(data, "SSE")


def _is_retryable(status: int, text: str) -> bool:
    lowered = text.lower()
    if status == 429 and any(word.lower() in lowered for word in _TERMINAL_LIMIT):
        return False
    if status in (429, 500, 502, 503, 504):
        return True
    return (
        re.search(r"rate.?limit|overloaded|service.?unavailable|upstream.?connect|connection.?refused", lowered)
        is not None
    )


def error_message(status: int, reason: str, text: str) -> str:
    """``parseErrorResponse``: the friendly usage-limit text, else the body's ``error.message``,
    else the raw body (or the status text)."""
    message = text or reason or "Request failed"
    try:
        parsed = js_loads(text)
    except orjson.JSONDecodeError:
        return message
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not error or not isinstance(error, dict):
        return message
    friendly = None
    code = str(error.get("code") or error.get("type") or "")
    lowered = code.lower()
    if status == 429 or any(w in lowered for w in ("usage_limit_reached", "usage_not_included", "rate_limit_exceeded")):
        plan = f" ({str(error['plan_type']).lower()} plan)" if error.get("plan_type") else ""
        when = ""
        if error.get("resets_at"):
            minutes = max(0, _js_round((float(error["resets_at"]) * 1000 - time.time() * 1000) / 60000))
            when = f" Try again in ~{minutes} min."
        friendly = f"You have hit your ChatGPT usage limit{plan}.{when}".strip()
    return friendly or error.get("message") or message


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def _retry_after_ms(headers: httpx.Headers) -> float | None:
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value) * 1000)
    except ValueError:
        import email.utils

        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, parsed.timestamp() * 1000 - time.time() * 1000)


async def _sleep(seconds: float, options: StreamOptions) -> None:
    if options.signal is None:
        await anyio.sleep(seconds)
        return
    with options.signal.scope():
        await anyio.sleep(seconds)
    if options.signal.aborted:
        raise AbortedError()


def _connection_text(exc: BaseException, url: str | None = None) -> str:
    """fetch's words (with pi's cause detail) for a failed or cut-off connection."""
    text = str(exc)
    if text.startswith("terminated"):
        return "terminated: other side closed (UND_ERR_SOCKET)"
    if url is not None and _refused(exc):
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return f"fetch failed: connect ECONNREFUSED {parts.hostname}:{port}"
    return text or type(exc).__name__


def _refused(exc: BaseException) -> bool:
    # anyio's "All connection attempts failed" keeps each address's error in its own chain.
    seen = 0
    stack: list[BaseException] = [exc]
    while stack and seen < 20:
        error = stack.pop()
        seen += 1
        if isinstance(error, ConnectionRefusedError):
            return True
        stack.extend(e for e in (error.__cause__, error.__context__) if e is not None)
    return False


async def _post(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], payload: bytes, options: StreamOptions
) -> httpx.Response:
    """POST with upstream's Codex retries (``maxRetries`` more attempts on 429/5xx, a rate-limit
    text or a network error; 1 s doubling or ``retry-after``, capped by ``maxRetryDelayMs``)."""
    import httpx

    attempt = 0
    while True:
        try:
            response = await _send(client, url, headers, payload, options)
            if response.status_code < 300:
                return response
            try:
                text = (await response.aread()).decode("utf-8", "replace")
            finally:
                await response.aclose()
            if attempt < options.max_retries and _is_retryable(response.status_code, text):
                delay = _retry_after_ms(response.headers)
                if delay is None:
                    delay = BASE_DELAY_MS * 2**attempt
                elif options.max_retry_delay_ms > 0 and delay > options.max_retry_delay_ms:
                    raise RetryDelayExceeded(
                        f"Server requested {math.ceil(delay / 1000)}s retry delay "
                        f"(max: {math.ceil(options.max_retry_delay_ms / 1000)}s)"
                    )
                await _sleep(delay / 1000, options)
                attempt += 1
                continue
            raise RuntimeError(error_message(response.status_code, response.reason_phrase, text))
        except (AbortedError, RetryDelayExceeded):
            raise
        except (httpx.HTTPError, RuntimeError) as exc:
            # Upstream retries any failure here, a final HTTP error included, except a usage limit.
            if attempt < options.max_retries and "usage limit" not in str(exc):
                await _sleep(BASE_DELAY_MS * 2**attempt / 1000, options)
                attempt += 1
                continue
            if isinstance(exc, httpx.HTTPError):
                raise ConnectionError(_connection_text(exc, url)) from exc
            raise


async def _send(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], payload: bytes, options: StreamOptions
) -> httpx.Response:
    if options.secrets is not None:
        options.secrets.add_headers(headers)
    request = client.build_request("POST", url, headers=headers, content=payload)
    if options.signal is None:
        response = await client.send(request, stream=True)
    else:
        if options.signal.aborted:
            raise AbortedError()
        with options.signal.scope():
            response = await client.send(request, stream=True)
        if options.signal.aborted:
            raise AbortedError()
    if options.on_response is not None:
        await options.on_response(response.status_code, dict(response.headers))
    return response


class RetryDelayExceeded(Exception):
    """The server asked for a longer wait than ``maxRetryDelayMs`` allows (not retried)."""


def compress(payload: bytes) -> bytes | None:
    """The body as zstd (level 3), what the Codex backend decodes from ``content-encoding: zstd``;
    None without zstandard (the ``codex`` extra): the JSON then goes out as it is, as upstream
    sends it from a runtime without zstd."""
    try:
        import zstandard
    except ImportError:
        return None
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(payload)


async def _websocket_events(
    model: Model,
    body: dict[str, object],
    headers: dict[str, str],
    session: str | None,
    account_id: str,
    output: dict[str, Any],
    options: StreamOptions,
    on_start: Callable[[], None],
) -> AsyncIterator[AssistantMessageEvent]:
    """One request over the session's socket (``processWebSocketStream``): the pi events of its
    response; ``on_start`` runs at the first frame. A completed response is remembered for the
    next request's ``previous_response_id`` under ``auto`` / ``websocket-cached``."""
    from pi_rpc.ai.providers import codex_websocket as ws

    lease = await ws.acquire(resolve_websocket_url(model.get("baseUrl")), headers, session, account_id, options)
    keep = True
    cached_context = options.transport in ("auto", "websocket-cached")
    request = ws.request_body(lease.entry, body) if cached_context else body
    try:
        await lease.socket.send(js_json({"type": "response.create", **request}))
        async for event in map_responses_events(
            codex_events(_started(_websocket_frames(lease.socket, options), on_start), output, model, options),
            output,
            model,
            codex_tier_multiplier(model),
        ):
            yield event
        if options.signal is not None and options.signal.aborted:
            keep = False
        elif cached_context and lease.entry is not None and output.get("responseId"):
            items, _ = convert_input(model, [dict(output)], None)
            lease.entry.continuation = ws.Continuation(
                body, output["responseId"], [i for i in items if i.get("type") != "function_call_output"]
            )
    except BaseException:
        if lease.entry is not None:
            lease.entry.continuation = None
        keep = False
        raise
    finally:
        lease.release(keep)


async def _websocket_frames(socket: Any, options: StreamOptions) -> AsyncIterator[Any]:
    from pi_rpc.ai.providers import codex_websocket as ws

    async for text in ws.frames(socket, options):
        event = _parse_frame(text, "WebSocket")
        yield event
        if isinstance(event, dict) and event.get("type") in COMPLETION_TYPES:
            return


async def _started(frames: AsyncIterator[object], on_start: Callable[[], None]) -> AsyncIterator[object]:
    """``frames``, calling ``on_start`` before the first (upstream starts the message there)."""
    first = True
    async for frame in frames:
        if first:
            first = False
            on_start()
        yield frame


def _sse_payload(body: dict[str, object], headers: dict[str, str]) -> bytes:
    """The request body as sent by SSE: zstd-compressed (and said so) when zstd is there."""
    payload = js_json(body).encode()
    compressed = compress(payload)
    if compressed is None:
        return payload
    headers["content-encoding"] = "zstd"
    return compressed


def _initial_output(model: Model, options: StreamOptions) -> dict[str, Any]:
    output = new_output(model)
    config_effort = configuration_update_effort(model, reasoning_effort(model, options))
    if config_effort is not None:
        # After ``model``, where upstream's message literal has it.
        output = {
            **{k: output[k] for k in ("role", "content", "api", "provider", "model")},
            "providerThinkingLevel": config_effort,
            **output,
        }
    return output


def _websocket_failure(
    exc: Exception, options: StreamOptions, ws_started: bool, retried_continuation: bool, retried_limit: bool
) -> str:
    """What a failed WebSocket attempt calls for: ``continuation`` (the server lost the previous
    response: send again, once), ``limit`` (too many connections before any event: once more),
    ``fallback`` (a transport failure: go on by SSE) or ``raise``."""
    aborted = options.signal is not None and options.signal.aborted
    code = exc.code if isinstance(exc, CodexApiError) else None
    if not aborted and code == PREVIOUS_RESPONSE_NOT_FOUND and not retried_continuation:
        return "continuation"
    limit = code == CONNECTION_LIMIT_REACHED and not ws_started
    if not aborted and limit and not retried_limit:
        return "limit"
    if aborted or (isinstance(exc, (CodexApiError, CodexProtocolError)) and not limit):
        return "raise"
    return "fallback"


async def stream_openai_codex_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    output = _initial_output(model, options)
    started = False
    try:
        token = options.api_key
        if not token:
            raise RuntimeError(f"No API key for provider: {model['provider']}")
        account_id = extract_account_id(token)
        session = options.session_id[:64] if options.session_id and options.cache_retention != "none" else None
        body = build_body(model, context, options, session)
        headers = sse_headers(model, options, account_id, token, session)
        if options.on_request is not None:
            hooked, body = await options.on_request(dict(headers), body)
            headers = {k: str(v) for k, v in hooked.items() if v is not None}
        transport = options.transport or "auto"
        tiers = codex_tier_multiplier(model)
        if transport != "sse" and not (session and session in _sse_only_sessions):
            ws_headers = websocket_headers(model, options, account_id, token, session or _uuid7())
            retried_limit = retried_continuation = False
            while True:
                ws_started = False

                def on_start() -> None:
                    nonlocal ws_started
                    ws_started = True

                try:
                    async for event in _websocket_events(
                        model, body, ws_headers, session, account_id, output, options, on_start
                    ):
                        if not started:
                            started = True
                            yield {"type": "start", "partial": output}
                        yield event
                    yield finish_output(output, options)
                    return
                except AbortedError:
                    raise
                except Exception as exc:
                    outcome = _websocket_failure(exc, options, ws_started, retried_continuation, retried_limit)
                    if outcome == "continuation":
                        retried_continuation = True
                        continue
                    if outcome == "limit":
                        retried_limit = True
                        continue
                    if outcome == "raise":
                        raise
                    request_bytes = len(js_json(body).encode())
                    output.setdefault("diagnostics", []).append(
                        transport_failure(exc, transport, ws_started, request_bytes)
                    )
                    # The session's later requests go by SSE; this one too unless events came.
                    if session:
                        _sse_only_sessions.add(session)
                    if ws_started:
                        raise
                    break
        payload = _sse_payload(body, headers)
        url = resolve_url(model.get("baseUrl"))
        own_client = options.http_client is None
        client = options.http_client or make_client(options.timeout_s, url)
        try:
            response = await _post(client, url, headers, payload, options)
            try:
                if not started:
                    started = True
                    yield {"type": "start", "partial": output}
                sse_frames = _sse_frames(response, options)
                async for event in map_responses_events(
                    codex_events(sse_frames, output, model, options), output, model, tiers
                ):
                    yield event
            finally:
                with anyio.CancelScope(shield=True):
                    await response.aclose()
        finally:
            if own_client:
                with anyio.CancelScope(shield=True):
                    await client.aclose()
        yield finish_output(output, options)
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        if isinstance(exc, ConnectionError):
            exc = ConnectionError(_connection_text(exc))
        yield failure_event(output, exc, options)


def _uuid7() -> str:
    """A UUIDv7 (time-ordered) for a socket's request id when there is no session id."""
    import os

    ms = int(time.time() * 1000)
    raw = bytearray(ms.to_bytes(6, "big") + os.urandom(10))
    raw[6] = 0x70 | (raw[6] & 0x0F)
    raw[8] = 0x80 | (raw[8] & 0x3F)
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
