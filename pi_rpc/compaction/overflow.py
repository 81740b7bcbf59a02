"""Classifying failed replies for compaction: context overflow (compact, maybe retry),
transient errors (retry the summary request), and the session's recovery decision.

The patterns themselves live in ``pi_rpc.ai.classify`` (upstream 1.6's lists).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pi_rpc.ai.classify import is_context_overflow
from pi_rpc.ai.classify import is_retryable_error as _is_retryable
from pi_rpc.compaction.errors import OVERFLOW_RECOVERY_EXHAUSTED, TRUNCATION_RECOVERY_EXHAUSTED
from pi_rpc.compaction.settings import CompactionSettings
from pi_rpc.compaction.tokens import calculate_context_tokens, should_compact

# These read an assistant reply key by key (a reply may be a plain dict from an extension).


def _usage_int(msg: Mapping[str, object], key: str) -> int:
    usage = msg.get("usage")
    value = usage.get(key) if isinstance(usage, dict) else 0
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def is_overflow(msg: Mapping[str, object], context_window: int | None = None) -> bool:
    """Whether an assistant reply shows the context did not fit (explicit error, silent
    truncation, or a zero-output length stop at the window)."""
    return is_context_overflow(msg, context_window)


def is_retryable_error(msg: Mapping[str, object]) -> bool:
    """Whether an error reply is transient (overflow and quota errors never are)."""
    # Overflow goes to compaction, never to a retry.
    return _is_retryable(msg) and not is_overflow(msg)


def is_recoverable_length(msg: Mapping[str, object], model_max_tokens: int | None) -> bool:
    """A ``length`` stop below the model's own output limit: the reply was cut by the
    context, not by its budget, so compacting and retrying can help."""
    if msg.get("stopReason") != "length" or not model_max_tokens or model_max_tokens <= 0:
        return False
    return _usage_int(msg, "output") < model_max_tokens


@dataclass(frozen=True)
class CompactionDecision:
    """What the runtime should do after an assistant reply.

    ``action``: ``none``; ``threshold`` (compact, no retry); ``overflow`` (compact, and
    retry the turn when ``will_retry``); ``give_up`` (emit ``compaction_end`` with
    ``error_message`` and no ``compaction_start``).
    """

    action: Literal["none", "threshold", "overflow", "give_up"]
    will_retry: bool = False
    error_message: str | None = None


def decide_compaction(
    msg: Mapping[str, Any],
    *,
    settings: CompactionSettings,
    context_window: int,
    same_model: bool = True,
    model_max_tokens: int | None = None,
    recovery_attempted: bool = False,
    skip_aborted: bool = True,
    latest_compaction_ms: int | None = None,
    context_tokens: int | None = None,
) -> CompactionDecision:
    """Upstream's post-reply check (``_checkCompaction``) without session state.

    ``skip_aborted`` is True after a run and False for the check before a new prompt.
    ``latest_compaction_ms`` is the latest compaction entry's time: an older reply's usage
    predates it and must not trigger again. ``recovery_attempted`` is whether an overflow
    recovery already ran since the last good reply. ``context_tokens`` overrides the size
    taken from the reply's usage (the runtime passes a projection estimate for error
    replies or after context edits); an error reply without it never triggers a threshold
    compaction.
    """
    if not settings.enabled:
        return CompactionDecision("none")
    stop = msg.get("stopReason")
    if skip_aborted and stop == "aborted":
        return CompactionDecision("none")
    if latest_compaction_ms is not None and (msg.get("timestamp") or 0) <= latest_compaction_ms:
        return CompactionDecision("none")

    overflow = same_model and is_overflow(msg, context_window)
    truncated = same_model and not overflow and is_recoverable_length(msg, model_max_tokens)
    if overflow or truncated:
        will_retry = stop != "stop"  # a completed reply cannot be continued
        if not will_retry:
            return CompactionDecision("overflow", will_retry=False)
        if recovery_attempted:
            text = OVERFLOW_RECOVERY_EXHAUSTED if overflow else TRUNCATION_RECOVERY_EXHAUSTED
            return CompactionDecision("give_up", error_message=text)
        return CompactionDecision("overflow", will_retry=True)

    if context_tokens is None:
        if stop == "error":
            return CompactionDecision("none")
        usage = msg.get("usage")
        context_tokens = calculate_context_tokens(usage) if isinstance(usage, dict) else 0
    if context_window and should_compact(context_tokens, context_window, settings):
        return CompactionDecision("threshold")
    return CompactionDecision("none")
