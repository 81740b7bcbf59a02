"""``openai-completions``: OpenAI Chat Completions and every compatible server (Ollama, vLLM,
llama.cpp, OpenRouter, Groq, DeepSeek, z.ai, ...), over httpx, following pi-ai 1.6.

Request body field for field as upstream sends it (key order model, messages, stream,
stream_options, store, max_completion_tokens|max_tokens, temperature, tools, tool_choice,
reasoning fields); ``compat`` is auto-detected from provider id and baseUrl then overridden by
``model["compat"]``. Stream handling is 1.6's: at most one text and one thinking block per
message, reasoning read before content, tool calls keyed by ``index`` (``id`` fallback), and all
``*_end`` events emitted after the stream finishes, in content order. A chunk that repeats the
last text-only chunk around new text is read by difference (``text_template``), not parsed.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import orjson
from orjson import loads as orjson_loads

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.errors import ProviderStreamError, format_openai_sdk_error, format_openai_stream_error, js_json
from pi_rpc.ai.http import iter_sse_batches, open_stream
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.jsjson import to_utf8
from pi_rpc.ai.output import new_output
from pi_rpc.ai.partial_json import ToolCallArgumentsStream
from pi_rpc.ai.providers.common import (
    append_text,
    failure_event,
    merged_headers,
    reasoning_level,
    request_max_tokens,
    require_api_key,
)
from pi_rpc.ai.providers.text_template import TextTemplate
from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling
from pi_rpc.ai.transcript import content_text
from pi_rpc.ai.transform import collapse_context, transform_messages
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

API = "openai-completions"
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
_ID_SANITIZE = re.compile(r"[^a-zA-Z0-9_-]")


def detect_compat(model: Model) -> dict[str, object]:
    provider = model.get("provider", "")
    base = model.get("baseUrl", "")
    is_zai = provider in ("zai", "zai-coding-cn") or "api.z.ai" in base or "open.bigmodel.cn" in base
    is_together = provider == "together" or "api.together.ai" in base or "api.together.xyz" in base
    is_moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in base
    is_openrouter = provider == "openrouter" or "openrouter.ai" in base
    is_cf_workers = provider == "cloudflare-workers-ai" or "api.cloudflare.com" in base
    is_cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in base
    is_nvidia = provider == "nvidia" or "integrate.api.nvidia.com" in base
    is_ant_ling = provider == "ant-ling" or "api.ant-ling.com" in base
    is_cerebras = provider == "cerebras" or "cerebras.ai" in base
    is_deepseek = provider == "deepseek" or "deepseek.com" in base.lower()
    is_grok = provider == "xai" or "api.x.ai" in base
    non_standard = (
        is_nvidia
        or is_cerebras
        or is_grok
        or is_together
        or "chutes.ai" in base
        or is_deepseek
        or is_zai
        or is_moonshot
        or provider == "opencode"
        or "opencode.ai" in base
        or is_cf_workers
        or is_cf_gateway
        or is_ant_ling
    )
    use_max_tokens = (
        "chutes.ai" in base
        or is_deepseek
        or is_moonshot
        or is_cf_gateway
        or is_together
        or is_nvidia
        or is_ant_ling
        or is_zai
    )
    is_openai = provider == "openai" or "api.openai.com" in base
    if is_deepseek:
        thinking_format = "deepseek"
    elif is_zai:
        thinking_format = "zai"
    elif is_together:
        thinking_format = "together"
    elif is_openrouter:
        thinking_format = "openrouter"
    else:
        thinking_format = "openai"
    return {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": is_openai,
        "supportsReasoningEffort": not (
            is_grok or is_zai or is_moonshot or is_together or is_cf_gateway or is_nvidia or is_ant_ling
        ),
        "supportsUsageInStreaming": True,
        "supportsFinishReason": True,
        "maxTokensField": "max_tokens" if use_max_tokens else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresNonNullAssistantContent": False,
        "requiresToolsWithToolHistory": False,
        "requiresThinkingAsText": False,
        "requiresReasoningContentOnAssistantMessages": is_deepseek,
        "thinkingFormat": thinking_format,
        "supportsStrictMode": False,
        "openRouterRouting": None,
        "sendSessionAffinityHeaders": is_openrouter,
    }


def get_compat(model: Model) -> dict[str, object]:
    compat = detect_compat(model)
    for key, value in (model.get("compat") or {}).items():
        if value is not None:
            compat[key] = value
    return compat


def normalize_tool_call_id(tool_id: str, model: Model, _source: dict[str, object] | None = None) -> str:
    if "|" in tool_id:
        call_id, _, item_id = tool_id.partition("|")
        call_id = _ID_SANITIZE.sub("_", call_id)
        item_id = _ID_SANITIZE.sub("_", item_id)
        combined = f"{call_id}_{item_id}" if item_id else call_id
        if len(combined) <= 40:
            return combined
        import hashlib  # (only for long ids: OpenSSL's hashes load in ~2 ms)

        digest = hashlib.sha256(to_utf8(tool_id)).hexdigest()[:8]
        return f"{call_id[: max(1, 40 - len(digest) - 1)]}_{digest}"
    if model.get("provider") == "openai" and len(tool_id) > 40:
        return tool_id[:40]
    return tool_id


_PROCESSED_TOOL_RESULTS = {"role": "assistant", "content": "I have processed the tool results."}


def convert_messages(
    model: Model, system_prompt: str, messages: list[dict[str, object]], compat: dict[str, object]
) -> list[dict[str, object]]:
    params: list[dict[str, object]] = []
    role = "developer" if model.get("reasoning") and compat.get("supportsDeveloperRole") else "system"
    if system_prompt:
        params.append({"role": role, "content": system_prompt})
    transformed = transform_messages(messages, model, normalize_tool_call_id)
    last_role: str | None = None
    i = 0
    while i < len(transformed):
        msg = transformed[i]
        mrole = msg.get("role")
        if compat.get("requiresAssistantAfterToolResult") and last_role == "toolResult" and mrole == "user":
            params.append(dict(_PROCESSED_TOOL_RESULTS))
        if mrole == "toolResult":
            i, last_role = _append_tool_results(params, transformed, i, model, compat)
            continue
        if mrole in ("user", "assistant"):
            converted = _user_message(msg) if mrole == "user" else _assistant_message(msg, model, compat)
            if converted is None:  # nothing to send: skipped (the previous role stays the last)
                i += 1
                continue
            params.append(converted)
        last_role = mrole
        i += 1
    return params


def _image_url(block: dict[str, object]) -> dict[str, object]:
    return {"type": "image_url", "image_url": {"url": f"data:{block['mimeType']};base64,{block['data']}"}}


def _user_message(msg: dict[str, Any]) -> dict[str, Any] | None:
    content = msg.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": content}
    parts = []
    for item in content or []:
        if item.get("type") == "text":
            if item.get("text"):
                parts.append({"type": "text", "text": item["text"]})
        elif item.get("type") == "image":
            parts.append(_image_url(item))
    return {"role": "user", "content": parts} if parts else None


def _reasoning_details(blocks: list[dict[str, Any]]) -> list[Any] | None:
    """The first thinking signature that is an OpenRouter ``reasoning_details`` list."""
    for b in blocks:
        if b.get("type") == "thinking" and b.get("thinkingSignature", "").startswith("["):
            try:
                parsed = js_loads(b["thinkingSignature"])
            except orjson.JSONDecodeError:
                parsed = None
            if (
                isinstance(parsed, list)
                and parsed
                and all(isinstance(d, dict) and str(d.get("type", "")).startswith("reasoning.") for d in parsed)
            ):
                return parsed
    return None


def _assistant_message(msg: dict[str, Any], model: Model, compat: dict[str, Any]) -> dict[str, Any] | None:
    non_null = compat.get("requiresAssistantAfterToolResult") or compat.get("requiresNonNullAssistantContent")
    out: dict[str, object] = {"role": "assistant", "content": "" if non_null else None}
    blocks = msg.get("content") or []
    text = "".join(b["text"] for b in blocks if b.get("type") == "text" and b.get("text", "").strip())
    thinking = [b for b in blocks if b.get("type") == "thinking" and b.get("thinking", "").strip()]
    calls = [b for b in blocks if b.get("type") == "toolCall"]
    details = _reasoning_details(blocks)
    if thinking and compat.get("requiresThinkingAsText"):
        parts = [{"type": "text", "text": "\n\n".join(b["thinking"] for b in thinking)}]
        parts += [
            {"type": "text", "text": b["text"]} for b in blocks if b.get("type") == "text" and b.get("text", "").strip()
        ]
        out["content"] = parts
    else:
        if text:
            out["content"] = text
        if thinking and details is None:
            sig = thinking[0].get("thinkingSignature")
            if sig in REASONING_FIELDS:
                out[sig] = "\n".join(b["thinking"] for b in thinking)
    if calls:
        out["tool_calls"] = [
            {
                "id": tc["id"],
                "type": "function",
                "function": {"name": tc["name"], "arguments": js_json(tc.get("arguments", {}))},
            }
            for tc in calls
        ]
    if details is not None:
        out["reasoning_details"] = details
    if (
        compat.get("requiresReasoningContentOnAssistantMessages")
        and model.get("reasoning")
        and "reasoning_content" not in out
    ):
        out["reasoning_content"] = ""
    if not out["content"] and "tool_calls" not in out:
        return None
    return out


def _append_tool_results(
    params: list[dict[str, Any]], transformed: list[dict[str, Any]], i: int, model: Model, compat: dict[str, Any]
) -> tuple[int, str]:
    """The run of tool results from ``i`` as ``tool`` messages, then their images in one user
    message (where the model takes images); the index after the run and the role sent last."""
    images: list[dict[str, object]] = []
    j = i
    while j < len(transformed) and transformed[j].get("role") == "toolResult":
        tm = transformed[j]
        content = tm.get("content") or []
        text = content_text(content)
        has_images = any(b.get("type") == "image" for b in content)
        body_text = text if text.strip() else ("(see attached image)" if has_images else "(no tool output)")
        tr: dict[str, object] = {"role": "tool", "content": body_text, "tool_call_id": tm.get("toolCallId")}
        if compat.get("requiresToolResultName") and tm.get("toolName"):
            tr["name"] = tm["toolName"]
        params.append(tr)
        if has_images and "image" in (model.get("input") or []):
            images.extend(_image_url(b) for b in content if b.get("type") == "image")
        j += 1
    if not images:
        return j, "toolResult"
    if compat.get("requiresAssistantAfterToolResult"):
        params.append(dict(_PROCESSED_TOOL_RESULTS))
    params.append(
        {"role": "user", "content": [{"type": "text", "text": "Attached image(s) from tool result:"}, *images]}
    )
    return j, "user"


def convert_tools(tools: list[dict[str, Any]], compat: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    supports_strict = compat.get("supportsStrictMode") is not False
    for tool in tools:
        # A tool preferring strict sampling (the built-in ones) goes out strict where the model
        # supports it (compat ``supportsStrictMode``, off unless a model's compat says so).
        strict = resolve_strict_sampling(tool, supports_strict)
        fn: dict[str, object] = {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": make_strict_json_schema(tool.get("parameters")) if strict else tool.get("parameters", {}),
        }
        if supports_strict:
            fn["strict"] = bool(strict)
        out.append({"type": "function", "function": fn})
    return out


def build_params(
    model: Model, context: Context, options: StreamOptions, compat: dict[str, object]
) -> dict[str, object]:
    system_prompt, messages, tools = collapse_context(context)
    params: dict[str, object] = {
        "model": model["id"],
        "messages": convert_messages(model, system_prompt, messages, compat),
        "stream": True,
    }
    if options.cache_retention != "none" and options.session_id and "api.openai.com" in model.get("baseUrl", ""):
        params["prompt_cache_key"] = options.session_id[:64]
    if compat.get("supportsUsageInStreaming") is not False:
        params["stream_options"] = {"include_usage": True}
    if compat.get("supportsStore"):
        params["store"] = False
    max_tokens = request_max_tokens(model, context, system_prompt, messages, options)
    if max_tokens:
        params["max_tokens" if compat.get("maxTokensField") == "max_tokens" else "max_completion_tokens"] = max_tokens
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if tools:
        params["tools"] = convert_tools(tools, compat)
    elif compat.get("requiresToolsWithToolHistory") and any(
        m.get("role") == "toolResult"
        or (m.get("role") == "assistant" and any(b.get("type") == "toolCall" for b in m.get("content") or []))
        for m in messages
    ):
        params["tools"] = []
    if options.extra.get("toolChoice") is not None:
        params["tool_choice"] = options.extra["toolChoice"]
    if model.get("reasoning"):
        _add_reasoning_params(params, model, options, compat)
    routing = (model.get("compat") or {}).get("openRouterRouting")
    if routing:
        params["provider"] = routing
    return params


def _add_reasoning_params(
    params: dict[str, object], model: Model, options: StreamOptions, compat: dict[str, object]
) -> None:
    """The reasoning fields of a reasoning model's request, in the dialect ``thinkingFormat``
    names (appended in place: the request's key order is upstream's)."""
    level = reasoning_level(model, options)
    level_map = model.get("thinkingLevelMap") or {}
    fmt = compat.get("thinkingFormat")
    if fmt == "zai":
        params["thinking"] = {"type": "enabled", "clear_thinking": False} if level else {"type": "disabled"}
        if level and compat.get("supportsReasoningEffort"):
            effort = level_map.get(level, level)
            if isinstance(effort, str):
                params["reasoning_effort"] = effort
    elif fmt == "qwen":
        params["enable_thinking"] = bool(level)
    elif fmt == "qwen-chat-template":
        params["chat_template_kwargs"] = {"enable_thinking": bool(level), "preserve_thinking": True}
    elif fmt == "deepseek":
        if level:
            params["thinking"] = {"type": "enabled"}
        elif level_map.get("off", "") is not None:
            params["thinking"] = {"type": "disabled"}
        if level and compat.get("supportsReasoningEffort"):
            params["reasoning_effort"] = level_map.get(level) or level
    elif fmt == "openrouter":
        if level:
            params["reasoning"] = {"effort": level_map.get(level) or level}
        elif level_map.get("off", "") is not None:
            params["reasoning"] = {"effort": level_map.get("off") or "none"}
    elif fmt == "together":
        params["reasoning"] = {"enabled": bool(level)}
        if level and compat.get("supportsReasoningEffort"):
            params["reasoning_effort"] = level_map.get(level) or level
    elif level and compat.get("supportsReasoningEffort"):
        params["reasoning_effort"] = level_map.get(level) or level
    elif not level and compat.get("supportsReasoningEffort") and isinstance(level_map.get("off"), str):
        params["reasoning_effort"] = level_map["off"]


def parse_chunk_usage(raw: dict[str, Any], model: Model) -> dict[str, Any]:
    prompt = raw.get("prompt_tokens") or 0
    details = raw.get("prompt_tokens_details") or {}
    cache_read = details.get("cached_tokens")
    if cache_read is None:
        cache_read = raw.get("prompt_cache_hit_tokens")
    if cache_read is None:
        cache_read = raw.get("cached_tokens")
    cache_read = cache_read or 0
    cache_write = details.get("cache_write_tokens") or 0
    inp = max(0, prompt - cache_read - cache_write)
    out = raw.get("completion_tokens") or 0
    usage: dict[str, Any] = {
        "input": inp,
        "output": out,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "reasoning": (raw.get("completion_tokens_details") or {}).get("reasoning_tokens")
        or raw.get("reasoning_tokens")
        or 0,
        "totalTokens": inp + out + cache_read + cache_write,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    calculate_cost(model, usage)
    if (model.get("provider") == "openrouter" or "openrouter.ai" in model.get("baseUrl", "")) and isinstance(
        raw.get("cost"), (int, float)
    ):
        usage["cost"]["total"] = raw["cost"]
        usage["cost"]["totalFromProvider"] = True
    return usage


def map_stop_reason(reason: str) -> tuple[str, str | None]:
    if reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("function_call", "tool_calls"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {reason}"


def _request_headers(model: Model, options: StreamOptions, compat: dict[str, object]) -> dict[str, str]:
    api_key = require_api_key(model, options, model.get("headers"))
    headers = {"accept": "application/json", "content-type": "application/json", "user-agent": "pi-rpc"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    if options.session_id and compat.get("sendSessionAffinityHeaders") and options.cache_retention != "none":
        headers["x-session-id"] = options.session_id
    return merged_headers(model, headers, options)


def _parse_chunk(data_text: str, event: str | None) -> object:
    """One SSE event's JSON (as JS parses it); a ``ProviderStreamError`` when it is not JSON."""
    try:
        try:
            return orjson_loads(data_text)  # (js_loads without its frame: every delta)
        except orjson.JSONDecodeError:
            return js_loads(data_text)  # what JS accepts and orjson refuses
    except orjson.JSONDecodeError as exc:
        if event == "error":
            raise ProviderStreamError(data_text) from exc
        raise ProviderStreamError(f"Could not parse stream chunk as JSON: {data_text[:200]}") from exc


