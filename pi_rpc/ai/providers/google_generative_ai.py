"""``google-generative-ai``: Gemini ``models/{id}:streamGenerateContent?alt=sse`` over httpx,
following pi-ai 1.6: each SSE chunk is a full GenerateContentResponse; a switch between
``thought:true`` parts and plain text closes the previous block; function calls arrive whole
(start, one delta with the JSON arguments, end); ``thoughtSignature`` is kept on the part's block
and replayed only to the same model; usage is cumulative per chunk (input = prompt - cached,
output = candidates + thoughts). HTTP errors are the compact JSON of the body (@google/genai).

The body and the stream (``build_body``, ``stream_gemini``) are shared with ``google-vertex``
(``google_vertex.py``), which brings its own URL and credentials, as upstream's
``google-shared.js``.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

import orjson

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.errors import ProviderStreamError, format_google_error, js_json
from pi_rpc.ai.http import iter_sse, open_stream
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.output import new_output
from pi_rpc.ai.providers.common import append_text, failure_event, merged_headers, reasoning_level, request_max_tokens
from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling
from pi_rpc.ai.transform import collapse_context, transform_messages
from pi_rpc.ai.types import AssistantMessageEvent, BlockDeltaType, BlockStartType, Context, Model, StreamOptions

API = "google-generative-ai"
_SIG = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_GEMINI_VERSION = re.compile(r"^gemini(?:-live)?-(\d+)")
_COUNTER = itertools.count(1)
_ERROR_REASONS = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "LANGUAGE",
    "OTHER",
    "MALFORMED_FUNCTION_CALL",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
    "NO_IMAGE",
    "FINISH_REASON_UNSPECIFIED",
}
BUDGETS_25_PRO = {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
BUDGETS_25_FLASH = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}


def _sig(value: object) -> str | None:
    """``isValidThoughtSignature``: Google wants base64 (TYPE_BYTES) signatures back."""
    return value if isinstance(value, str) and value and len(value) % 4 == 0 and _SIG.match(value) else None


def requires_tool_call_id(model_id: str) -> bool:
    """``requiresToolCallId``: models behind Google's APIs that need ids on function calls and
    responses (Claude, gpt-oss, Gemini 3 and later)."""
    major = _gemini_major_version(model_id)
    return model_id.startswith(("claude-", "gpt-oss-")) or (major is not None and major >= 3)


def _multimodal_function_response(model_id: str) -> bool:
    """Images nested in ``functionResponse.parts``: Gemini 3 and later, and non-Gemini models."""
    major = _gemini_major_version(model_id)
    return major is None or major >= 3


def _model_part(b: dict[str, Any], same: bool, with_ids: bool) -> dict[str, Any] | None:
    """One assistant block as a Gemini ``model`` part (None: not sent); signatures only go back
    to the model (``same``) that made them."""
    t = b.get("type")
    part: dict[str, object]
    if t == "text":
        sig = _sig(b.get("textSignature")) if same else None
        # An empty text part is kept when it carries a signature Gemini wants echoed.
        if not (b.get("text") or "").strip() and not sig:
            return None
        part = {"text": b.get("text", "")}
        if sig:
            part["thoughtSignature"] = sig
        return part
    if t == "thinking":
        if not same:
            return {"text": b["thinking"]} if (b.get("thinking") or "").strip() else None
        sig = _sig(b.get("thinkingSignature"))
        if not (b.get("thinking") or "").strip() and not sig:
            return None
        part = {"thought": True, "text": b.get("thinking", "")}
        if sig:
            part["thoughtSignature"] = sig
        return part
    if t == "toolCall":
        call: dict[str, object] = {"name": b.get("name"), "args": b.get("arguments") or {}}
        if with_ids:
            call["id"] = b.get("id")
        part = {"functionCall": call}
        sig = _sig(b.get("thoughtSignature")) if same else None
        if sig:
            part["thoughtSignature"] = sig
        return part
    return None


def convert_contents(model: Model, messages: list[dict[str, object]]) -> list[dict[str, object]]:
    """Upstream 1.6's ``convertMessages`` (``google-shared.js``): the conversation as Gemini
    ``contents``, tool-call ids normalised and sent where the model requires them."""
    contents: list[dict[str, Any]] = []
    with_ids = requires_tool_call_id(model["id"])

    def normalize(call_id: str, _model: Model, _source: dict[str, object]) -> str:
        return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64] if with_ids else call_id

    for msg in transform_messages(messages, model, normalize):
        role = msg.get("role")
        if role == "user":
            content = msg.get("content")
            if isinstance(content, str):
                contents.append({"role": "user", "parts": [{"text": content}]})
                continue
            parts: list[dict[str, object]] = [
                {"text": b.get("text", "")}
                if b.get("type") == "text"
                else {"inlineData": {"mimeType": b.get("mimeType"), "data": b.get("data")}}
                for b in content or []
            ]
            if parts:
                contents.append({"role": "user", "parts": parts})
        elif role == "assistant":
            same = msg.get("provider") == model["provider"] and msg.get("model") == model["id"]
            parts = [part for b in msg.get("content") or [] if (part := _model_part(b, same, with_ids)) is not None]
            if parts:
                contents.append({"role": "model", "parts": parts})
        elif role == "toolResult":
            content = msg.get("content") or []
            text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
            images = [b for b in content if b.get("type") == "image"] if "image" in (model.get("input") or []) else []
            value = text if text.strip() else "(see attached image)" if images else ""
            image_parts = [{"inlineData": {"mimeType": b.get("mimeType"), "data": b.get("data")}} for b in images]
            nested = _multimodal_function_response(model["id"])
            fr: dict[str, object] = {
                "name": msg.get("toolName"),
                "response": {"error": value} if msg.get("isError") else {"output": value},
            }
            if images and nested:
                fr["parts"] = image_parts
            if with_ids:
                fr["id"] = msg.get("toolCallId")
            part = {"functionResponse": fr}
            last = contents[-1] if contents else None
            if last is not None and last["role"] == "user" and any("functionResponse" in p for p in last["parts"]):
                last["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            if images and not nested:
                contents.append({"role": "user", "parts": [{"text": "Tool result image:"}, *image_parts]})
    return contents


_TOOL_CHOICE_MODES = {"auto": "AUTO", "none": "NONE", "any": "ANY"}

# Schema keywords whose values map names to subschemas, and those holding subschemas
# (``google-shared.js`` ``JSON_SCHEMA_NAME_MAPS`` / ``JSON_SCHEMA_SUBSCHEMAS``).
_NAME_MAPS = frozenset(("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"))
_SUBSCHEMAS = frozenset(
    (
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "contains",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
    )
)


def _const_as_enum(schema: object, name_map: bool = False) -> object:
    """``rewriteConstAsEnum``: Gemini ignores ``const`` in ``parametersJsonSchema``, so a string
    or number ``const`` goes out as a one-value ``enum`` (where no ``enum`` is given)."""
    if isinstance(schema, list):
        return [_const_as_enum(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {
        key: _const_as_enum(value)
        if name_map or key in _SUBSCHEMAS
        else _const_as_enum(value, True)
        if key in _NAME_MAPS
        else value
        for key, value in schema.items()
    }
    if not name_map and "const" in result and "enum" not in result:
        value = result["const"]
        if isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            del result["const"]
            result["enum"] = [value]
    return result


def _gemini_major_version(model_id: str) -> int | None:
    match = _GEMINI_VERSION.match(model_id.lower())
    return int(match.group(1)) if match else None


def build_body(model: Model, context: Context, options: StreamOptions) -> dict[str, object]:
    """The request body (upstream's ``google-shared.js``, shared with ``google-vertex``). Tools go
    out as ``parametersJsonSchema`` with string and number ``const`` values as one-value
    ``enum``s; on Gemini 3 and later a tool that prefers strict sampling (the built-in ones do)
    goes out with its schema made strict and the calling mode ``VALIDATED`` unless the tool choice
    is ``none``/``any`` (constrained sampling)."""
    system_prompt, messages, tools = collapse_context(context)
    body: dict[str, object] = {"contents": convert_contents(model, messages)}
    if system_prompt:
        # The SDK gives the system instruction the ``user`` role (seen on the wire, both APIs).
        body["systemInstruction"] = {"parts": [{"text": system_prompt}], "role": "user"}
    supports_strict = (_gemini_major_version(model["id"]) or 0) >= 3
    strict = [resolve_strict_sampling(t, supports_strict) is True for t in tools]
    if tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {
                        "name": t["name"],
                        "description": t.get("description", ""),
                        "parametersJsonSchema": _const_as_enum(
                            make_strict_json_schema(t.get("parameters")) if strict[i] else t.get("parameters", {})
                        ),
                    }
                    for i, t in enumerate(tools)
                ]
            }
        ]
        choice = options.extra.get("toolChoice")
        # ``resolveGoogleFunctionCallingMode``: none/any as asked, else VALIDATED for strict
        # tools, else the choice (anything but auto/none/any counts as AUTO); no tools, no mode.
        mode = _TOOL_CHOICE_MODES.get(choice, "AUTO") if choice else None
        if any(strict) and choice not in ("none", "any"):
            mode = "VALIDATED"
        if mode is not None:
            body["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    config: dict[str, object] = {}
    if options.temperature is not None:
        config["temperature"] = options.temperature
    config["maxOutputTokens"] = request_max_tokens(model, context, system_prompt, messages, options)
    level = reasoning_level(model, options)
    if model.get("reasoning"):
        if level:
            thinking: dict[str, object] = {"includeThoughts": True}
            mid = model["id"]
            if "gemini-3" in mid:
                if "pro" in mid:
                    thinking["thinkingLevel"] = "LOW" if level in ("minimal", "low") else "HIGH"
                else:
                    thinking["thinkingLevel"] = {"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM"}.get(
                        level, "HIGH"
                    )
            else:
                budgets = BUDGETS_25_PRO if "2.5-pro" in mid else BUDGETS_25_FLASH if "2.5-flash" in mid else None
                key = "high" if level in ("xhigh", "max") else level
                thinking["thinkingBudget"] = budgets[key] if budgets else -1
            config["thinkingConfig"] = thinking
        else:
            config["thinkingConfig"] = (
                {"thinkingBudget": 0}
                if "gemini-2.5" in model["id"] and "pro" not in model["id"]
                else {"includeThoughts": False}
            )
    body["generationConfig"] = config
    return body


def _map_finish(reason: str) -> str:
    if reason == "STOP":
        return "stop"
    if reason in ("MAX_TOKENS", "CONTINUATION"):
        return "length"
    return "error"


# Where and how one request goes: ``(url, headers)`` for the model, awaited before the body is built
# (``google-vertex`` fetches an OAuth token here; its configuration errors end the stream).
GeminiEndpoint = Callable[[Model, StreamOptions], Awaitable[tuple[str, dict[str, str]]]]


async def _api_key_endpoint(model: Model, options: StreamOptions) -> tuple[str, dict[str, str]]:
    if not options.api_key:
        raise RuntimeError(f"No API key for provider: {model['provider']}")
    headers = {
        "accept": "*/*",
        "content-type": "application/json",
        "x-goog-api-key": options.api_key,
        "user-agent": "pi-rpc",
    }
    url = f"{model.get('baseUrl', '').rstrip('/')}/models/{model['id']}:streamGenerateContent?alt=sse"
    return url, headers


def stream_google_generative_ai(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    return stream_gemini(model, context, options, _api_key_endpoint)


async def stream_gemini(
    model: Model,
    context: Context,
    options: StreamOptions,
    endpoint: GeminiEndpoint,
    *,
    label: str = "Google",
    body_for: Callable[[Model, Context, StreamOptions], dict[str, object]] = build_body,
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """One ``streamGenerateContent`` SSE exchange, shared by ``google-generative-ai`` and
    ``google-vertex`` (upstream's ``google-shared.js``): ``endpoint`` says where it goes and with
    which credentials, ``label`` names the API in the unfinished-stream error."""
    output = new_output(model)
    try:
        url, headers = await endpoint(model, options)
        headers = merged_headers(model, headers, options)
        body = body_for(model, context, options)
        async with open_stream(options, url, headers, body, format_google_error) as response:
            yield {"type": "start", "partial": output}
            state = _GeminiStream(model, output)
            async for sse in iter_sse(response, options.signal):
                try:
                    chunk = js_loads(sse.data)
                except orjson.JSONDecodeError as exc:
                    raise ProviderStreamError(f"Could not parse Gemini chunk as JSON: {sse.data[:200]}") from exc
                if options.on_stream_event is not None:
                    await options.on_stream_event(chunk, model)
                if isinstance(chunk, dict) and chunk.get("error"):
                    raise ProviderStreamError(js_json(chunk))
                if isinstance(chunk, dict):
                    for event in state.chunk(chunk):
                        yield event
            ev = state.close_current()
            if ev:
                yield ev
        _check_end(output, options, label)
        yield {"type": "done", "reason": output["stopReason"], "message": output}
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        yield failure_event(output, exc, options)


def _check_end(output: dict[str, object], options: StreamOptions, label: str) -> None:
    if options.signal is not None and options.signal.aborted:
        raise RuntimeError("Request was aborted")
    if output["stopReason"] == "pending":
        raise ProviderStreamError(f"{label} stream ended without a finish reason")
    if output["stopReason"] in ("aborted", "error"):
        raw = output.get("rawStopReason")
        raise ProviderStreamError(f"Provider stopped with: {raw}" if raw else "An unknown error occurred")


class _GeminiStream:
    """The state of one streamed reply (the open text or thinking block) and a handler per
    part of a chunk: text, a function call, the finish reason, the usage."""

    def __init__(self, model: Model, output: dict[str, Any]) -> None:
        self.model = model
        self.output = output
        self.blocks: list[dict[str, Any]] = output["content"]
        self.current: dict[str, object] | None = None

    def close_current(self) -> AssistantMessageEvent | None:
        current = self.current
        if current is None:
            return None
        index = len(self.blocks) - 1
        if current["type"] == "text":
            return {"type": "text_end", "contentIndex": index, "content": str(current["text"]), "partial": self.output}
        content = str(current["thinking"])
        return {"type": "thinking_end", "contentIndex": index, "content": content, "partial": self.output}

    def chunk(self, chunk: dict[str, Any]) -> list[AssistantMessageEvent]:
        output = self.output
        events: list[AssistantMessageEvent] = []
        if chunk.get("responseId") and not output.get("responseId"):
            output["responseId"] = chunk["responseId"]
        candidates = chunk.get("candidates") or []
        candidate = candidates[0] if candidates else None
        for part in ((candidate or {}).get("content") or {}).get("parts") or []:
            if "text" in part and part["text"] is not None:
                self._text(part, events)
            if part.get("functionCall"):
                self._function_call(part, events)
        if candidate and candidate.get("finishReason"):
            output["rawStopReason"] = candidate["finishReason"]
            output["stopReason"] = _map_finish(candidate["finishReason"])
            if output["stopReason"] == "stop" and any(b["type"] == "toolCall" for b in self.blocks):
                output["stopReason"] = "toolUse"
        meta = chunk.get("usageMetadata")
        if meta:
            self._usage(meta)
        return events

    def _text(self, part: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        """A text part: a text or thought delta, opening its block (closing the other kind)."""
        blocks, output = self.blocks, self.output
        thinking = part.get("thought") is True
        current = self.current
        if current is None or current["type"] != ("thinking" if thinking else "text"):
            ev = self.close_current()
            if ev:
                events.append(ev)
            current = self.current = {"type": "thinking", "thinking": ""} if thinking else {"type": "text", "text": ""}
            blocks.append(current)
            start: BlockStartType = "thinking_start" if thinking else "text_start"
            events.append({"type": start, "contentIndex": len(blocks) - 1, "partial": output})
        sig = part.get("thoughtSignature")
        kind: BlockDeltaType
        key, signature_key, kind = (
            ("thinking", "thinkingSignature", "thinking_delta")
            if current["type"] == "thinking"
            else ("text", "textSignature", "text_delta")
        )
        append_text(current, key, part["text"])
        if isinstance(sig, str) and sig:
            current[signature_key] = sig
        events.append({"type": kind, "contentIndex": len(blocks) - 1, "delta": part["text"], "partial": output})

    def _function_call(self, part: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        """A function call: a whole tool call (start, delta, end), closing the open block."""
        blocks, output = self.blocks, self.output
        ev = self.close_current()
        if ev:
            events.append(ev)
        self.current = None
        fc = part["functionCall"]
        provided = fc.get("id")
        if not provided or any(b["type"] == "toolCall" and b["id"] == provided for b in blocks):
            provided = f"{fc.get('name', '')}_{int(time.time() * 1000)}_{next(_COUNTER)}"
        call: dict[str, object] = {
            "type": "toolCall",
            "id": provided,
            "name": fc.get("name") or "",
            "arguments": fc.get("args") or {},
        }
        if part.get("thoughtSignature"):
            call["thoughtSignature"] = part["thoughtSignature"]
        blocks.append(call)
        ci = len(blocks) - 1
        events.append({"type": "toolcall_start", "contentIndex": ci, "partial": output})
        events.append(
            {"type": "toolcall_delta", "contentIndex": ci, "delta": js_json(call["arguments"]), "partial": output}
        )
        events.append({"type": "toolcall_end", "contentIndex": ci, "toolCall": call, "partial": output})

    def _usage(self, meta: dict[str, Any]) -> None:
        cached = meta.get("cachedContentTokenCount") or 0
        self.output["usage"] = {
            "input": (meta.get("promptTokenCount") or 0) - cached,
            "output": (meta.get("candidatesTokenCount") or 0) + (meta.get("thoughtsTokenCount") or 0),
            "cacheRead": cached,
            "cacheWrite": 0,
            "reasoning": meta.get("thoughtsTokenCount") or 0,
            "totalTokens": meta.get("totalTokenCount") or 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }
        calculate_cost(self.model, self.output["usage"])
