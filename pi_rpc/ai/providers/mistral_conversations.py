"""``mistral-conversations``: Mistral's native chat endpoint over httpx, as pi-ai 1.6 sends it
(``pi-ai/dist/api/mistral-conversations.js``; raw ``fetch`` upstream, no SDK).

Despite the name it is ``POST <baseUrl>/v1/chat/completions``: an OpenAI-like body in snake case
(keys in upstream's order: model, stream, messages, tools, temperature, max_tokens, tool_choice,
reasoning_effort, prompt_mode, prompt_cache_key), assistant messages with ``prefix: false`` and
thinking as ``{"type":"thinking","thinking":[{"type":"text",...}]}`` chunks, tool results as
``role: "tool"`` with the tool name and trimmed text. Models with a ``thinkingLevelMap`` get
``reasoning_effort``; other reasoning models ``prompt_mode: "reasoning"``. With a session id
(and caching not off) ``prompt_cache_key`` and the ``x-affinity`` header carry it. Tool-call ids
of other models become 9 alphanumerics (upstream's ``shortHash``, collision-checked per request).

Stream: text and thinking blocks open and close as the deltas alternate (an empty delta opens
nothing), tool calls are keyed by ``index`` and end after the stream, usage counts cached prompt
tokens as ``cacheRead``. Upstream does no provider-level retry here (no ``retryProviderRequest``),
so neither do we. HTTP errors read ``"Mistral API error (<status>): <body>"``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import orjson

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.errors import ProviderStreamError, js_json, truncate_error_text
from pi_rpc.ai.http import iter_sse_batches, open_stream
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.output import new_output
from pi_rpc.ai.partial_json import ToolCallArgumentsStream
from pi_rpc.ai.providers.common import append_text, failure_event, reasoning_level, request_max_tokens, short_hash
from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling
from pi_rpc.ai.transform import collapse_context, transform_messages
from pi_rpc.ai.types import (
    AssistantMessageEvent,
    BlockDeltaType,
    BlockEndType,
    BlockStartType,
    Context,
    Model,
    StreamOptions,
)

API = "mistral-conversations"
TOOL_CALL_ID_LENGTH = 9
_NON_ALNUM = re.compile(r"[^a-zA-Z0-9]")


def derive_tool_call_id(tool_id: str, attempt: int) -> str:
    normalized = _NON_ALNUM.sub("", tool_id)
    if attempt == 0 and len(normalized) == TOOL_CALL_ID_LENGTH:
        return normalized
    seed_base = normalized or tool_id
    seed = seed_base if attempt == 0 else f"{seed_base}:{attempt}"
    return _NON_ALNUM.sub("", short_hash(seed))[:TOOL_CALL_ID_LENGTH]


def tool_call_id_normalizer() -> Callable[[str, Model, dict[str, object]], str]:
    """One request's id mapper: stable per id, and two ids never share a short form."""
    by_id: dict[str, str] = {}
    owner: dict[str, str] = {}

    def normalize(tool_id: str, _model: Model, _source: dict[str, object]) -> str:
        if tool_id in by_id:
            return by_id[tool_id]
        attempt = 0
        while True:
            candidate = derive_tool_call_id(tool_id, attempt)
            holder = owner.get(candidate)
            if holder is None or holder == tool_id:
                by_id[tool_id] = candidate
                owner[candidate] = tool_id
                return candidate
            attempt += 1

    return normalize


def _image_url(block: dict[str, object]) -> str:
    return f"data:{block.get('mimeType')};base64,{block.get('data')}"


def _tool_result_text(text: str, has_images: bool, supports_images: bool, is_error: bool) -> str:
    trimmed = text.strip()
    prefix = "[tool error] " if is_error else ""
    if trimmed:
        suffix = "\n[tool image omitted: model does not support images]" if has_images and not supports_images else ""
        return f"{prefix}{trimmed}{suffix}"
    if has_images:
        if supports_images:
            return "[tool error] (see attached image)" if is_error else "(see attached image)"
        return f"{prefix}(image omitted: model does not support images)"
    return f"{prefix}(no tool output)"


def _assistant_message(msg: dict[str, Any]) -> dict[str, Any] | None:
    """An assistant message's text and thinking chunks and tool calls (None: nothing to send)."""
    chunks: list[dict[str, object]] = []
    calls: list[dict[str, object]] = []
    for block in msg.get("content") or []:
        btype = block.get("type")
        if btype == "text":
            if block.get("text", "").strip():
                chunks.append({"type": "text", "text": block["text"]})
        elif btype == "thinking":
            if block.get("thinking", "").strip():
                chunks.append({"type": "thinking", "thinking": [{"type": "text", "text": block["thinking"]}]})
        else:
            calls.append(
                {
                    "id": block.get("id"),
                    "type": "function",
                    "function": {"name": block.get("name"), "arguments": js_json(block.get("arguments") or {})},
                    "index": 0,
                }
            )
    if not chunks and not calls:
        return None
    assistant: dict[str, object] = {"role": "assistant", "prefix": False}
    if chunks:
        assistant["content"] = chunks
    if calls:
        assistant["tool_calls"] = calls
    return assistant


