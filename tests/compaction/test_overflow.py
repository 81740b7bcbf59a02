"""Overflow / retry classification and the post-reply compaction decision."""

from __future__ import annotations

import pytest

from pi_rpc.compaction import (
    OVERFLOW_RECOVERY_EXHAUSTED,
    TRUNCATION_RECOVERY_EXHAUSTED,
    CompactionSettings,
    compaction_failed_message,
    decide_compaction,
    is_recoverable_length,
)
from pi_rpc.compaction.overflow import is_overflow, is_retryable_error

from .conftest import usage


def err(text: str, provider: str = "fake") -> dict:
    return {
        "role": "assistant",
        "content": [],
        "provider": provider,
        "usage": usage(),
        "stopReason": "error",
        "errorMessage": text,
    }


def ok(input_tokens: int, output: int = 10, stop: str = "stop", timestamp: int = 5000) -> dict:
    return {
        "role": "assistant",
        "content": [],
        "usage": usage(input_tokens, output),
        "stopReason": stop,
        "timestamp": timestamp,
    }


@pytest.mark.parametrize(
    "text",
    [
        "400 prompt is too long: 213462 tokens > 200000 maximum",
        "400 Prompt too long",
        "400 This model's maximum context length is 4097 tokens. However, you requested 5000",
        "Your input exceeds the context window of this model",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)",
        "413 Request Entity Too Large",
        "request_too_large",
        "Input (9000 tokens) is longer than the model's context length (8192 tokens)",
        "prompt has 140,000 tokens, but the configured context size is 131,072 tokens",
    ],
)
def test_explicit_overflow_patterns(text: str) -> None:
    assert is_overflow(err(text))


@pytest.mark.parametrize(
    "text",
    [
        "429 rate limit exceeded: too many tokens per minute",
        "Throttling error: Too many tokens, please wait before trying again.",
        "503 Service Unavailable",
        "400 invalid tool schema",
    ],
)
def test_not_overflow(text: str) -> None:
    assert not is_overflow(err(text))


def test_cerebras_no_body_rule_is_provider_specific() -> None:
    assert is_overflow(err("400 status code (no body)", provider="cerebras"))
    assert not is_overflow(err("400 status code (no body)", provider="openai"))


def test_silent_and_length_overflow() -> None:
    assert is_overflow(ok(100_001), 100_000)
    assert not is_overflow(ok(100_000), 100_000)
    assert not is_overflow(ok(100_001))  # window unknown
    assert is_overflow(ok(99_000, output=0, stop="length"), 100_000)
    assert not is_overflow(ok(99_000, output=5, stop="length"), 100_000)


@pytest.mark.parametrize(
    ("text", "retryable"),
    [
        ("503 Service Unavailable", True),
        ("overloaded_error", True),
        ("429 Too Many Requests", True),
        ("Connection error.", True),
        ("terminated", True),
        ("Server requested 90s retry delay (max: 60s).", True),
        ("400 prompt is too long: 300000 tokens", False),
        ("429 insufficient_quota: You exceeded your current quota", False),
        ("401 invalid x-api-key", False),
        ("400 request id req_5001234 rejected", False),
    ],
)
def test_retryable_classification(text: str, retryable: bool) -> None:
    assert is_retryable_error(err(text)) is retryable


def test_only_errors_are_retryable() -> None:
    assert not is_retryable_error({**ok(1), "errorMessage": "503"})


SETTINGS = CompactionSettings()


def test_threshold_decision() -> None:
    # Upstream's observed example: usage 95100 on a 100000 window, reserve 16384.
    d = decide_compaction(ok(95090), settings=SETTINGS, context_window=100_000)
    assert (d.action, d.will_retry, d.error_message) == ("threshold", False, None)
    assert decide_compaction(ok(83606), settings=SETTINGS, context_window=100_000).action == "none"  # 83616
    assert (
        decide_compaction(ok(95090), settings=CompactionSettings(enabled=False), context_window=100_000).action
        == "none"
    )
    # A stale reply (not newer than the latest compaction) never triggers again.
    assert (
        decide_compaction(ok(95090), settings=SETTINGS, context_window=100_000, latest_compaction_ms=5000).action
        == "none"
    )
    # An error reply counts only with a caller-supplied estimate.
    assert decide_compaction(err("500 boom"), settings=SETTINGS, context_window=100_000).action == "none"
    assert (
        decide_compaction(err("500 boom"), settings=SETTINGS, context_window=100_000, context_tokens=90_000).action
        == "threshold"
    )


def test_overflow_decision_allows_one_recovery() -> None:
    msg = err("400 prompt is too long: 300000 tokens > 200000 maximum")
    first = decide_compaction(msg, settings=SETTINGS, context_window=200_000)
    assert (first.action, first.will_retry) == ("overflow", True)
    second = decide_compaction(msg, settings=SETTINGS, context_window=200_000, recovery_attempted=True)
    assert second.action == "give_up" and second.error_message == OVERFLOW_RECOVERY_EXHAUSTED
    assert OVERFLOW_RECOVERY_EXHAUSTED == (
        "Context overflow recovery failed after one compact-and-retry attempt. "
        "Try reducing context or switching to a larger-context model."
    )
    # Another model's overflow says nothing about the current one.
    assert decide_compaction(msg, settings=SETTINGS, context_window=200_000, same_model=False).action == "none"


def test_completed_overflow_compacts_without_retry() -> None:
    d = decide_compaction(ok(130_000), settings=SETTINGS, context_window=128_000, recovery_attempted=True)
    assert (d.action, d.will_retry) == ("overflow", False)


def test_truncated_reply_recovery() -> None:
    cut = ok(120_000, output=900, stop="length")
    assert is_recoverable_length(cut, 4096) and not is_recoverable_length(cut, 900)
    d = decide_compaction(cut, settings=SETTINGS, context_window=128_000, model_max_tokens=4096)
    assert (d.action, d.will_retry) == ("overflow", True)
    d = decide_compaction(
        cut, settings=SETTINGS, context_window=128_000, model_max_tokens=4096, recovery_attempted=True
    )
    assert d.action == "give_up" and d.error_message == TRUNCATION_RECOVERY_EXHAUSTED
    assert TRUNCATION_RECOVERY_EXHAUSTED == "Truncated response recovery failed after one compact-and-retry attempt."


def test_aborted_replies() -> None:
    aborted = ok(126_000, stop="aborted")
    assert decide_compaction(aborted, settings=SETTINGS, context_window=128_000).action == "none"
    # Before a new prompt, aborted replies are checked too.
    assert (
        decide_compaction(aborted, settings=SETTINGS, context_window=128_000, skip_aborted=False).action == "threshold"
    )


def test_failure_messages() -> None:
    assert compaction_failed_message("manual", "x") == "Compaction failed: x"
    assert compaction_failed_message("threshold", "x") == "Auto-compaction failed: x"
    assert compaction_failed_message("overflow", "x") == "Context overflow recovery failed: x"
