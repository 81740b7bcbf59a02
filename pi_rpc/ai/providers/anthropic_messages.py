"""``anthropic-messages``: Anthropic Messages API (and Anthropic-compatible endpoints) over httpx,
following pi-ai 1.6: system as text blocks with ``cache_control``, tools with
``eager_input_streaming``, budget or adaptive thinking, consecutive tool results merged into one
user message, tool-call ids normalised to ``[a-zA-Z0-9_-]{1,64}``.

Stream: blocks are looked up by Anthropic ``index`` (so server-side blocks such as
``server_tool_use`` and their deltas are skipped); ``redacted_thinking`` becomes a thinking block
"[Reasoning redacted]" with the data as signature; signatures arrive silently; ``message_delta``
usage is cumulative and only overwrites fields that are present. ``event: error`` fails with the
raw data string; a stream that closes after ``message_start`` without ``message_stop`` fails with
"Anthropic stream ended before message_stop". Not implemented: message threads, mid-conversation
effort markers.

An OAuth token (``sk-ant-oat`` in the key: a Claude Pro/Max login) is sent as upstream sends it
(``createClient``, ``getBetaFeatures``, ``buildParams``): ``Authorization: Bearer``, Claude
Code's identity (``user-agent: claude-cli/<version>``, ``x-app: cli``,
``anthropic-dangerous-direct-browser-access: true``), the OAuth betas first, the Claude Code
system block before pi's system prompt, tool names re-cased to Claude Code's (``Read``,
``Bash``, ...) in the tool list and replayed ``tool_use`` blocks and mapped back to the declared
tool's name in the answer, and the SDK's beta path ``/v1/messages?beta=true``. GitHub Copilot's
Claude models send the Copilot token as Bearer on that path, without Claude Code's identity.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import orjson

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.errors import ProviderStreamError, format_anthropic_sdk_error
from pi_rpc.ai.http import iter_sse, open_stream
from pi_rpc.ai.output import new_output
from pi_rpc.ai.partial_json import ToolCallArgumentsStream, _loads_with_repair
from pi_rpc.ai.providers.common import (
    append_text,
    failure_event,
    reasoning_level,
    request_max_tokens,
    require_api_key,
    update_headers,
)
from pi_rpc.ai.transcript import content_text
from pi_rpc.ai.transform import collapse_context, transform_messages
from pi_rpc.ai.types import AssistantMessageEvent, BlockStartType, Context, Model, StreamOptions

API = "anthropic-messages"
_EVENTS = {
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
}
_ID_SANITIZE = re.compile(r"[^a-zA-Z0-9_-]")
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


CLAUDE_CODE_VERSION = "2.1.322"
CLAUDE_CODE_SYSTEM = "You are Claude Code, Anthropic's official CLI for Claude."
# Claude Code 2.x tool names in their canonical casing (upstream's ``claudeCodeTools``).
_CLAUDE_CODE_TOOLS = {
    name.lower(): name
    for name in (
        "Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode",
        "KillShell", "NotebookEdit", "Skill", "Task", "TaskOutput", "TodoWrite", "WebFetch", "WebSearch",
    )
}  # fmt: skip


def to_claude_code_name(name: str) -> str:
    """``toClaudeCodeName``: Claude Code's casing of a tool name that matches one (any case)."""
    return _CLAUDE_CODE_TOOLS.get(name.lower(), name)


def from_claude_code_name(name: str, tools: Sequence[Mapping[str, object]]) -> str:
    """``fromClaudeCodeName``: the declared tool whose name matches ``name`` in any case."""
    lower = name.lower()
    for tool in tools:
        if str(tool.get("name", "")).lower() == lower:
            return str(tool["name"])
    return name


def normalize_tool_call_id(tool_id: str, _model: Model | None = None, _src: object = None) -> str:
    return _ID_SANITIZE.sub("_", tool_id)[:64]


def _cache_control(model: Model, options: StreamOptions) -> dict[str, object] | None:
    retention = options.cache_retention
    if retention == "none":
        return None
    long_ok = (model.get("compat") or {}).get("supportsLongCacheRetention", True)
    cc: dict[str, object] = {"type": "ephemeral"}
    if retention == "long" and long_ok:
        cc["ttl"] = "1h"
    return cc


def _image(block: dict[str, object]) -> dict[str, object]:
    return {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}}