def convert_messages(system_prompt: str, messages: list[dict[str, Any]], supports_images: bool) -> list[dict[str, Any]]:
    """``toChatMessages`` + ``toMistralWireMessage``: upstream's camel-case keys renamed, the
    renamed ones moving to the end of their object as its ``delete``/re-add does."""
    out: list[dict[str, object]] = []
    if system_prompt:
        out.append({"role": "system", "content": system_prompt})
    for msg in messages:
        role = msg.get("role")
        if role == "user":
            content = msg.get("content")
            if isinstance(content, str):
                out.append({"role": "user", "content": content})
                continue
            blocks = content or []
            parts: list[dict[str, object]] = []
            for item in blocks:
                if item.get("type") == "text":
                    parts.append({"type": "text", "text": item.get("text", "")})
                elif supports_images:
                    parts.append({"type": "image_url", "image_url": _image_url(item)})
            if parts:
                out.append({"role": "user", "content": parts})
            elif any(item.get("type") == "image" for item in blocks) and not supports_images:
                out.append({"role": "user", "content": "(image omitted: model does not support images)"})
        elif role == "assistant":
            assistant = _assistant_message(msg)
            if assistant is not None:
                out.append(assistant)
        elif role == "toolResult":
            content = msg.get("content") or []
            text = "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
            has_images = any(p.get("type") == "image" for p in content)
            parts = [
                {"type": "text", "text": _tool_result_text(text, has_images, supports_images, bool(msg.get("isError")))}
            ]
            if supports_images:
                parts += [
                    {"type": "image_url", "image_url": _image_url(p)} for p in content if p.get("type") == "image"
                ]
            out.append(
                {"role": "tool", "name": msg.get("toolName"), "content": parts, "tool_call_id": msg.get("toolCallId")}
            )
    return out


def _tool_choice(choice: object) -> object:
    if not choice or choice in ("auto", "none", "any", "required"):
        return choice or None
    if isinstance(choice, dict):
        return {"type": "function", "function": {"name": (choice.get("function") or {}).get("name")}}
    return choice


def uses_prompt_caching(options: StreamOptions) -> bool:
    return options.cache_retention != "none" and bool(options.session_id)


def build_params(model: Model, context: Context, options: StreamOptions) -> dict[str, object]:
    system_prompt, messages, tools = collapse_context(context)
    transformed = transform_messages(messages, model, tool_call_id_normalizer())
    params: dict[str, object] = {
        "model": model["id"],
        "stream": True,
        "messages": convert_messages(system_prompt, transformed, "image" in (model.get("input") or [])),
    }
    if tools:
        # Strict tools are opt-in (a model's compat): Mistral Large 4 can go silent for
        # minutes before a strict tool call (upstream #12148).
        supports_strict = bool((model.get("compat") or {}).get("supportsStrictMode"))
        declared = []
        for tool in tools:
            strict = resolve_strict_sampling(tool, supports_strict)
            parameters = make_strict_json_schema(tool.get("parameters")) if strict else tool.get("parameters")
            function = {"name": tool["name"], "description": tool.get("description"), "parameters": parameters}
            declared.append({"type": "function", "function": {**function, "strict": bool(strict)}})
        params["tools"] = declared
    if options.temperature is not None:
        params["temperature"] = options.temperature
    params["max_tokens"] = request_max_tokens(model, context, system_prompt, messages, options)
    choice = _tool_choice(options.extra.get("toolChoice"))
    if choice is not None:
        params["tool_choice"] = choice
    level = reasoning_level(model, options)
    effort_map = model.get("thinkingLevelMap") if model.get("reasoning") else None
    if effort_map:
        effort = (effort_map.get(level) or "high") if level else effort_map.get("off")
        if effort:
            params["reasoning_effort"] = effort
    elif model.get("reasoning") and level:
        params["prompt_mode"] = "reasoning"
    if uses_prompt_caching(options):
        params["prompt_cache_key"] = options.session_id
    return params


def build_headers(model: Model, api_key: str, options: StreamOptions) -> dict[str, str]:
    """Identity, then fixed headers, then the model's and the request's (a None value removes
    one; names compare case-insensitively as in a ``Headers`` object), then ``x-affinity``."""
    headers: dict[str, str] = {
        "user-agent": "pi-rpc",
        "accept": "text/event-stream",
        "authorization": f"Bearer {api_key}",
        "content-type": "application/json",
    }
    explicit_affinity = False
    for overrides in (model.get("headers") or {}, options.headers or {}):
        for name, value in overrides.items():
            lower = name.lower()
            explicit_affinity = explicit_affinity or lower == "x-affinity"
            headers.pop(lower, None)
            if value is not None:
                headers[lower] = value
    if uses_prompt_caching(options) and not explicit_affinity and options.session_id:
        headers["x-affinity"] = options.session_id
    return headers


