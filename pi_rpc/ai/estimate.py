"""Token estimates (upstream ``utils/estimate``): 3.5 characters per token, 4800 characters per
image, and the last successful assistant usage as the base for everything before it. Also
``clamp_max_tokens_to_context`` (upstream ``clampMaxTokensToContext``) used for request limits."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pi_rpc.ai.jsjson import stringify

CHARS_PER_TOKEN = 3.5
ESTIMATED_IMAGE_CHARS = 4800
CONTEXT_SAFETY_TOKENS = 4096
CONTEXT_SAFETY_RATIO = 0.15
MIN_OUTPUT_WITH_RATIO_MARGIN = 32768


def calculate_context_tokens(usage: dict[str, Any]) -> int:
    total: int = usage.get("totalTokens") or (
        usage.get("input", 0) + usage.get("output", 0) + usage.get("cacheRead", 0) + usage.get("cacheWrite", 0)
    )
    return total


def estimate_text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    return sum(len(b.get("text", "")) if b.get("type") == "text" else ESTIMATED_IMAGE_CHARS for b in content or [])


def _json_len(value: object) -> int:
    try:
        return len(stringify(value))
    except TypeError:
        return len("[unserializable]")


def estimate_message_tokens(message: dict[str, Any]) -> int:
    role = message.get("role")
    if role == "system":
        from pi_rpc.ai.transcript import content_text

        parts = [content_text(message.get("content", "")), *[v for v in (message.get("sections") or {}).values() if v]]
        text = "\n\n".join(p for p in parts if p)
        tools = 0
        for key in ("toolsAdded", "toolsRemoved"):
            if message.get(key):
                tools += math.ceil(_json_len(message[key]) / CHARS_PER_TOKEN)
        return estimate_text_tokens(text) + tools
    if role in ("user", "toolResult"):
        return math.ceil(_content_chars(message.get("content", "")) / CHARS_PER_TOKEN)
    if role == "assistant":
        chars = 0
        for b in message.get("content") or []:
            t = b.get("type")
            if t == "text":
                chars += len(b.get("text", ""))
            elif t == "thinking":
                chars += len(b.get("thinking", ""))
            elif t == "toolCall":
                chars += len(b.get("name", "")) + _json_len(b.get("arguments", {}))
        return math.ceil(chars / CHARS_PER_TOKEN)
    # Other roles (bashExecution, custom, summaries): estimate on their visible text.
    return math.ceil(_content_chars(message.get("content", message.get("summary", ""))) / CHARS_PER_TOKEN)


def estimate_context_tokens(messages: list[dict[str, Any]]) -> int:
    latest_prefix = float("-inf")
    base_index = -1
    base_tokens = 0
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            usage = m.get("usage") or {}
            if (
                m.get("timestamp", 0) >= latest_prefix
                and m.get("stopReason") not in ("aborted", "error")
                and usage
                and calculate_context_tokens(usage) > 0
            ):
                base_index, base_tokens = i, calculate_context_tokens(usage)
        latest_prefix = max(latest_prefix, m.get("timestamp", 0))
    return base_tokens + sum(estimate_message_tokens(m) for m in messages[base_index + 1 :])


def clamp_max_tokens_to_context(model: Mapping[str, Any], input_tokens: int, max_tokens: int) -> int:
    window: int = model.get("contextWindow", 0)
    if window <= 0:
        return max(1, max_tokens)
    margin = max(CONTEXT_SAFETY_TOKENS, math.ceil(input_tokens * CONTEXT_SAFETY_RATIO))
    room = window - input_tokens - margin
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN:
        room = min(MIN_OUTPUT_WITH_RATIO_MARGIN, window - input_tokens - CONTEXT_SAFETY_TOKENS)
    return min(max_tokens, max(1, room))
