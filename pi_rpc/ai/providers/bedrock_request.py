"""The request body of ``bedrock-converse-stream`` (Amazon Bedrock's ConverseStream), as pi-ai
1.6 builds it (``api/bedrock-converse-stream.js``): ``messages``, ``system``, ``inferenceConfig``,
``toolConfig``, ``additionalModelRequestFields``, in that order.

- The system prompt is one text block; Claude models with prompt caching (Claude 3.5 Haiku,
  3.7 Sonnet, 4.x, 5; any model with ``AWS_BEDROCK_FORCE_CACHE=1``) get a ``cachePoint`` after it
  and after the last user message (``ttl: "1h"`` when the retention is ``long``, none when
  ``none``).
- Consecutive tool results become one user message; for Claude, images of an error result
  follow all results of the turn with a caption. Blank texts are left out (``<empty>`` where a
  block is required); images go out as base64 ``bytes`` with their format.
- Thinking replays as ``reasoningContent`` (signed for Claude; unsigned Claude thinking as
  text; encrypted ``redactedContent`` as it came).
- Reasoning: Claude with adaptive thinking (Opus 4.6+, Sonnet 4.6, the 5 family) gets
  ``thinking: {type: adaptive}`` and ``output_config.effort`` (plus ``block_binding`` and its
  beta where accepted); older Claude a token budget (``budget_tokens``, the output ceiling
  raised by it) and the interleaved-thinking beta; ``display: "summarized"`` except on GovCloud.
  OpenAI GPT models get ``reasoning.effort``, gpt-oss ``reasoning_effort``.
- Tools: strict schemas when the model supports strict mode and a tool asks for them; tools
  that only *prefer* strict go out plain once Bedrock has said a session's strict tools exceed
  Claude's limits (``strict_tool_limits``).

Pure functions only: the transport lives in ``bedrock_converse_stream``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pi_rpc.ai.providers.common import reasoning_level, request_max_tokens
from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling
from pi_rpc.ai.transform import collapse_context, transform_messages
from pi_rpc.ai.types import Context, Model, StreamOptions

EMPTY_TEXT = "<empty>"
ERROR_TOOL_IMAGE_PLACEHOLDER = "(image attached after the tool results)"
THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
_GPT_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"}
_GPT_OSS_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}
_IMAGE_FORMATS = {
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
}
_SEPARATORS = re.compile(r"[\s_.:]+")
_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_ADAPTIVE = ("opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "haiku-5", "fable-5")
_NATIVE_XHIGH = ("opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5", "fable-5")
_CLAUDE_5 = ("fable-5", "opus-5", "sonnet-5", "haiku-5")
STRICT_TOOL_LIMIT_MESSAGES = (
    "The compiled grammar is too large",
    "Too many strict tools (",
    "Schemas contains too many parameters with union types (",
)
# Sessions whose strict tools Bedrock rejected for Claude's limits (upstream's
# ``strict-tool-limits.js``, shared there with the Anthropic API; bounded like it).
_OVER_STRICT_LIMITS: dict[str, None] = {}
_MAX_OVER_STRICT_LIMITS = 10_000


def env_value(name: str, options: StreamOptions) -> str | None:
    """``getProviderEnvValue``: the stored credential's ``env`` first, then the process."""
    import os

    env = options.extra.get("env")
    if isinstance(env, Mapping) and env.get(name):
        return str(env[name])
    return os.environ.get(name) or None


def normalize_tool_call_id(tool_id: str, _model: Model | None = None, _source: object = None) -> str:
    """Other models' tool-call ids as Bedrock accepts them: ``[a-zA-Z0-9_-]``, at most 64."""
    return _ID_UNSAFE.sub("_", tool_id)[:64]


def _candidates(model: Mapping[str, object]) -> list[str]:
    values = [model.get("id") or "", *([model["name"]] if model.get("name") else [])]
    out: list[str] = []
    for value in values:
        lower = str(value).lower()
        out += [lower, _SEPARATORS.sub("-", lower)]
    return out


def _any(model: Mapping[str, object], needles: tuple[str, ...]) -> bool:
    return any(n in c for c in _candidates(model) for n in needles)