def _content_blocks(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for b in content:
        if b.get("type") == "text":
            if b.get("text", "").strip():
                out.append({"type": "text", "text": b["text"]})
        elif b.get("type") == "image":
            out.append(_image(b))
    return out


def _tool_result(msg: dict[str, Any]) -> dict[str, Any]:
    content = msg.get("content") or []
    has_images = any(b.get("type") == "image" for b in content)
    if not has_images:
        value: object = content_text(content)
    else:
        value = _content_blocks(content)
        if not any(b["type"] == "text" for b in value):
            value.insert(0, {"type": "text", "text": "(see attached image)"})
    return {
        "type": "tool_result",
        "tool_use_id": msg["toolCallId"],
        "content": value,
        "is_error": bool(msg.get("isError")),
    }


def _assistant_block(b: dict[str, Any], oauth: bool) -> dict[str, Any] | None:
    """One block of an assistant message as Anthropic takes it back (None: not sent)."""
    t = b.get("type")
    if t == "text":
        return {"type": "text", "text": b["text"]} if b.get("text") else None
    if t == "thinking":
        if b.get("redacted"):
            return {"type": "redacted_thinking", "data": b.get("thinkingSignature", "")}
        if not b.get("thinkingSignature"):
            # (thinking without a signature goes back as text)
            return {"type": "text", "text": b["thinking"]} if b.get("thinking", "").strip() else None
        return {"type": "thinking", "thinking": b.get("thinking", ""), "signature": b["thinkingSignature"]}
    if t == "toolCall":
        return {
            "type": "tool_use",
            "id": b["id"],
            "name": to_claude_code_name(b["name"]) if oauth else b["name"],
            "input": b.get("arguments") or {},
        }
    return None


def convert_messages(
    messages: list[dict[str, Any]], model: Model, cache: dict[str, Any] | None, oauth: bool = False
) -> list[dict[str, object]]:
    out: list[dict[str, Any]] = []
    transformed = transform_messages(messages, model, normalize_tool_call_id)
    i = 0
    while i < len(transformed):
        msg = transformed[i]
        role = msg.get("role")
        if role == "user":
            content = msg.get("content")
            if isinstance(content, str):
                if content.strip():
                    out.append({"role": "user", "content": content})
            else:
                blocks = _content_blocks(content or [])
                if blocks:
                    out.append({"role": "user", "content": blocks})
        elif role == "assistant":
            blocks = [converted for b in msg.get("content") or [] if (converted := _assistant_block(b, oauth))]
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        elif role == "toolResult":
            results = []
            while i < len(transformed) and transformed[i].get("role") == "toolResult":
                results.append(_tool_result(transformed[i]))
                i += 1
            out.append({"role": "user", "content": results})
            continue
        i += 1
    if cache is not None:
        for m in reversed(out):
            if m["role"] == "user":
                if isinstance(m["content"], str):
                    m["content"] = [{"type": "text", "text": m["content"]}]
                if m["content"]:
                    m["content"][-1]["cache_control"] = cache
                break
    return out


def convert_tools(
    tools: list[dict[str, Any]], model: Model, cache: dict[str, Any] | None, oauth: bool = False
) -> list[dict[str, object]]:
    compat = model.get("compat") or {}
    eager = compat.get("supportsEagerToolInputStreaming", True)
    out = []
    for idx, tool in enumerate(tools):
        schema = tool.get("parameters") or {}
        input_schema: dict[str, object] = {
            "type": "object",
            "properties": schema.get("properties", {}),
            "required": schema.get("required", []),
        }
        for key in ("additionalProperties", "$defs", "definitions"):
            if key in schema:
                input_schema[key] = schema[key]
        name = to_claude_code_name(tool["name"]) if oauth else tool["name"]
        entry: dict[str, object] = {"name": name, "description": tool.get("description", "")}
        if eager:
            entry["eager_input_streaming"] = True
        entry["input_schema"] = input_schema
        if cache is not None and compat.get("supportsCacheControlOnTools", True) and idx == len(tools) - 1:
            entry["cache_control"] = cache
        out.append(entry)
    return out


def build_request(
    model: Model, context: Context, options: StreamOptions, oauth: bool
) -> tuple[dict[str, object], list[str]]:
    system_prompt, messages, tools = collapse_context(context)
    cache = _cache_control(model, options)
    compat = model.get("compat") or {}
    level = reasoning_level(model, options)
    max_tokens = request_max_tokens(model, context, system_prompt, messages, options)
    budget = 0
    if level and model.get("reasoning") and not compat.get("forceAdaptiveThinking"):
        budget = THINKING_BUDGETS.get("high" if level in ("xhigh", "max") else level, 1024)
        base = options.max_tokens
        max_tokens = model["maxTokens"] if base is None else min(base + budget, model["maxTokens"])
        if max_tokens <= budget:
            budget = min(budget, max(0, max_tokens - 1024))
        budget = min(budget, max(0, max_tokens - 1024))
    params: dict[str, object] = {
        "model": model["id"],
        "messages": convert_messages(messages, model, cache, oauth),
        "max_tokens": max_tokens,
        "stream": True,
    }
    system_blocks: list[dict[str, object]] = []
    if oauth:
        system_blocks.append({"type": "text", "text": CLAUDE_CODE_SYSTEM})
    if system_prompt:
        system_blocks.append({"type": "text", "text": system_prompt})
    if system_blocks:
        if cache is not None:
            for b in system_blocks:
                b["cache_control"] = cache
        params["system"] = system_blocks
    if options.temperature is not None and not level and compat.get("supportsTemperature", True):
        params["temperature"] = options.temperature
    if tools:
        params["tools"] = convert_tools(tools, model, cache, oauth)
    level_map = model.get("thinkingLevelMap") or {}
    if model.get("reasoning") and not level and level_map.get("off", "") is not None:
        params["thinking"] = {"type": "disabled"}
    elif model.get("reasoning") and level:
        if compat.get("forceAdaptiveThinking"):
            params["thinking"] = {"type": "adaptive", "display": "summarized"}
            mapped = level_map.get(level)
            effort = (
                mapped
                if isinstance(mapped, str)
                else {"minimal": "low", "low": "low", "medium": "medium"}.get(level, "high")
            )
            params["output_config"] = {"effort": effort}
        else:
            params["thinking"] = {"type": "enabled", "budget_tokens": budget or 1024, "display": "summarized"}
    tool_choice = options.extra.get("toolChoice")
    if tool_choice:
        params["tool_choice"] = {"type": tool_choice} if isinstance(tool_choice, str) else tool_choice
    betas: list[str] = []
    if oauth:
        betas += ["claude-code-20250219", "oauth-2025-04-20"]
    if tools and not compat.get("supportsEagerToolInputStreaming", True):
        betas.append("fine-grained-tool-streaming-2025-05-14")
    if model.get("reasoning") and level and not compat.get("forceAdaptiveThinking"):
        betas.append("interleaved-thinking-2025-05-14")
    return params, betas


def map_stop_reason(reason: str, details: object) -> tuple[str, str | None]:
    if reason in ("end_turn", "pause_turn", "stop_sequence"):
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason == "refusal":
        explanation = details.get("explanation") if isinstance(details, dict) else None
        return "error", explanation or "The model refused to complete the request"
    if reason == "sensitive":
        return "error", "Provider stopped with: sensitive"
    raise ProviderStreamError(f"Unhandled stop reason: {reason}")


def _set_total(usage: dict[str, Any]) -> None:
    usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]