def format_http_error(status: int, body: str) -> str:
    """``formatMistralError`` of a ``MistralHttpError``: the trimmed body, else the status text."""
    text = body.strip()
    if text:
        return f"Mistral API error ({status}): {truncate_error_text(text)}"
    import http  # (the reason phrases; only on an error without a body)

    try:
        reason = http.HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    return f"Mistral API error ({status}): {reason or f'Request failed with status {status}'}"


def map_stop_reason(reason: str) -> tuple[str, str | None]:
    if reason == "stop":
        return "stop", None
    if reason in ("length", "model_length"):
        return "length", None
    if reason == "tool_calls":
        return "toolUse", None
    if reason == "error":
        # Mistral reports transient server failures this way; "server error" makes it retryable.
        return "error", "Provider stopped with: error (server error)"
    return "error", f"Provider stopped with: {reason}"


def _cached_prompt_tokens(usage: dict[str, object], prompt: int) -> int:
    raw: object = None
    for outer, inner in (
        ("promptTokensDetails", "cachedTokens"),
        ("prompt_tokens_details", "cached_tokens"),
        ("promptTokenDetails", "cachedTokens"),
        ("prompt_token_details", "cached_tokens"),
    ):
        details = usage.get(outer)
        if isinstance(details, dict) and details.get(inner) is not None:
            raw = details[inner]
            break
    if raw is None:
        raw = usage.get("numCachedTokens")
    if raw is None:
        raw = usage.get("num_cached_tokens")
    cached = raw if isinstance(raw, (int, float)) and not isinstance(raw, bool) else 0
    return int(min(prompt, max(0, cached)))