class _CompletionsStream:
    """The state of one streamed reply and a handler per part of a chunk: its metadata (id,
    model, usage, finish reason), reasoning, text and tool calls, then the ``*_end`` events."""

    __slots__ = (
        "arg_streams",
        "blocks",
        "by_id",
        "by_index",
        "current",
        "has_finish",
        "model",
        "model_id",
        "need_response_id",
        "output",
        "reasoning_details",
        "text_block",
        "text_index",
        "thinking_block",
    )

    def __init__(self, model: Model, output: dict[str, Any]) -> None:
        self.model = model
        self.model_id = model["id"]
        self.output = output
        self.blocks: list[dict[str, object]] = output["content"]
        self.text_block: dict[str, Any] | None = None
        self.text_index = -1
        self.thinking_block: dict[str, object] | None = None
        self.reasoning_details: list[dict[str, object]] | None = None
        self.by_index: dict[int, dict[str, object]] = {}
        self.by_id: dict[str, dict[str, object]] = {}
        self.arg_streams: dict[int, ToolCallArgumentsStream] = {}
        self.current: dict[str, object] = {}  # the tool call the last tool-call delta continued
        self.has_finish = False
        self.need_response_id = True

    def read_chunk(self, chunk: Any, event: str | None) -> dict[str, Any] | None:
        """A chunk's metadata into the message; its first choice, or None when it has none
        (or is no object). Raises ``ProviderStreamError`` for an error chunk."""
        if not isinstance(chunk, dict):
            if event == "error":
                raise ProviderStreamError(format_openai_stream_error(chunk))
            return None
        if event == "error" or chunk.get("error"):
            raise ProviderStreamError(format_openai_stream_error(chunk))
        output = self.output
        if self.need_response_id and chunk.get("id"):
            output["responseId"] = chunk["id"]
            self.need_response_id = False
        cm = chunk.get("model")
        if cm != self.model_id and isinstance(cm, str) and cm and not output.get("responseModel"):
            output["responseModel"] = cm
        chunk_usage = chunk.get("usage")
        if chunk_usage:
            output["usage"] = parse_chunk_usage(chunk_usage, self.model)
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not choice:
            return None
        if not chunk_usage and choice.get("usage"):
            output["usage"] = parse_chunk_usage(choice["usage"], self.model)
        finish = choice.get("finish_reason")
        if finish:
            output["rawStopReason"] = finish
            stop, err = map_stop_reason(finish)
            output["stopReason"] = stop
            if err:
                output["errorMessage"] = err
            self.has_finish = True
        return choice  # type: ignore[no-any-return]

    def _start_thinking(self, signature: str) -> AssistantMessageEvent:
        self.thinking_block = {"type": "thinking", "thinking": "", "thinkingSignature": signature}
        self.blocks.append(self.thinking_block)
        return {"type": "thinking_start", "contentIndex": len(self.blocks) - 1, "partial": self.output}

    def reasoning(self, delta: dict[str, object]) -> list[AssistantMessageEvent]:
        """The first non-empty reasoning field as a thinking delta; ``reasoning_details`` kept
        for the thinking block's signature."""
        events: list[AssistantMessageEvent] = []
        for field in REASONING_FIELDS:
            value = delta.get(field)
            if isinstance(value, str) and value:
                if self.thinking_block is None:
                    sig = (
                        "reasoning_content"
                        if self.model.get("provider") == "opencode-go" and field == "reasoning"
                        else field
                    )
                    events.append(self._start_thinking(sig))
                thinking_block = self.thinking_block
                assert thinking_block is not None
                append_text(thinking_block, "thinking", value)
                index = self.blocks.index(thinking_block)
                events.append({"type": "thinking_delta", "contentIndex": index, "delta": value, "partial": self.output})
                break
        rd = delta.get("reasoning_details")
        if isinstance(rd, list):
            for detail in rd:
                if not isinstance(detail, dict) or not str(detail.get("type", "")).startswith("reasoning."):
                    continue
                if self.thinking_block is None:
                    events.append(self._start_thinking(""))
                if self.reasoning_details is None:
                    self.reasoning_details = []
                _append_reasoning_detail(self.reasoning_details, detail)
        return events

    def start_text(self) -> AssistantMessageEvent:
        self.text_block = {"type": "text", "text": ""}
        self.blocks.append(self.text_block)
        self.text_index = len(self.blocks) - 1  # blocks are only ever appended
        return {"type": "text_start", "contentIndex": self.text_index, "partial": self.output}

    def _tool_call_block(self, tc: dict[str, Any], idx: int | None, name: str) -> AssistantMessageEvent | None:
        """The block a tool-call delta continues, found by ``index`` then ``id``, in
        ``self.current``; its ``toolcall_start`` event when it is new."""
        by_index, by_id = self.by_index, self.by_id
        block = by_index.get(idx) if idx is not None else None
        if block is None and tc.get("id"):
            block = by_id.get(tc["id"])
        started: AssistantMessageEvent | None = None
        if block is None:
            block = {"type": "toolCall", "id": tc.get("id") or "", "name": name, "arguments": {}}
            self.blocks.append(block)
            self.arg_streams[id(block)] = ToolCallArgumentsStream()
            if idx is not None:
                by_index[idx] = block
            if tc.get("id"):
                by_id[tc["id"]] = block
            started = {"type": "toolcall_start", "contentIndex": len(self.blocks) - 1, "partial": self.output}
        elif idx is not None and idx not in by_index:
            by_index[idx] = block
        if not block["id"] and tc.get("id"):
            block["id"] = tc["id"]
            by_id[tc["id"]] = block
        if not block["name"] and name:
            block["name"] = name
        self.current = block
        return started

    def tool_calls(self, delta: dict[str, Any]) -> list[AssistantMessageEvent]:
        events: list[AssistantMessageEvent] = []
        for tc in delta.get("tool_calls") or []:
            idx = tc.get("index") if isinstance(tc.get("index"), int) else None
            fn = tc.get("function") or {}
            started = self._tool_call_block(tc, idx, fn.get("name") or "")
            if started is not None:
                events.append(started)
            block = self.current
            piece = fn.get("arguments") or ""
            if piece:
                block["arguments"] = self.arg_streams[id(block)].append(piece)
            index = self.blocks.index(block)
            events.append({"type": "toolcall_delta", "contentIndex": index, "delta": piece, "partial": self.output})
        return events

    def end_events(self) -> list[AssistantMessageEvent]:
        """Every block's ``*_end`` event, in content order, after the stream finished."""
        events: list[AssistantMessageEvent] = []
        output = self.output
        for ci, block in enumerate(self.blocks):
            btype = block["type"]
            if btype == "text":
                events.append(
                    {"type": "text_end", "contentIndex": ci, "content": str(block["text"]), "partial": output}
                )
            elif btype == "thinking":
                if self.reasoning_details is not None:
                    block["thinkingSignature"] = js_json(self.reasoning_details)
                events.append(
                    {"type": "thinking_end", "contentIndex": ci, "content": str(block["thinking"]), "partial": output}
                )
            else:
                final = self.arg_streams.pop(id(block)).finish()
                block["arguments"] = final["arguments"]
                if "argumentsError" in final:
                    block["argumentsError"] = final["argumentsError"]
                events.append({"type": "toolcall_end", "contentIndex": ci, "toolCall": block, "partial": output})
        return events

    def check_end(self, compat: dict[str, object], options: StreamOptions) -> None:
        """Raise when the stream did not end as a finished reply (aborted, an error stop
        reason, no ``finish_reason`` where the server sends one)."""
        output = self.output
        if options.signal is not None and options.signal.aborted:
            raise RuntimeError("Request was aborted")
        if not self.has_finish and not compat.get("supportsFinishReason", True):
            output["stopReason"] = "toolUse" if any(b["type"] == "toolCall" for b in self.blocks) else "stop"
        if output["stopReason"] == "error":
            raise ProviderStreamError(output.get("errorMessage") or "Provider returned an error stop reason")
        if (compat.get("supportsFinishReason", True) and not self.has_finish) or output["stopReason"] == "pending":
            raise ProviderStreamError("Stream ended without finish_reason")


