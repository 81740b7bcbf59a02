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
  ``providerThinkingLevel``.
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
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
import orjson

from pi_rpc.ai.errors import AbortedError, js_json
from pi_rpc.ai.http import iter_sse, make_client
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.providers.common import failure_event, request_max_tokens, short_hash, update_headers
from pi_rpc.ai.providers.openai_responses import finish_output, map_responses_events
from pi_rpc.ai.stream import new_output
from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling
from pi_rpc.ai.thinking import clamp_thinking_level
from pi_rpc.ai.transcript import content_text, get_current_system_message, get_current_tools
from pi_rpc.ai.transform import transform_messages
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

if TYPE_CHECKING:
    import httpx

API = "openai-codex-responses"
DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
JWT_CLAIM_PATH = "https://api.openai.com/auth"
ZSTD_LEVEL = 3
MIN_OUTPUT_TOKENS = 16
BASE_DELAY_MS = 1000
OPENAI_BETA_WEBSOCKETS = "responses_websockets=2026-02-06"
# The body's reasoning.effort while configuration_update items carry the level.
CONFIGURATION_UPDATE_REQUEST_EFFORT = "medium"
CODEX_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
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
INCREMENTAL_TOOLS_NOTICE = (
    "This is an incremental tools update. Previously declared tools remain available unless explicitly "
    "marked unavailable. A tool declared again here is available again, and its latest definition replaces "
    "the earlier one."
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


def transport_failure(exc: BaseException, configured: str, started: bool, request_bytes: int) -> dict[str, Any]:
    """The ``provider_transport_failure`` diagnostic upstream appends to the message when the
    socket fails (the stack is Node's there; its first line here)."""
    name = getattr(exc, "name", None) or type(exc).__name__
    message = str(exc) or name
    error: dict[str, Any] = {"name": name, "message": message, "stack": f"Error: {message}"}
    code = getattr(exc, "code", None)
    if isinstance(code, (str, int)):
        error["code"] = code
    details: dict[str, Any] = {"configuredTransport": configured}
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


# ------------------------------------------------------------------------------ the request


def reasoning_effort(model: Model, options: StreamOptions) -> str | None:
    """``streamSimple``'s effort: the clamped level; off is ``"none"`` on a reasoning model."""
    level = clamp_thinking_level(model, options.reasoning) if options.reasoning else "off"
    if level != "off":
        return level
    return "none" if model.get("reasoning") else None


def _resolve_effort(model: Model, effort: str) -> str | None:
    """The provider's effort for a level; None when the model takes no reasoning field for it."""
    level_map: Mapping[str, Any] = model.get("thinkingLevelMap") or {}
    if effort == "none":
        # ``off`` mapped to null: the model takes no reasoning field when thinking is off.
        return level_map["off"] if "off" in level_map else "none"
    mapped = level_map.get(effort)
    return mapped if isinstance(mapped, str) else effort


def configuration_update_effort(model: Model, effort: str | None) -> str | None:
    """The effort that ``configuration_update`` items carry (None: the body's own effort does)."""
    if not (model.get("compat") or {}).get("supportsMidConvoEffort") or effort is None:
        return None
    return _resolve_effort(model, effort)


def _id_part(part: str) -> str:
    sanitized = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in part)
    return sanitized[:64].rstrip("_")


def _normalize_tool_call_id(model: Model) -> Any:
    def normalize(tool_id: str, _target: Model, source: dict[str, Any]) -> str:
        if model["provider"] not in CODEX_TOOL_CALL_PROVIDERS or "|" not in tool_id:
            return _id_part(tool_id)
        call_id, item_id = tool_id.split("|")[:2]
        foreign = source.get("provider") != model["provider"] or source.get("api") != model["api"]
        item = f"fc_{short_hash(item_id)}"[:64] if foreign else _id_part(item_id)
        if not item.startswith("fc_"):
            item = _id_part(f"fc_{item}")
        return f"{_id_part(call_id)}|{item}"

    return normalize


