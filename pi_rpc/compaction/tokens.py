"""Token heuristics for compaction: upstream's chars/4 estimate per message and the
usage-anchored context size, shared with ``get_session_stats`` (one implementation, in
``pi_rpc.session.stats``), plus the threshold trigger."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_rpc.compaction.settings import CompactionSettings
from pi_rpc.session.stats import calculate_context_tokens, estimate_tokens
from pi_rpc.session.stats import estimate_context_tokens as _estimate_context_tokens

__all__ = [
    "ContextEstimate",
    "calculate_context_tokens",
    "estimate_context_tokens",
    "estimate_tokens",
    "should_compact",
]


@dataclass(frozen=True)
class ContextEstimate:
    """Estimated context size: the last reported usage plus the tokens of what followed it."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[dict[str, object]]) -> ContextEstimate:
    """Context size: the last valid assistant usage plus estimates for the messages after it,
    or the sum of all estimates when no reply carries usage."""
    e = _estimate_context_tokens(messages)
    return ContextEstimate(e["tokens"], e["usageTokens"], e["trailingTokens"], e["lastUsageIndex"])


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """The threshold trigger: strictly more than ``contextWindow − reserveTokens``."""
    if not settings.enabled:
        return False
    return context_tokens > context_window - settings.reserve_tokens