def _request_headers(
    api_key: str, headers_in: dict[str, str], oauth: bool, copilot: bool, betas: Sequence[str]
) -> dict[str, str]:
    headers = {
        "accept": "application/json",
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        "user-agent": "pi-rpc",
    }
    if oauth:
        headers["anthropic-dangerous-direct-browser-access"] = "true"
        headers["user-agent"] = f"claude-cli/{CLAUDE_CODE_VERSION}"
        headers["x-app"] = "cli"
        headers["authorization"] = f"Bearer {api_key}"
    elif copilot:
        headers["anthropic-dangerous-direct-browser-access"] = "true"
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
    elif api_key:
        headers["x-api-key"] = api_key
    configured_beta = next((v for k, v in headers_in.items() if k.lower() == "anthropic-beta"), None)
    if configured_beta is None and betas:
        headers["anthropic-beta"] = ",".join(dict.fromkeys(betas))
    update_headers(headers, headers_in)
    return headers


class _MessagesStream:
    """The state of one streamed reply and a handler per Messages event type; each handler
    returns the event it makes, if any."""

    def __init__(
        self, model: Model, output: dict[str, Any], oauth: bool, declared_tools: Sequence[Mapping[str, Any]]
    ) -> None:
        self.model = model
        self.output = output
        self.content: list[dict[str, object]] = output["content"]
        self.oauth = oauth
        self.declared_tools = declared_tools
        self.open_blocks: dict[int, tuple[int, ToolCallArgumentsStream | None]] = {}
        self.saw_start = False
        self.saw_stop = False
        # Event type -> its handler (a type not here is ignored).
        self.handlers: dict[str, Callable[[dict[str, object]], AssistantMessageEvent | None]] = {
            "message_start": self.message_start,
            "content_block_start": self.content_block_start,
            "content_block_delta": self.content_block_delta,
            "content_block_stop": self.content_block_stop,
            "message_delta": self.message_delta,
            "message_stop": self.message_stop,
        }

    def message_start(self, event: dict[str, Any]) -> AssistantMessageEvent | None:
        self.saw_start = True
        output, model = self.output, self.model
        msg = event.get("message") or {}
        if msg.get("id"):
            output["responseId"] = msg["id"]
        if msg.get("model") and msg["model"] != model["id"]:
            output["responseModel"] = msg["model"]
        u = msg.get("usage") or {}
        usage = output["usage"]
        usage["input"] = u.get("input_tokens") or 0
        usage["output"] = u.get("output_tokens") or 0
        usage["cacheRead"] = u.get("cache_read_input_tokens") or 0
        usage["cacheWrite"] = u.get("cache_creation_input_tokens") or 0
        usage["cacheWrite1h"] = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
        _set_total(usage)
        calculate_cost(model, usage)
        return None

    def _open(
        self, index: Any, block: dict[str, Any], args: ToolCallArgumentsStream | None, kind: BlockStartType
    ) -> AssistantMessageEvent:
        content = self.content
        content.append(block)
        self.open_blocks[index] = (len(content) - 1, args)
        return {"type": kind, "contentIndex": len(content) - 1, "partial": self.output}

    def content_block_start(self, event: dict[str, Any]) -> AssistantMessageEvent | None:
        cb = event.get("content_block") or {}
        index = event.get("index")
        ctype = cb.get("type")
        if ctype == "text":
            return self._open(index, {"type": "text", "text": cb.get("text") or ""}, None, "text_start")
        if ctype == "thinking":
            block = {
                "type": "thinking",
                "thinking": cb.get("thinking") or "",
                "thinkingSignature": cb.get("signature") or "",
            }
            return self._open(index, block, None, "thinking_start")
        if ctype == "redacted_thinking":
            block = {
                "type": "thinking",
                "thinking": "[Reasoning redacted]",
                "thinkingSignature": cb.get("data", ""),
                "redacted": True,
            }
            return self._open(index, block, None, "thinking_start")
        if ctype == "tool_use":
            name = from_claude_code_name(cb.get("name", ""), self.declared_tools) if self.oauth else cb.get("name", "")
            block = {"type": "toolCall", "id": cb.get("id", ""), "name": name, "arguments": cb.get("input") or {}}
            return self._open(index, block, ToolCallArgumentsStream(), "toolcall_start")
        return None

    def content_block_delta(self, event: dict[str, Any]) -> AssistantMessageEvent | None:
        entry = self.open_blocks.get(event.get("index"))  # type: ignore[arg-type]
        if entry is None:
            return None
        ci, args = entry
        block = self.content[ci]
        delta = event.get("delta") or {}
        dtype = delta.get("type")
        if dtype == "text_delta" and block["type"] == "text":
            append_text(block, "text", delta.get("text", ""))
            return {"type": "text_delta", "contentIndex": ci, "delta": delta.get("text", ""), "partial": self.output}
        if dtype == "thinking_delta" and block["type"] == "thinking":
            append_text(block, "thinking", delta.get("thinking", ""))
            piece = delta.get("thinking", "")
            return {"type": "thinking_delta", "contentIndex": ci, "delta": piece, "partial": self.output}
        if dtype == "input_json_delta" and block["type"] == "toolCall" and args is not None:
            piece = delta.get("partial_json", "")
            block["arguments"] = args.append(piece)
            return {"type": "toolcall_delta", "contentIndex": ci, "delta": piece, "partial": self.output}
        if dtype == "signature_delta" and block["type"] == "thinking":
            block["thinkingSignature"] = (block.get("thinkingSignature") or "") + delta.get("signature", "")
        return None

    def content_block_stop(self, event: dict[str, Any]) -> AssistantMessageEvent | None:
        entry = self.open_blocks.pop(event.get("index"), None)  # type: ignore[arg-type]
        if entry is None:
            return None
        ci, args = entry
        block = self.content[ci]
        output = self.output
        if block["type"] == "text":
            return {"type": "text_end", "contentIndex": ci, "content": str(block["text"]), "partial": output}
        if block["type"] == "thinking":
            return {"type": "thinking_end", "contentIndex": ci, "content": str(block["thinking"]), "partial": output}
        if args is not None:
            final = args.finish()
            block["arguments"] = final["arguments"]
            if "argumentsError" in final:
                block["argumentsError"] = final["argumentsError"]
            return {"type": "toolcall_end", "contentIndex": ci, "toolCall": block, "partial": output}
        return None

    def message_delta(self, event: dict[str, Any]) -> AssistantMessageEvent | None:
        output = self.output
        delta = event.get("delta") or {}
        if delta.get("stop_reason"):
            output["rawStopReason"] = delta["stop_reason"]
            stop, err = map_stop_reason(delta["stop_reason"], delta.get("stop_details"))
            output["stopReason"] = stop
            if err:
                output["errorMessage"] = err
        u = event.get("usage") or {}
        usage = output["usage"]
        for src, dst in (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cacheRead"),
            ("cache_creation_input_tokens", "cacheWrite"),
        ):
            if u.get(src) is not None:
                usage[dst] = u[src]
        one_hour = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens")
        if one_hour is not None:
            usage["cacheWrite1h"] = one_hour
        thinking_tokens = (u.get("output_tokens_details") or {}).get("thinking_tokens")
        if thinking_tokens is not None:
            usage["reasoning"] = thinking_tokens
        _set_total(usage)
        calculate_cost(self.model, usage)
        return None

    def message_stop(self, event: dict[str, object]) -> AssistantMessageEvent | None:
        self.saw_stop = True
        return None