def convert_tools(tools: list[dict[str, Any]], supports_strict_mode: bool) -> list[dict[str, Any]]:
    """``convertResponsesTools`` with ``strict: null`` as the default: a tool preferring strict
    sampling goes out ``strict: true`` (its schema made strict), any other ``strict: null``."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        strict = resolve_strict_sampling(tool, supports_strict_mode)
        declared: dict[str, Any] = {"type": "function", "name": tool.get("name")}
        if tool.get("description") is not None:
            declared["description"] = tool["description"]
        declared["parameters"] = make_strict_json_schema(tool.get("parameters")) if strict else tool.get("parameters")
        if supports_strict_mode:
            declared["strict"] = strict
        out.append(declared)
    return out


def _tool_result_output(model: Model, content: list[dict[str, Any]]) -> Any:
    text = content_text([b for b in content if b.get("type") == "text"])
    images = [b for b in content if b.get("type") == "image"]
    has_text = bool(text.strip())
    if not images or "image" not in (model.get("input") or []):
        return text if has_text else "(see attached image)" if images else "(no tool output)"
    out: list[dict[str, Any]] = [{"type": "input_text", "text": text}] if has_text else []
    out.extend(
        {"type": "input_image", "detail": "auto", "image_url": f"data:{b['mimeType']};base64,{b['data']}"}
        for b in images
    )
    return out


def _text_signature(signature: str | None) -> tuple[str | None, str | None]:
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = js_loads(signature)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _system_text(message: Mapping[str, Any], leading: bool) -> str:
    text = content_text(message.get("content"))
    sections: Mapping[str, Any] = message.get("sections") or {}
    if leading:
        parts = [text, *(v for v in sections.values() if v is not None)]
        return "\n\n".join(p for p in parts if p)
    # A later system message: section changes framed by name (``renderSystemMessageUpdate``).
    rendered = [text] if text else []
    for name, value in sections.items():
        rendered.append(
            f'Removed system prompt section "{name}".'
            if value is None
            else f'Updated system prompt section "{name}":\n\n{value}'
        )
    return "\n\n".join(rendered)


def _transcript(model: Model, context: Context) -> list[dict[str, Any]]:
    """``normalizeContext`` + ``resolveTranscript``: the prompt and tools as a leading system
    message; later system messages kept in place when the model takes them, else folded in."""
    messages: list[dict[str, Any]] = [dict(m) for m in context.messages]
    if context.system_prompt or context.tools:
        head: dict[str, Any] = {"role": "system", "content": context.system_prompt or ""}
        if context.tools:
            head["toolsAdded"] = [dict(t) for t in context.tools]
        head["timestamp"] = 0
        messages.insert(0, head)
    if (model.get("compat") or {}).get("supportsMidConvoSystemMessages"):
        return messages
    folded = get_current_system_message(messages)
    rest = [m for m in messages if m.get("role") != "system"]
    return [dict(folded), *rest] if folded is not None else rest


def _tool_support(model: Model) -> str:
    compat: Mapping[str, Any] = model.get("compat") or {}
    if compat.get("supportsMidConvoSystemMessages") and compat.get("supportsAdditionalTools"):
        return "changes"
    return "additions" if compat.get("supportsToolSearch") else "none"


def _last_non_additive(system_messages: list[dict[str, Any]]) -> int:
    declared: set[Any] = set()
    last = -1
    for index, message in enumerate(system_messages):
        if message.get("toolsRemoved"):
            last = index
        for tool in message.get("toolsAdded") or []:
            if tool.get("name") in declared:
                last = index
            declared.add(tool.get("name"))
    return last


def convert_input(
    model: Model, messages: list[dict[str, Any]], config_effort: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(input items, top-level tools): upstream's ``convertResponsesMessages`` for Codex."""
    support = _tool_support(model)
    system_messages = [m for m in messages if m.get("role") == "system"]
    if support == "none":
        request_tools, folded_count = get_current_tools(system_messages), len(system_messages)
    elif support == "changes":
        request_tools, folded_count = [], 0
    else:
        leading = 1 if messages and messages[0].get("role") == "system" else 0
        folded_count = max(leading, _last_non_additive(system_messages) + 1)
        request_tools = get_current_tools(system_messages[:folded_count])
    compat: Mapping[str, Any] = model.get("compat") or {}
    supports_strict = compat.get("supportsStrictMode") is not False
    instruction_role = (
        "developer" if model.get("reasoning") and compat.get("supportsDeveloperRole") is not False else "system"
    )
    items: list[dict[str, Any]] = []
    declared_additional = False
    unavailable: dict[str, None] = {}  # an ordered set

    def tool_additions(message: Mapping[str, Any], seed: str) -> None:
        nonlocal declared_additional
        tools = message.get("toolsAdded") or []
        for tool in tools:
            unavailable.pop(tool.get("name"), None)
        if not tools:
            return
        if support == "changes":
            if declared_additional:
                notice = INCREMENTAL_TOOLS_NOTICE
                if unavailable:
                    notice += f"\nStill unavailable: {', '.join(unavailable)}."
                items.append({"role": instruction_role, "content": notice})
            declared_additional = True
            items.append(
                {"type": "additional_tools", "role": "developer", "tools": convert_tools(tools, supports_strict)}
            )
            return
        if support != "additions":
            return
        names = [str(t.get("name")) for t in tools]
        joined = ",".join(names)
        call_id = f"pi_tool_load_{short_hash(f'{seed}:{joined}')}"
        common = {"call_id": call_id, "execution": "client", "status": "completed"}
        items.append(
            {"type": "tool_search_call", **common, "arguments": {"query": " ".join(names), "limit": len(names)}}
        )
        deferred = [{**t, "defer_loading": True} for t in convert_tools(tools, supports_strict)]
        items.append({"type": "tool_search_output", **common, "tools": deferred})

    def configuration_update(effort: Any) -> None:
        items.append({"type": "configuration_update", "reasoning": {"effort": effort}})

    msg_index = 0
    system_index = 0
    for source_index, msg in enumerate(transform_messages(messages, model, _normalize_tool_call_id(model))):
        role = msg.get("role")
        leading = source_index == 0 and role == "system"
        if role == "system":
            anchors = system_index >= folded_count
            system_index += 1
            if anchors:
                tool_additions(msg, f"system:{msg_index}")
            parts = [_system_text(msg, leading)]
            if anchors:
                added = {t.get("name") for t in msg.get("toolsAdded") or []}
                removed = [str(t.get("name")) for t in msg.get("toolsRemoved") or [] if t.get("name") not in added]
                if removed:
                    listed = "\n".join(f"- {name}" for name in removed)
                    parts.append(f"The following tools are no longer available. Do not call them:\n{listed}")
                for name in removed:
                    unavailable[name] = None
            text = "\n\n".join(p for p in parts if p)
            if text:
                items.append({"role": instruction_role, "content": text})
        elif role == "user":
            content = msg.get("content")
            if isinstance(content, str):
                items.append({"role": "user", "content": [{"type": "input_text", "text": content}]})
            else:
                parts_in = [
                    {"type": "input_text", "text": b.get("text", "")}
                    if b.get("type") == "text"
                    else {
                        "type": "input_image",
                        "detail": "auto",
                        "image_url": f"data:{b['mimeType']};base64,{b['data']}",
                    }
                    for b in content or []
                ]
                if not parts_in:
                    continue
                items.append({"role": "user", "content": parts_in})
        elif role == "assistant":
            same_api = msg.get("provider") == model["provider"] and msg.get("api") == model["api"]
            same_model = same_api and msg.get("model") == model["id"]
            output: list[dict[str, Any]] = []
            text_index = 0
            for block in msg.get("content") or []:
                btype = block.get("type")
                if btype == "thinking":
                    if block.get("thinkingSignature"):
                        output.append(js_loads(block["thinkingSignature"]))
                elif btype == "text":
                    msg_id, phase = _text_signature(block.get("textSignature"))
                    fallback = f"msg_pi_{msg_index}" if text_index == 0 else f"msg_pi_{msg_index}_{text_index}"
                    text_index += 1
                    if not msg_id:
                        msg_id = fallback
                    elif len(msg_id) > 64:
                        msg_id = f"msg_{short_hash(msg_id)}"
                    item: dict[str, Any] = {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": block.get("text", ""), "annotations": []}],
                        "status": "completed",
                        "id": msg_id,
                    }
                    if phase:
                        item["phase"] = phase
                    output.append(item)
                elif btype == "toolCall":
                    call_id, _, item_id = str(block.get("id", "")).partition("|")
                    call: dict[str, Any] = {"type": "function_call"}
                    # Another model's item id, or one that is not a function call's, is left out
                    # (OpenAI pairs item ids with reasoning items).
                    if (same_model or not same_api) and item_id.startswith("fc_"):
                        call["id"] = item_id
                    call.update(
                        {
                            "call_id": call_id,
                            "name": block.get("name"),
                            "arguments": js_json(block.get("arguments", {})),
                        }
                    )
                    if same_model and block.get("namespace") is not None:
                        call["namespace"] = block["namespace"]
                    output.append(call)
            if not output:
                continue  # (skips the index, as upstream's ``continue`` does)
            if config_effort is not None and same_model and msg.get("providerThinkingLevel") is not None:
                configuration_update(msg["providerThinkingLevel"])
            items.extend(output)
        elif role == "toolResult":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": str(msg.get("toolCallId", "")).split("|")[0],
                    "output": _tool_result_output(model, msg.get("content") or []),
                }
            )
        if not leading:
            msg_index += 1
    if config_effort is not None:
        configuration_update(config_effort)
    return items, request_tools


