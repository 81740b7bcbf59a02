"""Token heuristics: upstream's chars/4 estimate per message and the usage-anchored
context size used by the compaction threshold.

Lengths are counted in UTF-16 code units, as JavaScript's ``String.length`` does, so the
estimates match upstream for non-ASCII text too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import orjson

from pi_rpc.compaction.settings import CompactionSettings

ESTIMATED_IMAGE_CHARS = 4800


def js_len(text: str) -> int:
    """``String.length`` of ``text`` (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def js_json(value: Any) -> str:
    """Compact JSON text close to ``JSON.stringify`` (non-ASCII kept raw)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return orjson.dumps(value, default=str).decode()


def _content_chars(content: Any, count_images: bool = True) -> int:
    if isinstance(content, str):
        return js_len(content)
    chars = 0
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                chars += js_len(block["text"])
            elif kind == "image" and count_images:
                chars += ESTIMATED_IMAGE_CHARS
    return chars


def _message_chars(message: dict[str, Any]) -> int:
    role = message.get("role")
    if role in ("user", "toolResult", "custom"):
        return _content_chars(message.get("content"))
    if role == "assistant":
        chars = 0
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                chars += js_len(block.get("text") or "")
            elif kind == "thinking":
                chars += js_len(block.get("thinking") or "")
            elif kind == "toolCall":
                chars += js_len(str(block.get("name") or "")) + js_len(js_json(block.get("arguments") or {}))
        return chars
    if role == "bashExecution":
        return js_len(message.get("command") or "") + js_len(message.get("output") or "")
    if role in ("compactionSummary", "branchSummary"):
        return js_len(message.get("summary") or "")
    if role == "system":
        chars = _content_chars(message.get("content"), count_images=False)
        sections = message.get("sections")
        if isinstance(sections, dict):
            chars += sum(js_len(v) for v in sections.values() if isinstance(v, str))
        for tool in message.get("toolsAdded") or []:
            chars += js_len(js_json(tool))
        return chars
    return 0


def estimate_tokens(message: dict[str, Any]) -> int:
    """ceil(chars / 4) for one agent message (images count as 4800 chars)."""
    return math.ceil(_message_chars(message) / 4)


def calculate_context_tokens(usage: dict[str, Any] | None) -> int:
    """Context size a reply's usage implies: totalTokens, else the sum of the four counters."""
    if not isinstance(usage, dict):
        return 0
    total = usage.get("totalTokens") or 0
    if total:
        return int(total)
    return int(
        (usage.get("input") or 0)
        + (usage.get("output") or 0)
        + (usage.get("cacheRead") or 0)
        + (usage.get("cacheWrite") or 0)
    )


def is_usage_assistant(message: dict[str, Any]) -> bool:
    """An assistant reply whose usage describes the context it saw."""
    return (
        message.get("role") == "assistant"
        and message.get("stopReason") not in ("aborted", "error")
        and isinstance(message.get("usage"), dict)
    )


@dataclass(frozen=True)
class ContextEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: list[dict[str, Any]]) -> ContextEstimate:
    """Context size: the last valid assistant usage plus estimates for the messages after it,
    or the sum of all estimates when no reply carries usage."""
    last = None
    for i in range(len(messages) - 1, -1, -1):
        if is_usage_assistant(messages[i]):
            last = i
            break
    if last is None:
        total = sum(estimate_tokens(m) for m in messages)
        return ContextEstimate(tokens=total, usage_tokens=0, trailing_tokens=total, last_usage_index=None)
    usage_tokens = calculate_context_tokens(messages[last]["usage"])
    trailing = sum(estimate_tokens(m) for m in messages[last + 1 :])
    return ContextEstimate(
        tokens=usage_tokens + trailing, usage_tokens=usage_tokens, trailing_tokens=trailing, last_usage_index=last
    )


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """The threshold trigger: strictly more than ``contextWindow − reserveTokens``."""
    if not settings.enabled:
        return False
    return context_tokens > context_window - settings.reserve_tokens