def is_claude(model: Mapping[str, object]) -> bool:
    """``isAnthropicClaudeModel``: by id, or by name (application inference profiles)."""
    mid = str(model.get("id") or "").lower()
    name = str(model.get("name") or "").lower()
    return "anthropic.claude" in mid or "anthropic/claude" in mid or "claude" in name


def supports_adaptive_thinking(model: Mapping[str, object]) -> bool:
    return _any(model, _ADAPTIVE)


def supports_prompt_caching(model: Mapping[str, object], options: StreamOptions) -> bool:
    if not _any(model, ("claude",)):
        return env_value("AWS_BEDROCK_FORCE_CACHE", options) == "1"
    return _any(model, (*_CLAUDE_5, "-4-", "claude-3-7-sonnet", "claude-3-5-haiku"))


def cache_retention(options: StreamOptions) -> str:
    """The caller's retention; ``short`` unless ``PI_CACHE_RETENTION=long`` (upstream's default)."""
    if options.cache_retention != "short":
        return options.cache_retention
    return "long" if env_value("PI_CACHE_RETENTION", options) == "long" else "short"


def _cache_point(retention: str) -> dict[str, object]:
    return {"cachePoint": {"type": "default", **({"ttl": "1h"} if retention == "long" else {})}}


def _image(block: Mapping[str, object]) -> dict[str, object]:
    mime = block.get("mimeType")
    fmt = _IMAGE_FORMATS.get(str(mime))
    if fmt is None:
        raise ValueError(f"Unknown image type: {mime}")
    # The SDK decodes the base64 and serialises the bytes as base64 again: the same text.
    return {"image": {"source": {"bytes": block.get("data")}, "format": fmt}}


def _text(text: str) -> dict[str, object] | None:
    return {"text": text} if text.strip() else None


def _document(value: object) -> object:
    """``sanitizeBedrockDocument``: Bedrock rejects empty object keys in a document."""
    if isinstance(value, list):
        return [_document(v) for v in value]
    if isinstance(value, dict):
        return {k: _document(v) for k, v in value.items() if k}
    return value