def build_body(model: Model, context: Context, options: StreamOptions, session: str | None) -> dict[str, Any]:
    effort = reasoning_effort(model, options)
    config_effort = configuration_update_effort(model, effort)
    messages = _transcript(model, context)
    items, request_tools = convert_input(model, messages, config_effort)
    body: dict[str, Any] = {
        "model": model["id"],
        "store": False,
        "stream": True,
        "input": items,
        "text": {"verbosity": "low"},
        "include": ["reasoning.encrypted_content"],
    }
    if session:
        body["prompt_cache_key"] = session
    body["tool_choice"] = options.extra.get("toolChoice") or "auto"
    body["parallel_tool_calls"] = True
    compat: Mapping[str, Any] = model.get("compat") or {}
    system_prompt = context.system_prompt
    max_tokens = request_max_tokens(model, context, system_prompt, [dict(m) for m in context.messages], options)
    if max_tokens and compat.get("supportsMaxOutputTokens") is not False:
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if request_tools:
        body["tools"] = convert_tools(request_tools, compat.get("supportsStrictMode") is not False)
    if effort is not None:
        sent = _resolve_effort(model, effort) if config_effort is None else CONFIGURATION_UPDATE_REQUEST_EFFORT
        if sent is not None:
            body["reasoning"] = {"effort": sent, "summary": "auto"}
    return body


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


