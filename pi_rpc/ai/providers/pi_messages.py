"""``pi-messages``: pi's own message protocol sent straight to a backend, the Radius gateway's
wire (``pi-ai/dist/api/pi-messages.js``, pi-ai 1.6; raw ``fetch`` upstream, no SDK).

Request: ``POST <baseUrl>/messages`` (``?debug=1`` with the ``debug`` option), headers
``authorization: Bearer <key>``, ``accept: text/event-stream``, ``content-type:
application/json`` (then the model's and the request's headers), body ``{model, context,
options}``. ``context`` is the transcript itself (``normalizeContext``): the LLM messages with
their system messages (prompt ``sections``, ``toolsAdded``) exactly as stored, or, when the
caller gave none, one leading system message built from the prompt and tools. ``options``
holds, in this order and only when set, ``temperature, maxTokens, reasoning, cacheRetention,
sessionId, toolChoice`` (``cacheRetention`` only when asked for, or ``long`` from
``PI_CACHE_RETENTION``).

Response: SSE whose ``data`` are serialized assistant-message events without ``partial``
(``text_start``/``_delta``/``_end`` with ``content``/``contentSignature``, ``thinking_*`` with
``redacted``, ``toolcall_start`` with ``id``/``toolName``, ``toolcall_end`` with the whole
``toolCall``) and a terminal ``done`` or ``error`` carrying ``reason``, ``usage``,
``responseId`` and optionally ``responseModel``, ``providerThinkingLevel``, ``errorMessage``
and ``rewrite`` (kept as a ``pi_messages_rewrite`` diagnostic). Each event is re-emitted with
the live message as ``partial``; usage comes from the backend as is (no cost computed here).

Failures: an HTTP error reads ``"<status> <statusText>: <error.message or body>( (<code>))"``
with a ``pi_messages_response_failure`` diagnostic; a dropped body ``terminated``, nothing
listening ``fetch failed``, a stream without a terminal event ``"<provider> stream ended
without a terminal event"``, a bad ``contentIndex`` upstream's ``Invalid contentIndex`` text.
Such a failure ends with a fresh, empty assistant message (upstream's ``createErrorEvent``),
not the partial one. No provider-level retry (the session's retry still runs).
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any, cast

from pi_rpc.ai.errors import AbortedError, ProviderHTTPError, js_json, redact
from pi_rpc.ai.http import iter_sse_batches, open_stream
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.output import new_output
from pi_rpc.ai.partial_json import ToolCallArgumentsStream
from pi_rpc.ai.providers.common import append_text
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions, is_system

API = "pi-messages"
_DIAGNOSTIC_BODY_CHARS = 8192
# ``fetch``'s AbortError text: upstream reports the error it caught, whichever step it was in.
_ABORTED = "This operation was aborted"


class PiMessagesResponseError(Exception):
    """A non-2xx answer: upstream's message, the error body's ``code`` and the diagnostic details."""

    def __init__(self, message: str, code: str | None, details: dict[str, object]) -> None:
        super().__init__(message)
        self.code = code
        self.details = details


def build_context(context: Context) -> dict[str, object]:
    """``normalizeContext``: the transcript as the caller holds it, system messages included;
    a leading system message from the prompt and tools only when the caller gave no transcript
    (``createInitialSystemMessage``)."""
    transcript = context.transcript
    if transcript is not None and any(is_system(m) for m in transcript):
        return {"messages": list(transcript)}
    messages: list[object] = [m for m in (transcript if transcript is not None else context.messages)]
    if context.system_prompt or context.tools:
        initial: dict[str, object] = {"role": "system", "content": context.system_prompt or ""}
        if context.tools:
            initial["toolsAdded"] = list(context.tools)
        initial["timestamp"] = 0
        messages.insert(0, initial)
    return {"messages": messages}


def _cache_retention(options: StreamOptions) -> str | None:
    """The caller's retention, else only the legacy ``PI_CACHE_RETENTION=long`` (the stored
    credential's ``env`` first, then the process's; the backend's default applies otherwise).
    ``short`` is our options' default, so it reads as not asked for."""
    if options.cache_retention != "short":
        return options.cache_retention
    env = options.extra.get("env")
    value = env.get("PI_CACHE_RETENTION") if isinstance(env, dict) else None
    value = value or os.environ.get("PI_CACHE_RETENTION")
    return "long" if value == "long" else None


