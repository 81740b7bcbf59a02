"""Classifying failed replies for compaction: context overflow (compact, maybe retry),
transient errors (retry the summary request), and the session's recovery decision.

``pi_rpc.ai.classify`` owns the provider-facing classifiers; when it is importable its
functions are used, otherwise the local pattern lists below (upstream 1.6's) apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pi_rpc.compaction.errors import OVERFLOW_RECOVERY_EXHAUSTED, TRUNCATION_RECOVERY_EXHAUSTED
from pi_rpc.compaction.settings import CompactionSettings
from pi_rpc.compaction.tokens import calculate_context_tokens, should_compact

Message = dict[str, Any]

_OVERFLOW_PATTERNS = [
    r"prompt (?:is )?too long",
    r"input is too long for requested model",
    r"exceeds the context window",
    r"input token count.*exceeds the maximum",
    r"maximum prompt length is \d+",
    r"reduce the length of the messages",
    r"maximum context length is \d+ tokens",
    r"exceeds the limit of \d+",
    r"exceeds the available context size",
    r"greater than the context length",
    r"context window exceeds limit",
    r"exceeded model token limit",
    r"too large for model with \d+ maximum context length",
    r"model_context_window_exceeded",
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
    r"prompt exceeds max length",
    r"request_too_large",
    r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
    r"context window exceeded",
    r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
    r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
    r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
    r"prompt too long; exceeded (?:max )?context length",
    r"range of input length should be",
    r"^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))",
]
_OVERFLOW_RE = re.compile("|".join(f"(?:{p})" for p in _OVERFLOW_PATTERNS), re.IGNORECASE)
_OVERFLOW_EXCLUDE_RE = re.compile(r"^(?:Throttling error|Service unavailable):|rate.?limit|too many requests", re.IGNORECASE)
_CEREBRAS_NO_BODY_RE = re.compile(r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)", re.IGNORECASE)

_NON_TRANSIENT_RE = re.compile(
    r"GoUsageLimitError|FreeUsageLimitError|monthly usage limit|available balance|insufficient_quota"
    r"|out of budget|quota exceeded|billing|subscription_sharing_usage_limit|usage_limit_exceeded",
    re.IGNORECASE,
)
_RETRYABLE_RE = re.compile(
    r"overloaded|server_busy|servers are currently busy|currently experiencing high demand|model is at capacity"
    r"|rate.?limit|too many requests|(?<![\w.])(?:429|500|502|503|504|520|524)(?![\w.])"
    r"|service.?unavailable|server.?error|internal.?error|provider returned error|upstream request failed"
    r"|stream read error|stream was interrupted|network|connection|econn\w*|etimedout|epipe|enotfound|eai_again"
    r"|socket hang up|time(?:d)?\s?out|terminated|websocket closed|ended without"
    r"|stream ended before message_stop|stream disconnected before completion|retry delay"
    r"|you can retry your request|resource.?exhausted|fetch failed|other side closed|reset before headers",
    re.IGNORECASE,
)


def _usage_int(msg: Message, key: str) -> int:
    usage = msg.get("usage")
    value = usage.get(key) if isinstance(usage, dict) else 0
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def local_is_context_overflow(msg: Message, context_window: int | None = None) -> bool:
    stop = msg.get("stopReason")
    error = msg.get("errorMessage") or ""
    if stop == "error" and error:
        if not _OVERFLOW_EXCLUDE_RE.search(error):
            if _OVERFLOW_RE.search(error):
                return True
            if msg.get("provider") == "cerebras" and _CEREBRAS_NO_BODY_RE.search(error):
                return True
    if context_window and context_window > 0:
        seen = _usage_int(msg, "input") + _usage_int(msg, "cacheRead")
        if stop == "stop" and seen > context_window:
            return True  # silent overflow: the provider truncated instead of failing
        if stop == "length" and _usage_int(msg, "output") == 0 and seen >= 0.99 * context_window:
            return True
    return False


def local_is_retryable_error(msg: Message, context_window: int | None = None) -> bool:
    if msg.get("stopReason") != "error":
        return False
    error = msg.get("errorMessage") or ""
    if not error or _NON_TRANSIENT_RE.search(error):
        return False
    if local_is_context_overflow(msg, context_window):
        return False
    return bool(_RETRYABLE_RE.search(error))


def _shared(name: str) -> Callable[..., bool] | None:
    try:
        from pi_rpc.ai import classify
    except ImportError:
        return None
    fn = getattr(classify, name, None)
    return fn if callable(fn) else None


def is_overflow(msg: Message, context_window: int | None = None) -> bool:
    """Whether an assistant reply shows the context did not fit (explicit error, silent
    truncation, or a zero-output length stop at the window)."""
    shared = _shared("is_context_overflow")
    if shared is not None:
        return bool(shared(msg, context_window))
    return local_is_context_overflow(msg, context_window)


def is_retryable_error(msg: Message) -> bool:
    """Whether an error reply is transient (overflow and quota errors never are)."""
    shared = _shared("is_retryable_error")
    if shared is not None:
        # Overflow goes to compaction, never to a retry, whatever the shared list says.
        return bool(shared(msg)) and not is_overflow(msg)
    return local_is_retryable_error(msg)


def is_recoverable_length(msg: Message, model_max_tokens: int | None) -> bool:
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
    msg: Message,
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
        context_tokens = calculate_context_tokens(msg.get("usage"))
    if context_window and should_compact(context_tokens, context_window, settings):
        return CompactionDecision("threshold")
    return CompactionDecision("none")
