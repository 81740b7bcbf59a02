"""``get_session_stats`` numbers (upstream ``AgentSession.getSessionStats`` and
``getContextUsage``) and the token estimates they rely on (``compaction.js``).

Counts and totals cover every entry of the file (all branches, compacted history). The
context estimate looks at the current projection: the last valid assistant usage plus a
chars/4 estimate of what follows it, or ``null`` right after a compaction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pi_rpc.ai.estimate import calculate_context_tokens as calculate_context_tokens  # (re-exported)
from pi_rpc.ai.transcript import get_current_system_message
from pi_rpc.session.entries import Entry
from pi_rpc.session.jsonfmt import dumps_js, js_len

_IMAGE_CHARS = 4800


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return js_len(content)
    chars = 0
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            chars += _text_len(block.get("text"))
        elif block.get("type") == "image":
            chars += _IMAGE_CHARS
    return chars


def _json_len(value: object) -> int:
    return js_len(dumps_js(value).decode("utf-8"))


def estimate_tokens(message: Mapping[str, Any]) -> int:
    """``estimateTokens``: ceil(chars / 4) with upstream's per-role char counts. Reads any
    role key by key (a message read back from a file may lack any of them)."""
    role = message.get("role")
    chars = 0
    if role == "system":
        chars = _content_chars(message.get("content"))
        for section in (message.get("sections") or {}).values():
            if section:
                chars += js_len(section)
        if message.get("toolsAdded"):
            chars += _json_len(message["toolsAdded"])
    elif role == "user":
        chars = _content_chars(message.get("content"))
    elif role == "assistant":
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                chars += _text_len(block.get("text"))
            elif btype == "thinking":
                chars += _text_len(block.get("thinking"))
            elif btype == "toolCall":
                chars += _text_len(block.get("name")) + _json_len(block.get("arguments"))
    elif role in ("custom", "toolResult"):
        chars = _content_chars(message.get("content"))
    elif role == "bashExecution":
        chars = _text_len(message.get("command")) + _text_len(message.get("output"))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _text_len(message.get("summary"))
    else:
        return 0
    return math.ceil(chars / 4)


def _text_len(value: object) -> int:
    """A text field's length, 0 for what a hostile entry holds there instead (None, a number)."""
    return js_len(value) if isinstance(value, str) else 0


def _assistant_usage(message: Mapping[str, Any]) -> dict[str, Any] | None:
    if message.get("role") != "assistant":
        return None
    usage = message.get("usage")
    if message.get("stopReason") in ("aborted", "error") or not usage:
        return None
    return usage if calculate_context_tokens(usage) > 0 else None