def build_payload(model: Model, context: Context, options: StreamOptions) -> dict[str, object]:
    """``{model, context, options}`` with the options upstream forwards; unset ones are left out
    (``JSON.stringify`` drops ``undefined``)."""
    forwarded: dict[str, object] = {}
    for key, value in (
        ("temperature", options.temperature),
        ("maxTokens", options.max_tokens),
        ("reasoning", options.reasoning if options.reasoning and options.reasoning != "off" else None),
        ("cacheRetention", _cache_retention(options)),
        ("sessionId", options.session_id),
        ("toolChoice", options.extra.get("toolChoice")),
    ):
        if value is not None:
            forwarded[key] = value
    return {"model": model["id"], "context": build_context(context), "options": forwarded}


def build_headers(api_key: str, model: Model, options: StreamOptions) -> dict[str, str]:
    """Fixed headers, then the model's and the request's (names compared case-insensitively as a
    ``Headers`` object does; a None value removes one)."""
    headers = {"authorization": f"Bearer {api_key}", "accept": "text/event-stream", "content-type": "application/json"}
    for overrides in (model.get("headers") or {}, options.headers or {}):
        for name, value in overrides.items():
            headers.pop(name.lower(), None)
            if value is not None:
                headers[name.lower()] = value
    return headers


def _status_text(status: int, reason: str | None) -> str:
    if reason is not None:
        return reason
    import http  # (the reason phrases; only on an error)

    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


def response_error(model: Model, url: str, status: int, reason: str | None, body: str) -> PiMessagesResponseError:
    """``createPiMessagesResponseError``: ``error.message`` of a JSON error body (else the body),
    its ``code`` in brackets; the details keep the parsed error or the body (8192 characters)."""
    error_body: dict[str, Any] | None = None
    try:
        parsed = js_loads(body)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        error_body = parsed
    error = error_body["error"] if error_body is not None else {}
    message = error.get("message") if isinstance(error.get("message"), str) else None
    code = error.get("code") if isinstance(error.get("code"), str) else None
    status_text = _status_text(status, reason)
    text = f"{status} {status_text}: {message if message is not None else body}{f' ({code})' if code else ''}"
    details: dict[str, object] = {
        "version": 1,
        "provider": model["provider"],
        "model": model["id"],
        "url": url,
        "status": status,
        "statusText": status_text,
    }
    if error_body is not None:
        details["error"] = error_body["error"]
    else:
        details["body"] = body if len(body) <= _DIAGNOSTIC_BODY_CHARS else body[:_DIAGNOSTIC_BODY_CHARS] + "…"
    details["timestampMs"] = int(time.time() * 1000)
    return PiMessagesResponseError(text, code, details)


def _redacted(value: object, secret: str | None) -> object:
    """``value`` with the key cut out of every string in it: a backend may echo the key in an
    error body, and the message goes to stdout and the session file (upstream keeps it)."""
    if not secret:
        return value
    if isinstance(value, str):
        return redact(value, [secret])
    if isinstance(value, dict):
        return {k: _redacted(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, secret) for v in value]
    return value


def _append_diagnostic(message: dict[str, Any], diagnostic: dict[str, Any]) -> None:
    message["diagnostics"] = [*(message.get("diagnostics") or []), diagnostic]


def _set(target: dict[str, object], key: str, value: object) -> None:
    """``Object.assign`` of one key: an absent (``undefined``) value leaves no key in the JSON."""
    if value is None:
        target.pop(key, None)
    else:
        target[key] = value


