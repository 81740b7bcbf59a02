"""Token estimation, usage-anchored context size, threshold and contextUsage."""

from __future__ import annotations

import math

from pi_rpc.compaction import (
    CompactionSettings,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    should_compact,
)
from pi_rpc.session.context import build_session_projection
from pi_rpc.session.stats import compute_context_usage

from .conftest import SessionBuilder, load_session, usage


def calculate_context_usage(path: list[dict], context_window: int) -> dict | None:
    """contextUsage of a root->leaf path through the one shared implementation (session stats),
    which compaction's thresholds use too."""
    by_id = {e["id"]: e for e in path}
    leaf = path[-1]["id"] if path else None
    return compute_context_usage(build_session_projection(path, leaf, by_id), path, context_window)


def test_estimate_user_text_and_images() -> None:
    text = "x" * 10
    assert estimate_tokens({"role": "user", "content": text}) == math.ceil(10 / 4)
    blocks = [{"type": "text", "text": text}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    assert estimate_tokens({"role": "user", "content": blocks}) == math.ceil((10 + 4800) / 4)
    assert estimate_tokens({"role": "toolResult", "content": blocks, "toolCallId": "a", "toolName": "read"}) == (
        math.ceil(4810 / 4)
    )


def test_estimate_assistant_counts_text_thinking_and_tool_calls() -> None:
    msg = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "abcd"},
            {"type": "thinking", "thinking": "efgh"},
            {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "a.txt"}},
        ],
    }
    # 4 + 4 + len("read") + len('{"path":"a.txt"}')
    assert estimate_tokens(msg) == math.ceil((4 + 4 + 4 + 16) / 4)


def test_estimate_other_roles() -> None:
    assert estimate_tokens({"role": "bashExecution", "command": "ls", "output": "a\nb\n"}) == math.ceil(6 / 4)
    assert estimate_tokens({"role": "compactionSummary", "summary": "s" * 9, "tokensBefore": 1}) == 3
    assert estimate_tokens({"role": "branchSummary", "summary": "s" * 8, "fromId": "x"}) == 2
    assert estimate_tokens({"role": "custom", "customType": "t", "content": "12345", "display": True}) == 2
    assert estimate_tokens({"role": "mystery"}) == 0


def test_lengths_are_utf16_code_units_like_javascript() -> None:
    # One emoji is two UTF-16 units, "é" is one: 2 + 1 + 1 = 4 units -> 1 token; 5 -> 2.
    assert estimate_tokens({"role": "user", "content": "\U0001f600éa"}) == 1
    assert estimate_tokens({"role": "user", "content": "\U0001f600éab"}) == 2


def test_calculate_context_tokens_prefers_total() -> None:
    assert calculate_context_tokens(usage(100, 5)) == 105
    u = usage(100, 5, total=0)
    u["cacheRead"] = 7
    u["cacheWrite"] = 3
    assert calculate_context_tokens(u) == 115


def test_estimate_context_tokens_anchors_on_last_valid_usage() -> None:
    user = {"role": "user", "content": "x" * 40}  # 10 tokens
    ok = {"role": "assistant", "content": [], "usage": usage(500, 20), "stopReason": "stop"}
    failed = {"role": "assistant", "content": [], "usage": usage(9000, 0), "stopReason": "error"}
    aborted = {"role": "assistant", "content": [], "usage": usage(9000, 0), "stopReason": "aborted"}
    est = estimate_context_tokens([user, ok, user, failed, aborted, user])
    assert est.last_usage_index == 1
    assert est.tokens == 520 + 10 + 0 + 0 + 10
    none = estimate_context_tokens([user, failed])
    assert none.last_usage_index is None and none.tokens == 10


def test_should_compact_is_strict() -> None:
    settings = CompactionSettings()
    # Upstream's observed example: 95100 > 100000 - 16384 = 83616.
    assert should_compact(95100, 100000, settings)
    assert not should_compact(83616, 100000, settings)
    assert should_compact(83617, 100000, settings)
    assert not should_compact(95100, 100000, CompactionSettings(enabled=False))


def test_context_usage_matches_upstream_observations() -> None:
    # Values observed from real pi 1.6 get_session_stats on these very sessions.
    assert calculate_context_usage(load_session("c_tool_bash.session.jsonl"), 128000) == {
        "tokens": 101,
        "contextWindow": 128000,
        "percent": 0.07890625000000001,
    }
    assert calculate_context_usage(load_session("b_text.session.jsonl"), 128000) == {
        "tokens": 104,
        "contextWindow": 128000,
        "percent": 0.08125,
    }
    assert calculate_context_usage([], 128000) == {"tokens": 0, "contextWindow": 128000, "percent": 0}
    assert calculate_context_usage([], 0) is None


def test_context_usage_is_null_after_compaction_until_a_new_reply() -> None:
    b = SessionBuilder()
    u = b.user("hello")
    b.assistant("hi", usage_=usage(5000, 10))
    b.add("compaction", summary="S", firstKeptEntryId=u["id"], tokensBefore=5010)
    assert calculate_context_usage(b.path(), 10000) == {"tokens": None, "contextWindow": 10000, "percent": None}
    b.user("more")
    b.assistant("ok", usage_=usage(700, 3))
    assert calculate_context_usage(b.path(), 10000) == {"tokens": 703, "contextWindow": 10000, "percent": 7.03}