def estimate_context_tokens(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{tokens, usageTokens, trailingTokens, lastUsageIndex}``."""
    for index in range(len(messages) - 1, -1, -1):
        usage = _assistant_usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
            return {
                "tokens": usage_tokens + trailing,
                "usageTokens": usage_tokens,
                "trailingTokens": trailing,
                "lastUsageIndex": index,
            }
    estimated = sum(estimate_tokens(m) for m in messages)
    return {"tokens": estimated, "usageTokens": 0, "trailingTokens": estimated, "lastUsageIndex": None}


def estimate_projected_context_tokens(projection: dict[str, Any], branch: Sequence[Entry]) -> dict[str, Any]:
    """Do not trust usage captured before a later ``context_edit`` or ``compaction``."""
    messages = projection["messages"]
    estimate = estimate_context_tokens(messages)
    last = estimate["lastUsageIndex"]
    if last is not None:
        usage_entry_id = None
        index = 0
        for item in projection["entries"]:
            nxt = index + len(item["messages"])
            if last < nxt:
                usage_entry_id = item["sourceEntry"].get("id")
                break
            index = nxt
        usage_entry_index = -1
        if usage_entry_id:
            usage_entry_index = next((i for i, e in enumerate(branch) if e.get("id") == usage_entry_id), -1)
        invalidating = -1
        for i in range(len(branch) - 1, -1, -1):
            if branch[i].get("type") in ("context_edit", "compaction"):
                invalidating = i
                break
        if usage_entry_index > invalidating:
            return estimate
    current_system = get_current_system_message(messages)
    tokens = estimate_tokens(current_system) if current_system else 0
    for message in messages:
        if message.get("role") != "system":
            tokens += estimate_tokens(message)
    return {"tokens": tokens, "usageTokens": 0, "trailingTokens": tokens, "lastUsageIndex": None}


def _num(value: float) -> float | int:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def compute_context_usage(
    projection: dict[str, Any], branch: Sequence[Entry], context_window: int | float | None
) -> dict[str, object] | None:
    """``contextUsage``: None (key absent) without a model or with ``contextWindow <= 0``.

    ``projection`` is ``SessionManager.build_session_projection()``, ``branch`` is
    ``SessionManager.get_branch()``, ``context_window`` the current model's window.
    """
    if not context_window or context_window <= 0:
        return None
    latest_compaction = None
    for i in range(len(branch) - 1, -1, -1):
        if branch[i].get("type") == "compaction":
            latest_compaction = i
            break
    if latest_compaction is not None:
        projected_assistants = {
            item["sourceEntry"].get("id")
            for item in projection["entries"]
            if any(_assistant_usage(m) is not None for m in item["messages"])
        }
        if not any(e.get("id") in projected_assistants for e in branch[latest_compaction + 1 :]):
            return {"tokens": None, "contextWindow": context_window, "percent": None}
    tokens = estimate_projected_context_tokens(projection, branch)["tokens"]
    percent = (tokens / context_window) * 100
    return {"tokens": tokens, "contextWindow": context_window, "percent": _num(percent)}


def _count(value: Any) -> Any:
    """A usage figure as a number: anything else in a hand-edited file counts 0 (never raises)."""
    return value if value.__class__ in (int, float) else 0


def compute_session_stats(
    entries: Sequence[Entry],
    *,
    session_file: str | None,
    session_id: str,
    context_usage: dict[str, object] | None,
) -> dict[str, object]:
    """The ``get_session_stats`` data object in upstream's key order. ``entries`` are all
    non-header entries (``SessionManager.get_entries()``); ``sessionFile`` is left out for
    in-memory sessions and ``contextUsage`` when None."""
    user = assistant = tool_results = total = tool_calls = 0
    t_in = t_out = t_cr = t_cw = 0
    cost: float = 0

    def add(usage: object) -> None:
        nonlocal t_in, t_out, t_cr, t_cw, cost
        if not isinstance(usage, dict):
            return
        t_in += _count(usage.get("input"))
        t_out += _count(usage.get("output"))
        t_cr += _count(usage.get("cacheRead"))
        t_cw += _count(usage.get("cacheWrite"))
        costs = usage.get("cost")
        cost += _count(costs.get("total")) if isinstance(costs, dict) else 0

    for entry in entries:
        etype = entry.get("type")
        if etype == "usage":
            add(entry.get("usage"))
        elif etype in ("branch_summary", "compaction") and (usage := entry.get("usage")):
            add(usage)
        if etype != "message":
            continue
        total += 1
        message = entry.get("message")
        if not isinstance(message, dict):
            message = {}  # a hand-edited entry: counted, nothing else
        role = message.get("role")
        if role == "user":
            user += 1
        elif role == "toolResult":
            tool_results += 1
            if message.get("usage"):
                add(message["usage"])
        elif role == "assistant":
            assistant += 1
            content = message.get("content")
            if isinstance(content, list):
                tool_calls += sum(1 for c in content if isinstance(c, dict) and c.get("type") == "toolCall")
            add(message.get("usage"))
    stats: dict[str, object] = {}
    if session_file is not None:
        stats["sessionFile"] = session_file
    stats |= {
        "sessionId": session_id,
        "userMessages": user,
        "assistantMessages": assistant,
        "toolCalls": tool_calls,
        "toolResults": tool_results,
        "totalMessages": total,
        "tokens": {
            "input": _num(t_in),
            "output": _num(t_out),
            "cacheRead": _num(t_cr),
            "cacheWrite": _num(t_cw),
            "total": _num(t_in + t_out + t_cr + t_cw),
        },
        "cost": _num(cost),
    }
    if context_usage is not None:
        stats["contextUsage"] = context_usage
    return stats