class EventConverter:
    """``createEventConverter``: one wire event in, the in-process event out (the live message
    as ``partial``)."""

    def __init__(self, model: Model, secret: str | None = None) -> None:
        self.partial = new_output(model)
        self.secret = secret
        self.tool_arguments: dict[int, ToolCallArgumentsStream] = {}

    def _finish(self, event: dict[str, object], error: bool) -> None:
        partial = self.partial
        _set(partial, "stopReason", event.get("reason"))
        _set(partial, "usage", event.get("usage"))
        if error:
            _set(partial, "errorMessage", _redacted(event.get("errorMessage"), self.secret))
        _set(partial, "responseId", event.get("responseId"))
        if event.get("responseModel") is not None:
            partial["responseModel"] = event["responseModel"]
        if event.get("providerThinkingLevel") is not None:
            partial["providerThinkingLevel"] = event["providerThinkingLevel"]
        rewrite = event.get("rewrite")
        if rewrite:
            details = dict(rewrite) if isinstance(rewrite, dict) else rewrite
            _append_diagnostic(
                partial, {"type": "pi_messages_rewrite", "timestamp": int(time.time() * 1000), "details": details}
            )

    def convert(self, event: dict[str, Any]) -> AssistantMessageEvent:
        partial = self.partial
        content: list[dict[str, object]] = partial["content"]
        etype = event.get("type")
        if "contentIndex" in event:
            # The index keys the content array: a start adds the next block, the rest need one.
            index = event["contentIndex"]
            limit = len(content) if isinstance(etype, str) and etype.endswith("_start") else len(content) - 1
            if not isinstance(index, int) or isinstance(index, bool) or index < 0 or index > limit:
                raise ValueError(f"Invalid contentIndex {js_json(index)} in pi-messages {etype} event")
        if etype == "done":
            self._finish(event, error=False)
            return {"type": "done", "reason": event.get("reason"), "message": partial}
        if etype == "error":
            self._finish(event, error=True)
            return {"type": "error", "reason": event.get("reason"), "error": partial}
        index = event.get("contentIndex", -1)
        if etype == "text_start":
            self._place(index, {"type": "text", "text": ""})
        elif etype == "text_delta":
            _append(content[index], "text", event.get("delta"))
        elif etype == "text_end":
            _set(content[index], "text", event.get("content"))
            _set(content[index], "textSignature", event.get("contentSignature"))
        elif etype == "thinking_start":
            self._place(index, {"type": "thinking", "thinking": ""})
        elif etype == "thinking_delta":
            _append(content[index], "thinking", event.get("delta"))
        elif etype == "thinking_end":
            _set(content[index], "thinking", event.get("content"))
            _set(content[index], "thinkingSignature", event.get("contentSignature"))
            _set(content[index], "redacted", event.get("redacted"))
        elif etype == "toolcall_start":
            block: dict[str, object] = {
                "type": "toolCall",
                "id": event.get("id"),
                "name": event.get("toolName"),
                "arguments": {},
            }
            self._place(index, {k: v for k, v in block.items() if v is not None})
            self.tool_arguments[index] = ToolCallArgumentsStream()
        elif etype == "toolcall_delta":
            stream = self.tool_arguments.get(index)
            if stream is not None:
                content[index]["arguments"] = stream.append(_js_str(event.get("delta")))
        elif etype == "toolcall_end":
            call = event.get("toolCall")
            for key, value in call.items() if isinstance(call, dict) else ():
                _set(content[index], key, value)
            self.tool_arguments.pop(index, None)
            return {"type": "toolcall_end", "contentIndex": index, "toolCall": content[index], "partial": partial}
        # The server's event as it came (checked above), with its extra fields, on our message.
        return cast("AssistantMessageEvent", {**event, "partial": partial})

    def _place(self, index: int, block: dict[str, object]) -> None:
        content: list[dict[str, object]] = self.partial["content"]
        if index == len(content):
            content.append(block)
        else:
            content[index] = block