def _tool_result_content(content: list[dict[str, object]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for block in content:
        if block.get("type") == "image":
            out.append(_image(block))
        else:
            text = _text(str(block.get("text") or ""))
            if text:
                out.append(text)
    return out or [{"text": EMPTY_TEXT}]


def _replace_images(content: list[dict[str, object]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    previous = False
    for block in content:
        if block.get("type") == "image":
            if not previous:
                out.append({"type": "text", "text": ERROR_TOOL_IMAGE_PLACEHOLDER})
            previous = True
            continue
        out.append(block)
        previous = block.get("text") == ERROR_TOOL_IMAGE_PLACEHOLDER
    return out


def _redacted_content(signature: object) -> str | None:
    """The stored payload as the SDK would send it (decoded, then base64 again); None when it
    is empty or not base64 (a hand-edited session: the block is dropped, as upstream)."""
    if not signature:
        return None
    try:
        raw = base64.b64decode(str(signature), validate=True)
    except (binascii.Error, ValueError):
        return None
    return base64.b64encode(raw).decode() if raw else None


def _assistant(msg: Mapping[str, Any], model: Model) -> list[dict[str, Any]]:
    blocks: list[dict[str, object]] = []
    for block in msg.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            text = _text(str(block.get("text") or ""))
            if text:
                blocks.append(text)
        elif kind == "toolCall":
            blocks.append(
                {
                    "toolUse": {
                        "toolUseId": block.get("id"),
                        "name": block.get("name"),
                        "input": _document(block.get("arguments") or {}),
                    }
                }
            )
        elif kind == "thinking":
            if block.get("redacted"):
                redacted = _redacted_content(block.get("thinkingSignature"))
                if redacted is not None:
                    blocks.append({"reasoningContent": {"redactedContent": redacted}})
                continue
            thinking = str(block.get("thinking") or "")
            if not thinking.strip():
                continue
            if is_claude(model):
                signature = str(block.get("thinkingSignature") or "")
                if not signature.strip():
                    blocks.append({"text": thinking})
                else:
                    blocks.append({"reasoningContent": {"reasoningText": {"text": thinking, "signature": signature}}})
            else:
                blocks.append({"reasoningContent": {"reasoningText": {"text": thinking}}})
    return blocks


def convert_messages(
    messages: list[dict[str, object]], model: Model, retention: str, caching: bool
) -> list[dict[str, object]]:
    out: list[dict[str, Any]] = []
    transformed = transform_messages(messages, model, normalize_tool_call_id)
    claude = is_claude(model)
    i = 0
    while i < len(transformed):
        msg = transformed[i]
        role = msg.get("role")
        if role == "user":
            raw = msg.get("content")
            content: list[dict[str, object]] = []
            if isinstance(raw, str):
                content.append(_text(raw) or {"text": EMPTY_TEXT})
            else:
                for block in raw or []:
                    if block.get("type") == "text":
                        text = _text(str(block.get("text") or ""))
                        if text:
                            content.append(text)
                    elif block.get("type") == "image":
                        content.append(_image(block))
                if not content:
                    content.append({"text": EMPTY_TEXT})
            out.append({"role": "user", "content": content})
        elif role == "assistant":
            if msg.get("content"):
                blocks = _assistant(msg, model)
                if blocks:
                    out.append({"role": "assistant", "content": blocks})
        elif role == "toolResult":
            results: list[dict[str, object]] = []
            error_images: list[dict[str, object]] = []
            while i < len(transformed) and transformed[i].get("role") == "toolResult":
                result = transformed[i]
                content_in = list(result.get("content") or [])
                images = [b for b in content_in if b.get("type") == "image"]
                split = claude and bool(result.get("isError")) and bool(images)
                results.append(
                    {
                        "toolResult": {
                            "toolUseId": result.get("toolCallId"),
                            "content": _tool_result_content(_replace_images(content_in) if split else content_in),
                            "status": "error" if result.get("isError") else "success",
                        }
                    }
                )
                if split:
                    caption = (
                        f"Images from the error result of tool call {result.get('toolCallId')} "
                        f"({result.get('toolName')}):"
                    )
                    error_images += [{"text": caption}, *(_image(img) for img in images)]
                i += 1
            out.append({"role": "user", "content": [*results, *error_images]})
            continue
        i += 1
    if retention != "none" and caching and out and out[-1]["role"] == "user":
        out[-1]["content"].append(_cache_point(retention))
    return out


def prefers_strict(tool: Mapping[str, object]) -> bool:
    config = tool.get("constrainedSampling")
    return isinstance(config, dict) and config.get("type") == "json_schema" and config.get("strict") == "prefer"


def strict_tool_limits_exceeded(session_id: str | None) -> bool:
    return session_id is not None and session_id in _OVER_STRICT_LIMITS


def mark_strict_tool_limits_exceeded(session_id: str | None) -> None:
    if session_id is None:
        return
    _OVER_STRICT_LIMITS[session_id] = None
    if len(_OVER_STRICT_LIMITS) > _MAX_OVER_STRICT_LIMITS:
        del _OVER_STRICT_LIMITS[next(iter(_OVER_STRICT_LIMITS))]


def is_strict_tool_limit_message(message: str) -> bool:
    return any(text in message for text in STRICT_TOOL_LIMIT_MESSAGES)


def convert_tools(
    tools: list[dict[str, object]], tool_choice: object, supports_strict: bool, disable_preferred: bool
) -> tuple[dict[str, object] | None, bool]:
    """(``toolConfig`` or None, whether a preferred-strict tool went out strict)."""
    if not tools or tool_choice == "none":
        return None, False
    has_preferred = False
    specs: list[dict[str, object]] = []
    for tool in tools:
        preferred = prefers_strict(tool)
        strict = None if disable_preferred and preferred else resolve_strict_sampling(tool, supports_strict)
        if strict is True and preferred:
            has_preferred = True
        parameters = make_strict_json_schema(tool.get("parameters")) if strict is True else tool.get("parameters")
        spec: dict[str, object] = {"name": tool.get("name")}
        if tool.get("description") is not None:
            spec["description"] = tool["description"]
        spec["inputSchema"] = {"json": parameters}
        if strict is True:
            spec["strict"] = True
        specs.append({"toolSpec": spec})
    config: dict[str, object] = {"tools": specs}
    if tool_choice == "auto":
        config["toolChoice"] = {"auto": {}}
    elif tool_choice == "any":
        config["toolChoice"] = {"any": {}}
    elif isinstance(tool_choice, dict) and tool_choice.get("type") == "tool":
        config["toolChoice"] = {"tool": {"name": tool_choice.get("name")}}
    return config, has_preferred


def _is_govcloud(model: Model, options: StreamOptions) -> bool:
    region = env_value("AWS_REGION", options) or env_value("AWS_DEFAULT_REGION", options) or ""
    mid = str(model.get("id") or "").lower()
    return region.lower().startswith("us-gov-") or mid.startswith("us-gov.") or mid.startswith("arn:aws-us-gov:")


def _effort(model: Model, level: str) -> str:
    if level == "xhigh" and _any(model, _NATIVE_XHIGH):
        return "xhigh"
    mapped = (model.get("thinkingLevelMap") or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium"}.get(level, "high")


def additional_fields(model: Model, options: StreamOptions, level: str | None, budget: int) -> dict[str, object] | None:
    """``additionalModelRequestFields`` for the reasoning level (None: no reasoning)."""
    if not level or not model.get("reasoning"):
        return None
    if is_claude(model):
        govcloud = _is_govcloud(model, options)
        display = None if govcloud else (options.extra.get("thinkingDisplay") or "summarized")
        result: dict[str, object]
        if supports_adaptive_thinking(model):
            binding = not govcloud and _any(model, _NATIVE_XHIGH)
            thinking: dict[str, object] = {"type": "adaptive"}
            if display is not None:
                thinking["display"] = display
            if binding:
                thinking["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
            result = {"thinking": thinking, "output_config": {"effort": _effort(model, level)}}
            if binding:
                result["anthropic_beta"] = [THINKING_BINDING_BETA]
            return result
        thinking = {"type": "enabled", "budget_tokens": budget}
        if display is not None:
            thinking["display"] = display
        result = {"thinking": thinking}
        if options.extra.get("interleavedThinking", True):
            result["anthropic_beta"] = [INTERLEAVED_THINKING_BETA]
        return result
    if _any(model, ("gpt-oss",)):
        return {"reasoning_effort": _GPT_OSS_EFFORT.get(level, "high")}
    if _any(model, ("gpt-",)):
        mapped = (model.get("thinkingLevelMap") or {}).get(level)
        return {"reasoning": {"effort": mapped if isinstance(mapped, str) else _GPT_EFFORT.get(level, level)}}
    return None


def build_body(
    model: Model, context: Context, options: StreamOptions, *, disable_preferred_strict: bool = False
) -> tuple[dict[str, object], bool]:
    """(request body, whether a preferred-strict tool went out strict)."""
    system_prompt, messages, tools = collapse_context(context)
    level = reasoning_level(model, options)
    max_tokens = request_max_tokens(model, context, system_prompt, messages, options)
    budget = 0
    if level and model.get("reasoning") and is_claude(model) and not supports_adaptive_thinking(model):
        # ``streamSimple``: the budget rides on top of the output ceiling, within the model's.
        clamped = "high" if level in ("xhigh", "max") else level
        budget = THINKING_BUDGETS.get(clamped, 1024)
        raised = min(max_tokens + budget, int(model.get("maxTokens") or max_tokens))
        if raised <= budget:
            budget = min(budget, max(0, raised - 1024))
        max_tokens = request_max_tokens(model, context, system_prompt, messages, replace(options, max_tokens=raised))
        budget = min(budget, max(0, max_tokens - 1024))
    retention = cache_retention(options)
    caching = supports_prompt_caching(model, options)
    body: dict[str, object] = {"messages": convert_messages(messages, model, retention, caching)}
    if system_prompt:
        system: list[dict[str, object]] = [{"text": system_prompt}]
        if retention != "none" and caching:
            system.append(_cache_point(retention))
        body["system"] = system
    inference: dict[str, object] = {"maxTokens": max_tokens}
    if options.temperature is not None:
        inference["temperature"] = options.temperature
    body["inferenceConfig"] = inference
    supports_strict = bool((model.get("compat") or {}).get("supportsStrictMode"))
    tool_config, has_preferred = convert_tools(
        tools, options.extra.get("toolChoice"), supports_strict, disable_preferred_strict
    )
    if tool_config is not None:
        body["toolConfig"] = tool_config
    fields = additional_fields(model, options, level, budget)
    if fields is not None:
        body["additionalModelRequestFields"] = fields
    metadata = options.extra.get("requestMetadata")
    if metadata is not None:
        body["requestMetadata"] = metadata
    return body, has_preferred
