"""Provider error values and upstream's error-message formats.

A provider raises ``ProviderHTTPError`` for a non-2xx response and ``ProviderStreamError`` for an
error reported inside a 200 stream; the stream layer turns either into ``errorMessage`` text in
the exact shape upstream 1.6 produces, because retry and overflow classification run regexes on it:

- openai-completions (OpenAI SDK + pi ``formatProviderError``): ``"<status>: <JSON of body.error>"``
  when the body is JSON with an ``error`` object, ``"<status> <text>"`` for a non-JSON body,
  ``"<status> status code (no body)"`` for an empty one; OpenRouter ``metadata.raw`` appended.
- anthropic-messages (Anthropic SDK): ``"<status> <JSON of the whole body>"``.
- openai-responses: ``"<Provider> API error (<status>): <body>"``.
- google-generative-ai (@google/genai): the compact JSON of the body, no status.
Bodies are capped at 4000 characters like upstream.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

import orjson

from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.jsjson import stringify

MAX_PROVIDER_ERROR_BODY_CHARS = 4000


class AbortedError(Exception):
    """The caller's signal fired. Upstream's texts: ``Request was aborted`` once the stream is
    open; ``This operation was aborted`` (fetch's AbortError) while the request is being sent,
    e.g. the next turn's call after an abort during tool execution."""

    def __init__(self, message: str = "Request was aborted") -> None:
        super().__init__(message)


FETCH_ABORTED = "This operation was aborted"


class ProviderStreamError(Exception):
    """An error the provider reported mid-stream (message already in upstream's format)."""


class ProviderHTTPError(Exception):
    def __init__(self, status: int, body: str, headers: Mapping[str, str] | None = None, message: str | None = None):
        self.status = status
        self.body = body
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        # The status line's reason (fetch's ``statusText``), when the response had one.
        self.reason_phrase: str | None = None
        super().__init__(message or f"{status} {body}")


def js_json(value: object) -> str:
    """Compact JSON like ``JSON.stringify`` (key order kept, no spaces, non-ASCII as is,
    lone surrogates as ``\\udXXX`` escapes)."""
    return stringify(value).decode()


def truncate_error_text(text: str, max_chars: int = MAX_PROVIDER_ERROR_BODY_CHARS) -> str:
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}... [truncated {len(text) - max_chars} chars]"


def _try_json(body: str) -> object:
    try:
        return js_loads(body) if body.strip() else None
    except orjson.JSONDecodeError:
        return None


def format_openai_sdk_error(status: int, body: str) -> str:
    """Chat Completions HTTP error as pi 1.6 words it (OpenAI SDK message + formatProviderError)."""
    parsed = _try_json(body)
    if parsed is None:
        return f"{status} {body}" if body else f"{status} status code (no body)"
    if isinstance(parsed, dict) and parsed.get("error") is None:
        parsed = {"error": parsed}
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        sdk_msg = error["message"]
    elif isinstance(error, dict) and error.get("message") is not None:
        sdk_msg = js_json(error["message"])
    elif error is not None:
        sdk_msg = js_json(error)
    else:
        sdk_msg = ""
    message = f"{status} {sdk_msg}" if sdk_msg else f"{status} status code (no body)"
    if isinstance(error, dict) and error:
        body_text = truncate_error_text(js_json(error).strip())
        if body_text not in message:
            message = f"{status}: {body_text}"
        raw = (error.get("metadata") or {}).get("raw") if isinstance(error.get("metadata"), dict) else None
        if raw and str(raw) not in message:
            message += f"\n{raw}"
    return message


def format_openai_stream_error(data: object) -> str:
    """An ``error`` inside a 200 Chat Completions / Responses stream: SDK message, no status."""
    error = data.get("error", data) if isinstance(data, dict) and data.get("error") is not None else data
    if isinstance(error, dict) and error.get("message"):
        msg = error["message"]
        return msg if isinstance(msg, str) else js_json(msg)
    if isinstance(error, dict) and "message" in error and error["message"] is not None:
        return js_json(error["message"])
    return js_json(error) if error is not None else "(no status code or body)"


def format_anthropic_sdk_error(status: int, body: str) -> str:
    parsed = _try_json(body)
    if parsed is None:
        return f"{status} {body}" if body else f"{status} status code (no body)"
    if isinstance(parsed, dict) and isinstance(parsed.get("message"), str):
        return f"{status} {parsed['message']}"
    return f"{status} {js_json(parsed)}"


def format_responses_error(status: int, body: str, provider: str) -> str:
    prefix = f"{'OpenAI' if provider == 'openai' else provider} API error"
    parsed = _try_json(body)
    if parsed is None:
        return f"{prefix} ({status}): {body}" if body else f"{prefix} ({status}): {status} status code (no body)"
    if isinstance(parsed, dict) and parsed.get("error") is None:
        parsed = {"error": parsed}
    error = parsed.get("error") if isinstance(parsed, dict) else parsed
    if isinstance(error, dict) and error:
        return f"{prefix} ({status}): {truncate_error_text(js_json(error))}"
    return f"{prefix} ({status}): {status} {js_json(error)}"


def format_google_error(status: int, body: str, status_text: str = "") -> str:
    parsed = _try_json(body)
    if parsed is None:
        parsed = {"error": {"message": body, "code": status, "status": status_text}}
    return js_json(parsed)


def redact(text: str, secrets: list[str | None]) -> str:
    """Remove API keys from text that might echo them (error bodies, exception texts)."""
    for secret in secrets:
        if secret and len(secret) >= 6 and secret in text:
            text = text.replace(secret, "[redacted]")
    return text


# --------------------------------------------------------------------------- retry hints
#
# A failed reply is a plain message dict that goes to the wire and into session files, so the
# delay a server asked for (Retry-After) travels beside it instead of as an extra field:
# keyed by the message object, checked against the message's own timestamp and error text.
_RETRY_HINTS: OrderedDict[int, tuple[object, object, float]] = OrderedDict()
_MAX_HINTS = 64


def set_retry_hint(message: dict[str, object], delay_ms: float) -> None:
    _RETRY_HINTS[id(message)] = (message.get("timestamp"), message.get("errorMessage"), delay_ms)
    _RETRY_HINTS.move_to_end(id(message))
    while len(_RETRY_HINTS) > _MAX_HINTS:
        _RETRY_HINTS.popitem(last=False)


def retry_hint_ms(message: Mapping[str, object]) -> float | None:
    """The server-requested delay recorded for this failed reply, if any."""
    hint = _RETRY_HINTS.get(id(message))
    if hint is None or hint[0] != message.get("timestamp") or hint[1] != message.get("errorMessage"):
        return None
    return hint[2]