def _check_end(output: dict[str, object], options: StreamOptions) -> None:
    if options.signal is not None and options.signal.aborted:
        raise RuntimeError("Request was aborted")
    if output["stopReason"] == "pending":
        raise ProviderStreamError("Anthropic stream ended without a stop reason")
    if output["stopReason"] in ("aborted", "error"):
        raise ProviderStreamError(output.get("errorMessage") or "An unknown error occurred")


async def stream_anthropic_messages(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    output = new_output(model)
    try:
        headers_in = {**(model.get("headers") or {}), **(options.headers or {})}
        api_key = require_api_key(model, options, headers_in)
        # GitHub Copilot's Claude models: the Copilot token as Bearer, never Claude Code's
        # identity (upstream's ``createClient`` checks the provider first).
        copilot = model.get("provider") == "github-copilot"
        oauth = not copilot and "sk-ant-oat" in api_key
        params, betas = build_request(model, context, options, oauth)
        # The tools the answer's names are mapped back to (upstream's ``currentTools``).
        declared_tools: Sequence[Mapping[str, object]] = collapse_context(context)[2] if oauth else ()
        headers = _request_headers(api_key, headers_in, oauth, copilot, betas)
        # The SDK's ``client.beta.messages`` (upstream sends every request there; pi_rpc so far
        # only the OAuth ones, whose identity it mirrors).
        url = model.get("baseUrl", "").rstrip("/") + ("/v1/messages?beta=true" if oauth or copilot else "/v1/messages")
        async with open_stream(options, url, headers, params, format_anthropic_sdk_error) as response:
            yield {"type": "start", "partial": output}
            state = _MessagesStream(model, output, oauth, declared_tools)
            async for sse in iter_sse(response, options.signal):
                if sse.event == "error":
                    raise ProviderStreamError(sse.data)
                if sse.event not in _EVENTS:
                    continue
                try:
                    event = _loads_with_repair(sse.data)
                except (ValueError, orjson.JSONDecodeError) as exc:
                    raise ProviderStreamError(
                        f"Could not parse Anthropic SSE event {sse.event}: {exc}; data={sse.data}"
                    ) from exc
                if options.on_stream_event is not None:
                    await options.on_stream_event(event, model)
                etype = event.get("type")
                handle = state.handlers.get(etype) if isinstance(etype, str) else None
                if handle is not None:
                    made = handle(event)
                    if made is not None:
                        yield made
            if state.saw_start and not state.saw_stop:
                raise ProviderStreamError("Anthropic stream ended before message_stop")
        _check_end(output, options)
        yield {"type": "done", "reason": output["stopReason"], "message": output}
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        yield failure_event(output, exc, options)