def _plain_text_chunk(
    chunk: dict[str, object], choice: dict[str, object], delta: dict[str, object], only_content: bool
) -> bool:
    """Nothing but the text of this chunk did anything (no usage, no finish reason, no other
    delta field that matters): the next chunks may be this one with other text."""
    return (
        (only_content or _inert_besides_content(delta))
        and not chunk.get("usage")
        and not choice.get("finish_reason")
        and not choice.get("usage")
    )


async def stream_openai_completions(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    output = new_output(model)
    try:
        compat = get_compat(model)
        headers = _request_headers(model, options, compat)
        body = build_params(model, context, options, compat)
        url = model.get("baseUrl", "").rstrip("/") + "/chat/completions"
        async with open_stream(options, url, headers, body, format_openai_sdk_error) as response:
            yield {"type": "start", "partial": output}
            state = _CompletionsStream(model, output)
            stream_done = False
            # Hoisted out of the per-chunk loop below (it runs once per streamed delta).
            on_stream_event = options.on_stream_event
            # A chunk that repeats the last text-only chunk around new plain text is read by
            # difference (``text_template``); never when a hook wants every parsed chunk.
            template = TextTemplate()
            # The events of one network read come as a batch (one async step per read, not
            # per delta); [DONE] ends both loops.
            async for batch in iter_sse_batches(response, options.signal, end_on_abort=True):
                for sse in batch:
                    data_text = sse.data
                    if template.prefix is not None and sse.event is None:
                        content = template.content_of(data_text)
                        if content is not None:  # the template's chunk with this text
                            if content:  # (the text block exists: the template's chunk made it)
                                text_block = state.text_block
                                text = text_block["text"]  # type: ignore[index]
                                text_block["text"] = None  # type: ignore[index]
                                text += content
                                text_block["text"] = text  # type: ignore[index]
                                yield {
                                    "type": "text_delta",
                                    "contentIndex": state.text_index,
                                    "delta": content,
                                    "partial": output,
                                }
                            continue
                    if data_text.startswith("[DONE]"):
                        stream_done = True
                        break
                    chunk = _parse_chunk(data_text, sse.event)
                    if on_stream_event is not None:
                        await on_stream_event(chunk, model)
                    choice = state.read_chunk(chunk, sse.event)
                    delta = choice.get("delta") if choice is not None else None
                    if not delta:
                        continue
                    content = delta.get("content")
                    # Most deltas carry only text: no reasoning or tool-call fields to look for.
                    only_content = content is not None and len(delta) == 1
                    if not only_content:
                        for event in state.reasoning(delta):
                            yield event
                    if isinstance(content, str) and content:
                        if state.text_block is None:
                            yield state.start_text()
                        # ``append_text`` inline (every streamed delta): drop the dict's reference
                        # so the concatenation resizes the string in place.
                        text_block = state.text_block
                        text = text_block["text"]  # type: ignore[index]
                        text_block["text"] = None  # type: ignore[index]
                        text += content
                        text_block["text"] = text  # type: ignore[index]
                        if (
                            sse.event is None
                            and on_stream_event is None
                            and _plain_text_chunk(chunk, choice, delta, only_content)  # type: ignore[arg-type]
                        ):
                            template.learn(data_text, content)
                        yield {
                            "type": "text_delta",
                            "contentIndex": state.text_index,
                            "delta": content,
                            "partial": output,
                        }
                    if not only_content:
                        for event in state.tool_calls(delta):
                            yield event
                if stream_done:
                    break
            for event in state.end_events():
                yield event
        state.check_end(compat, options)
        yield {"type": "done", "reason": output["stopReason"], "message": output}
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        yield failure_event(output, exc, options)


def _inert_besides_content(delta: dict[str, object]) -> bool:
    """True when nothing in ``delta`` but its ``content`` makes the stream loop do anything (a
    ``role``, a null reasoning field, empty reasoning details or tool calls, fields it does not
    read): a chunk that repeats this one around other text does what that text alone does."""
    for field in REASONING_FIELDS:
        value = delta.get(field)
        if isinstance(value, str) and value:
            return False
    details = delta.get("reasoning_details")
    if isinstance(details, list) and details:
        return False
    return not delta.get("tool_calls")


def _append_reasoning_detail(details: list[dict[str, Any]], detail: dict[str, Any]) -> None:
    last = details[-1] if details else None
    if detail.get("type") == "reasoning.text" and last and last.get("type") == "reasoning.text":
        last["text"] = last.get("text", "") + (detail.get("text") or "")
        if not last.get("signature") and detail.get("signature"):
            last["signature"] = detail["signature"]
        for key in ("id", "format", "index"):
            if last.get(key) is None and detail.get(key) is not None:
                last[key] = detail[key]
        return
    if detail.get("type") == "reasoning.summary" and last and last.get("type") == "reasoning.summary":
        last["summary"] = last.get("summary", "") + (detail.get("summary") or "")
        return
    details.append(dict(detail))
