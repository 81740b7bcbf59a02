"""Pure error classification, ported from pi-ai 1.6 (``utils/retry.js``, ``utils/overflow.js``):

- ``is_retryable_error(message)``: transient provider/transport failures (overloaded, rate
  limits, 429/5xx as standalone numbers, connection/socket/timeout errors, stream drops, "retry
  delay"...), after first excluding non-transient quota/billing/usage-limit errors;
- ``is_context_overflow(message, context_window)``: upstream's per-provider error patterns, the
  silent "usage above the window" case and the length-stop-with-zero-output case;
- ``parse_retry_after(headers, body)``: a server-requested delay in ms from ``retry-after-ms``,
  ``retry-after`` (seconds or HTTP date), ``x-ratelimit-reset(-after)``, or a body's "Please retry
  in Xs", ``"retryDelay": "26s"`` or "reset after 1h2m3s" (Gemini sends no header).

``is_retryable_error`` and ``is_context_overflow`` accept an assistant message dict or, for the
former, a bare error string.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

_NON_RETRYABLE_SOURCES = [
    "GoUsageLimitError",
    "FreeUsageLimitError",
    "Monthly usage limit reached",
    "available balance",
    "insufficient_quota",
    "out of budget",
    "quota exceeded",
    "billing",
    "subscription_sharing_usage_limit_exceeded",
    "subscription_sharing_workplace_individual_usage_limit_exceeded",
    r'"code"\s*:\s*"?1308(?![0-9])',
]

_RETRYABLE_SOURCES = [
    "overloaded",
    "server_busy",
    "servers are currently busy",
    "currently experiencing high demand",
    "model is at capacity",
    "rate.?limit",
    "too many requests",
    r"(?<![a-z0-9])(?:429|500|502|503|504|520|524)(?![a-z0-9])",
    "service.?(?:is.?)?(?:temporarily.?)?unavailable",
    "server.?error",
    "internal.?error",
    "provider.?returned.?(?:an.?)?error",
    "exceeded request buffer limit while retrying upstream",
    "unable to forward upstream",
    "upstream.?request.?failed",
    "upstream_stream_read_error",
    "stream was interrupted",
    "http/?2 stream failed",
    "network.?error",
    "connection.?error",
    "connection.?refused",
    "connection.?lost",
    "connection.?closed",
    "other side closed",
    "fetch failed",
    r"request to \S+ failed, reason:",
    "getaddrinfo",
    r"(?<![a-z0-9_])(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)(?![a-z0-9_])",
    "connection reset by peer",
    "ENOTFOUND",
    "EAI_AGAIN",
    "upstream.?connect",
    "reset before headers",
    "socket hang up",
    "socket connection was closed",
    "timed? out",
    "timeout",
    "terminated",
    "websocket.?closed",
    "websocket.?error",
    "websocket.?connection.?limit.?reached",
    "ended without",
    "stream ended before message_stop",
    "stream ended before a terminal response event",
    "http2 request did not get a response",
    "stream disconnected before completion",
    "cut short after the reply had begun",
    "pending stream has been canceled",
    "retry delay",
    "you can retry your request",
    "try your request again",
    "please retry your request",
    "ResourceExhausted",
    "subscription_sharing_usage_unavailable",
    "subscription_sharing_user_unavailable",
]

_OVERFLOW_SOURCES = [
    r"prompt (?:is )?too long",
    r"prompt exceeds max length",
    r"request_too_large",
    r"input is too long for requested model",
    r"exceeds the context window",
    r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
    r"context window exceeded",
    r"input token count.*exceeds the maximum",
    r"maximum prompt length is \d+",
    r"reduce the length of the messages",
    r"maximum context length is \d+ tokens",
    r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
    r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
    r"exceeds the limit of \d+",
    r"exceeds the available context size",
    r"greater than the context length",
    r"context window exceeds limit",
    r"exceeded model token limit",
    r"too large for model with \d+ maximum context length",
    r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
    r"model_context_window_exceeded",
    r"prompt too long; exceeded (?:max )?context length",
    r"range of input length should be",
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
    r"^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))",
]
_NON_OVERFLOW_SOURCES = [r"^(Throttling error|Service unavailable):", r"rate limit", r"too many requests"]


class _Patterns:
    """The classifiers' expressions, compiled on first use: some 40 patterns (milliseconds at
    startup) that a session without a failed request never needs."""

    def __init__(self) -> None:
        self.non_retryable = re.compile("|".join(_NON_RETRYABLE_SOURCES), re.IGNORECASE)
        self.retryable = re.compile("|".join(_RETRYABLE_SOURCES), re.IGNORECASE)
        self.overflow = [re.compile(p, re.IGNORECASE) for p in _OVERFLOW_SOURCES]
        self.non_overflow = [re.compile(p, re.IGNORECASE) for p in _NON_OVERFLOW_SOURCES]
        self.cerebras_bodyless = re.compile(r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)", re.IGNORECASE)
        self.retry_in = re.compile(r"Please retry in ([0-9.]+)(ms|s)", re.IGNORECASE)
        self.retry_delay = re.compile(r'"retryDelay"\s*:\s*"([0-9.]+)(ms|s)"', re.IGNORECASE)
        self.reset_after = re.compile(r"reset after (?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?", re.IGNORECASE)


_COMPILED: _Patterns | None = None


def _patterns() -> _Patterns:
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = _Patterns()
    return _COMPILED


def is_retryable_error(message: str | Mapping[str, Any] | None) -> bool:
    """True for transient failures worth retrying. A message dict must have stopReason "error"."""
    if isinstance(message, Mapping):
        if message.get("stopReason") != "error":
            return False
        text = message.get("errorMessage") or ""
    else:
        text = message or ""
    if not text:
        return False
    patterns = _patterns()
    if patterns.non_retryable.search(text):
        return False
    return bool(patterns.retryable.search(text))


def matches_overflow_text(text: str, provider: str | None = None) -> bool:
    patterns = _patterns()
    if any(p.search(text) for p in patterns.non_overflow):
        return False
    if any(p.search(text) for p in patterns.overflow):
        return True
    return provider == "cerebras" and bool(patterns.cerebras_bodyless.search(text))


def is_context_overflow(message: Mapping[str, Any] | str, context_window: int | None = None) -> bool:
    """Upstream ``isContextOverflow``. A bare string is treated as an error message."""
    if isinstance(message, str):
        return matches_overflow_text(message)
    stop = message.get("stopReason")
    error_text = message.get("errorMessage")
    if stop == "error" and error_text and matches_overflow_text(error_text, message.get("provider")):
        return True
    usage = message.get("usage") or {}
    inp = (usage.get("input") or 0) + (usage.get("cacheRead") or 0)
    if context_window and stop == "stop" and inp > context_window:
        return True
    if context_window and stop == "length" and (usage.get("output") or 0) == 0 and inp >= context_window * 0.99:
        return True
    return False


def parse_retry_after(headers: Mapping[str, str] | None = None, body: str | None = None) -> float | None:
    """Server-requested delay in milliseconds, or None. Header values win over the body."""
    h = {k.lower(): v for k, v in (headers or {}).items()}
    if h.get("retry-after-ms"):
        try:
            return max(0.0, float(h["retry-after-ms"]))
        except ValueError:
            pass
    if h.get("retry-after"):
        value = h["retry-after"].strip()
        try:
            return max(0.0, float(value) * 1000)
        except ValueError:
            try:
                import email.utils

                when = email.utils.parsedate_to_datetime(value)
                return max(0.0, when.timestamp() * 1000 - time.time() * 1000)
            except (TypeError, ValueError):
                pass
    if h.get("x-ratelimit-reset"):
        try:
            return max(0.0, float(h["x-ratelimit-reset"]) * 1000 - time.time() * 1000)
        except ValueError:
            pass
    if h.get("x-ratelimit-reset-after"):
        try:
            return max(0.0, float(h["x-ratelimit-reset-after"]) * 1000)
        except ValueError:
            pass
    if body:
        patterns = _patterns()
        m = patterns.reset_after.search(body)
        if m and any(m.groups()):
            hours, minutes, seconds = (float(g) if g else 0.0 for g in m.groups())
            return (hours * 3600 + minutes * 60 + seconds) * 1000
        for pattern in (patterns.retry_in, patterns.retry_delay):
            m = pattern.search(body)
            if m:
                amount = float(m.group(1))
                return amount if m.group(2).lower() == "ms" else amount * 1000
    return None