def _parse_frame(text: str, kind: str) -> Any:
    try:
        return js_loads(text)
    except orjson.JSONDecodeError as exc:
        raise CodexProtocolError(f"Invalid Codex {kind} JSON: {_json_error_text(text)}") from exc


async def codex_events(
    frames: AsyncIterator[Any], output: dict[str, Any], model: Model, options: StreamOptions
) -> AsyncIterator[tuple[str | None, dict[str, Any]]]:
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
            nested: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else {}
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
    body: dict[str, Any],
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


async def _started(frames: AsyncIterator[Any], on_start: Callable[[], None]) -> AsyncIterator[Any]:
    """``frames``, calling ``on_start`` before the first (upstream starts the message there)."""
    first = True
    async for frame in frames:
        if first:
            first = False
            on_start()
        yield frame


async def stream_openai_codex_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    output = new_output(model)
    effort = reasoning_effort(model, options)
    config_effort = configuration_update_effort(model, effort)
    if config_effort is not None:
        # After ``model``, where upstream's message literal has it.
        output = {
            **{k: output[k] for k in ("role", "content", "api", "provider", "model")},
            "providerThinkingLevel": config_effort,
            **output,
        }
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
                    aborted = options.signal is not None and options.signal.aborted
                    code = exc.code if isinstance(exc, CodexApiError) else None
                    if not aborted and code == PREVIOUS_RESPONSE_NOT_FOUND and not retried_continuation:
                        retried_continuation = True
                        continue
                    limit = code == CONNECTION_LIMIT_REACHED and not ws_started
                    if not aborted and limit and not retried_limit:
                        retried_limit = True
                        continue
                    if aborted or (isinstance(exc, (CodexApiError, CodexProtocolError)) and not limit):
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
        payload = js_json(body).encode()
        compressed = compress(payload)
        if compressed is not None:
            payload = compressed
            headers["content-encoding"] = "zstd"
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