def _js_str(value: object) -> str:
    """What ``+=`` appends for a wire value (``undefined`` reads as ``"undefined"`` upstream;
    a delta is always a string in practice)."""
    if isinstance(value, str):
        return value
    return "undefined" if value is None else js_json(value)


def _append(block: dict[str, object], key: str, delta: object) -> None:
    """``block[key] += delta`` as JS does it: a block of another type has no such key, which
    reads as ``undefined`` (the backend's mistake shows in the text rather than failing)."""
    piece = _js_str(delta)
    if isinstance(block.get(key), str):
        append_text(block, key, piece)
    else:
        block[key] = _js_str(block.get(key)) + piece


def _first_data_line(data: str) -> str:
    """``parsePiMessagesEvent`` reads the first ``data:`` line of an event, trimmed."""
    return data.split("\n", 1)[0].strip()


def error_event(model: Model, exc: BaseException, options: StreamOptions) -> AssistantMessageEvent:
    """``createErrorEvent``: a fresh empty message (the partial one is dropped) with the failure's
    text; an HTTP error adds its ``pi_messages_response_failure`` diagnostic."""
    aborted = bool(options.signal and options.signal.aborted) or isinstance(exc, AbortedError)
    if aborted:
        message_text = _ABORTED
    elif isinstance(exc, ConnectionError):
        # fetch's own texts: "fetch failed" before a response, "terminated" when the body drops.
        message_text = "terminated" if str(exc).startswith("terminated") else "fetch failed"
    else:
        message_text = str(exc) or type(exc).__name__
    message_text = redact(message_text, [options.api_key])
    output = new_output(model)
    output.pop("timestamp")  # upstream's key order: the error text before the timestamp
    output["stopReason"] = "aborted" if aborted else "error"
    output["errorMessage"] = message_text
    output["timestamp"] = int(time.time() * 1000)
    if not aborted and isinstance(exc, PiMessagesResponseError):
        error: dict[str, object] = {"name": "PiMessagesResponseError", "message": message_text}
        # Upstream records the Node stack; its first line is the name and message.
        error["stack"] = f"PiMessagesResponseError: {message_text}"
        if exc.code is not None:
            error["code"] = _redacted(exc.code, options.api_key)
        diagnostic = {
            "type": "pi_messages_response_failure",
            "timestamp": int(time.time() * 1000),
            "error": error,
            "details": _redacted(exc.details, options.api_key),
        }
        _append_diagnostic(output, diagnostic)
    return {"type": "error", "reason": output["stopReason"], "error": output}


async def stream_pi_messages(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    converter = EventConverter(model, options.api_key)
    try:
        api_key = options.api_key
        if not api_key:
            raise RuntimeError(f'No API key provided for provider "{model["provider"]}"')
        url = model.get("baseUrl", "").rstrip("/") + "/messages"
        if options.extra.get("debug"):
            url += "?debug=1"
        body = build_payload(model, context, options)
        headers = build_headers(api_key, model, options)

        def format_error(status: int, text: str) -> str:
            return f"{status}: {text}"  # replaced below by upstream's text, which needs the reason phrase

        # Upstream sends this request once: no provider-level retry (the session's retry still runs).
        request_options = replace(options, max_retries=0)
        try:
            async with open_stream(request_options, url, headers, body, format_error) as response:
                on_stream_event = options.on_stream_event
                async for batch in iter_sse_batches(response, options.signal):
                    for sse in batch:
                        data = _first_data_line(sse.data)
                        if not data or data == "[DONE]":
                            continue
                        wire = js_loads(data)
                        if on_stream_event is not None:
                            await on_stream_event(wire, model)
                        if not isinstance(wire, dict):
                            raise ValueError(f"Invalid pi-messages event: {data[:200]}")
                        event = converter.convert(wire)
                        yield event
                        if event["type"] in ("done", "error"):
                            return
        except ProviderHTTPError as exc:
            raise response_error(model, url, exc.status, exc.reason_phrase, exc.body) from exc
        raise RuntimeError(f"{model['provider']} stream ended without a terminal event")
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        yield error_event(model, exc, options)
