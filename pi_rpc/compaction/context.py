"""Context size of a branch as compaction and ``get_session_stats.contextUsage`` see it.

A reply's reported usage is trusted only while the projection it described still stands:
a later ``compaction`` or ``context_edit`` on the path makes it stale, and then every
projected message is estimated instead.
"""

from __future__ import annotations

from typing import Any

from pi_rpc.compaction.projection import (
    Entry,
    ProjectedEntry,
    build_projection,
    latest_compaction_index,
)
from pi_rpc.compaction.tokens import (
    ContextEstimate,
    calculate_context_tokens,
    estimate_tokens,
    is_usage_assistant,
)


def estimate_projected_context_tokens(
    projection: list[ProjectedEntry], path_entries: list[Entry]
) -> ContextEstimate:
    flat: list[tuple[int, dict[str, Any]]] = [(pe.path_index, m) for pe in projection for m in pe.messages]
    last = None
    for i in range(len(flat) - 1, -1, -1):
        if is_usage_assistant(flat[i][1]):
            last = i
            break
    if last is not None:
        source = flat[last][0]
        stale = any(e.get("type") in ("compaction", "context_edit") for e in path_entries[source + 1 :])
        if not stale:
            usage_tokens = calculate_context_tokens(flat[last][1]["usage"])
            trailing = sum(estimate_tokens(m) for _, m in flat[last + 1 :])
            return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, last)
    total = sum(estimate_tokens(m) for _, m in flat)
    return ContextEstimate(total, 0, total, None)


def estimate_branch_context_tokens(path_entries: list[Entry]) -> int:
    """Projected context size of a root→leaf path (e.g. right after appending a compaction,
    which gives upstream's ``estimatedTokensAfter``)."""
    return estimate_projected_context_tokens(build_projection(path_entries), path_entries).tokens


def calculate_context_usage(path_entries: list[Entry], context_window: int) -> dict[str, Any] | None:
    """``ContextUsage {tokens, contextWindow, percent}``; None when the window is unknown.

    After a compaction, ``tokens``/``percent`` are None until an assistant reply with usage
    arrives after it (protocol §2.22).
    """
    if not context_window or context_window <= 0:
        return None
    k = latest_compaction_index(path_entries)
    if k >= 0:
        fresh = any(
            e.get("type") == "message" and isinstance(e.get("message"), dict) and is_usage_assistant(e["message"])
            for e in path_entries[k + 1 :]
        )
        if not fresh:
            return {"tokens": None, "contextWindow": context_window, "percent": None}
    tokens = estimate_branch_context_tokens(path_entries)
    return {"tokens": tokens, "contextWindow": context_window, "percent": tokens / context_window * 100}