def _usage(raw: dict[str, Any], model: Model) -> dict[str, Any]:
    prompt = raw.get("prompt_tokens") or 0
    cached = _cached_prompt_tokens(raw, prompt)
    inp = max(0, prompt - cached)
    out = raw.get("completion_tokens") or 0
    usage: dict[str, object] = {
        "input": inp,
        "output": out,
        "cacheRead": cached,
        "cacheWrite": 0,
        "totalTokens": raw.get("total_tokens") or inp + out + cached,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    calculate_cost(model, usage)
    return usage


def _parse_event(data: str) -> dict[str, object] | None:
    """One SSE event's data (None: nothing to read, or ``[DONE]`` handled by the caller)."""
    try:
        parsed = js_loads(data)
    except orjson.JSONDecodeError as exc:
        raise ProviderStreamError(f"Could not parse stream chunk as JSON: {data[:200]}") from exc
    if not isinstance(parsed, dict) or not isinstance(parsed.get("choices"), list):
        raise ProviderStreamError("Invalid Mistral streaming event")
    return parsed


class _MistralStream:
    """The state of one streamed reply (the open text or thinking block, the tool calls by
    index) and a handler per part of a chunk: its metadata, content items, tool calls."""

    def __init__(self, model: Model, output: dict[str, Any]) -> None:
        self.model = model
        self.output = output
        self.blocks: list[dict[str, object]] = output["content"]
        self.current: dict[str, object] | None = None
        self.tool_calls: dict[object, tuple[int, ToolCallArgumentsStream]] = {}

    def finish_current(self, events: list[AssistantMessageEvent]) -> None:
        """The open text or thinking block's end event (it is the last block)."""
        block = self.current
        if block is None or block["type"] == "toolCall":
            return
        key = "text" if block["type"] == "text" else "thinking"
        index = len(self.blocks) - 1
        end: BlockEndType = "text_end" if key == "text" else "thinking_end"
        events.append({"type": end, "contentIndex": index, "content": str(block[key]), "partial": self.output})

    def chunk(self, chunk: dict[str, Any]) -> list[AssistantMessageEvent]:
        output = self.output
        events: list[AssistantMessageEvent] = []
        if not output.get("responseId") and chunk.get("id"):
            output["responseId"] = chunk["id"]
        if chunk.get("usage"):
            output["usage"] = _usage(chunk["usage"], self.model)
        choices = chunk["choices"]
        choice = choices[0] if choices else None
        if not isinstance(choice, dict):
            return events
        reason = choice.get("finish_reason")
        if reason:
            output["rawStopReason"] = reason
            stop, message = map_stop_reason(reason)
            output["stopReason"] = stop
            if message:
                output["errorMessage"] = message
        delta = choice.get("delta") or {}
        content = delta.get("content")
        if content is not None:
            for item in [content] if isinstance(content, str) else content:
                self._content_item(item, events)
        for call in delta.get("tool_calls") or []:
            self._tool_call(call, events)
        return events

    def _content_item(self, item: Any, events: list[AssistantMessageEvent]) -> None:
        if isinstance(item, str):
            kind, piece = "text", item
        elif item.get("type") == "thinking":
            kind = "thinking"
            piece = "".join(p.get("text") or "" for p in item.get("thinking") or [])
        elif item.get("type") == "text":
            kind, piece = "text", item.get("text") or ""
        else:
            return
        # GLM on Mistral sends empty deltas around thinking and tool calls; a block opened for
        # one would split thinking, which Mistral rejects.
        if not piece:
            return
        blocks = self.blocks
        current = self.current
        if current is None or current["type"] != kind:
            self.finish_current(events)
            current = self.current = {"type": kind, kind: ""}
            blocks.append(current)
            start: BlockStartType = "text_start" if kind == "text" else "thinking_start"
            events.append({"type": start, "contentIndex": len(blocks) - 1, "partial": self.output})
        append_text(current, kind, piece)
        delta: BlockDeltaType = "text_delta" if kind == "text" else "thinking_delta"
        events.append({"type": delta, "contentIndex": len(blocks) - 1, "delta": piece, "partial": self.output})

    def _tool_call(self, call: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        if self.current is not None:
            self.finish_current(events)
            self.current = None
        blocks = self.blocks
        raw_id = call.get("id")
        index = call.get("index")
        call_id = (
            raw_id
            if raw_id and raw_id != "null"
            else derive_tool_call_id(f"toolcall:{index if index is not None else 0}", 0)
        )
        key = index if index is not None else call_id
        fn = call.get("function") or {}
        entry = self.tool_calls.get(key)
        if entry is None:
            blocks.append({"type": "toolCall", "id": call_id, "name": fn.get("name"), "arguments": {}})
            entry = (len(blocks) - 1, ToolCallArgumentsStream())
            self.tool_calls[key] = entry
            events.append({"type": "toolcall_start", "contentIndex": entry[0], "partial": self.output})
        args = fn.get("arguments")
        piece = args if isinstance(args, str) else js_json(args or {})
        blocks[entry[0]]["arguments"] = entry[1].append(piece)
        events.append({"type": "toolcall_delta", "contentIndex": entry[0], "delta": piece, "partial": self.output})

    def end_events(self) -> list[AssistantMessageEvent]:
        """After the stream: the open block's end, then each tool call's, its arguments final."""
        events: list[AssistantMessageEvent] = []
        self.finish_current(events)
        for ci, args_stream in self.tool_calls.values():
            block = self.blocks[ci]
            final = args_stream.finish()
            block["arguments"] = final["arguments"]
            if "argumentsError" in final:
                block["argumentsError"] = final["argumentsError"]
            events.append({"type": "toolcall_end", "contentIndex": ci, "toolCall": block, "partial": self.output})
        return events


def _check_end(output: dict[str, object], options: StreamOptions) -> None:
    if options.signal is not None and options.signal.aborted:
        raise RuntimeError("Request was aborted")
    if output["stopReason"] == "pending":
        raise ProviderStreamError("Mistral stream ended without a finish reason")
    if output["stopReason"] in ("aborted", "error"):
        raise ProviderStreamError(output.get("errorMessage") or "An unknown error occurred")


async def stream_mistral_conversations(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    output = new_output(model)
    try:
        if not options.api_key:
            raise RuntimeError(f"No API key for provider: {model['provider']}")
        body = build_params(model, context, options)
        headers = build_headers(model, options.api_key, options)
        url = model.get("baseUrl", "").rstrip("/") + "/v1/chat/completions"
        # Upstream sends this request once: no provider-level retry (the session's retry still runs).
        request_options = replace(options, max_retries=0)
        try:
            async with open_stream(request_options, url, headers, body, format_http_error) as response:
                yield {"type": "start", "partial": output}
                state = _MistralStream(model, output)
                on_stream_event = options.on_stream_event
                done = False
                async for batch in iter_sse_batches(response, options.signal):
                    for sse in batch:
                        data = sse.data.strip()
                        if not data:
                            continue
                        if data == "[DONE]":
                            done = True
                            break
                        chunk = _parse_event(data)
                        assert chunk is not None
                        if on_stream_event is not None:
                            await on_stream_event(chunk, model)
                        for event in state.chunk(chunk):
                            yield event
                    if done:
                        break
                for event in state.end_events():
                    yield event
        except ConnectionError as exc:
            # fetch's own texts: "fetch failed" before a response, "terminated" when the body drops.
            text = str(exc)
            raise ConnectionError("terminated" if text.startswith("terminated") else "fetch failed") from exc
        _check_end(output, options)
        yield {"type": "done", "reason": output["stopReason"], "message": output}
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        yield failure_event(output, exc, options)
