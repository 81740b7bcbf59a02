"""Threshold auto-compaction (reference §3.3 G) and manual ``compact`` (§2.16, §3.3 H)."""

from __future__ import annotations

from tests.support.pi_process import kinds
from tests.support.session_stores import stored_lines

SUMMARY = {"text": "SUMMARY OF WORK", "match": "<conversation>"}
PREFIX = {"text": "PREFIX NOTE", "match": "first part of a single long turn"}
SMALL_WINDOW = {"providers": {"faux": {"modelOverrides": {"faux-1": {"contextWindow": 4000}}}}}
SETTINGS = {"compaction": {"reserveTokens": 1000, "keepRecentTokens": 1}}


def test_g_threshold_compaction_after_run(pi, store_kind):
    """On both session backends: the compaction entry is stored as the response shows it."""
    pi = store_kind.starter(pi)
    script = [
        PREFIX,
        SUMMARY,
        {"text": "first answer " * 10},
        {"text": "big answer", "usage": {"input": 3500, "output": 10}},
        {"text": "later"},
    ]
    p = pi(script=script, models=SMALL_WINDOW, settings=SETTINGS)
    assert p.ok("get_state")["model"]["contextWindow"] == 4000
    p.cmd("prompt", message="one")
    p.settle()
    assert "compaction_start" not in kinds(p.records)
    mark = p.mark()
    p.cmd("prompt", message="two")
    p.settle(mark, timeout=20)
    seq = kinds(p.since(mark))
    assert seq[-4:] == ["agent_end", "compaction_start", "compaction_end", "agent_settled"]
    assert p.wait_for("compaction_start", start=mark) == {"type": "compaction_start", "reason": "threshold"}
    end = p.wait_for("compaction_end", start=mark)
    assert end["reason"] == "threshold" and end["aborted"] is False and end["willRetry"] is False
    result = end["result"]
    assert result["summary"].startswith("SUMMARY OF WORK")
    assert set(result) >= {"summary", "firstKeptEntryId", "tokensBefore"}
    entries = p.ok("get_entries")["entries"]
    compaction = [e for e in entries if e["type"] == "compaction"]
    assert len(compaction) == 1 and compaction[0]["firstKeptEntryId"] == result["firstKeptEntryId"]
    assert stored_lines(p.ok("get_state")["sessionFile"])[1:] == entries
    roles = [m["role"] for m in p.ok("get_messages")["messages"]]
    assert "compactionSummary" in roles
    stats = p.ok("get_session_stats")
    assert stats["contextUsage"] == {"tokens": None, "contextWindow": 4000, "percent": None}
    # The next run goes on normally from the compacted context.
    mark = p.mark()
    p.cmd("prompt", message="three")
    p.settle(mark)
    assert p.ok("get_last_assistant_text") == {"text": "later"}


def test_g_threshold_compaction_before_prompt_response(pi):
    script = [
        PREFIX,
        SUMMARY,
        {"text": "first answer " * 10},
        {"text": "big answer", "usage": {"input": 3500, "output": 10}},
        {"text": "after"},
    ]
    p = pi(script=script, models=SMALL_WINDOW, settings=SETTINGS)
    p.ok("set_auto_compaction", enabled=False)
    for text in ("one", "two"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    assert "compaction_start" not in kinds(p.records)
    p.ok("set_auto_compaction", enabled=True)
    mark = p.mark()
    pr = p.request("prompt", message="three")
    p.settle(mark, timeout=20)
    seq = kinds(p.since(mark))
    assert seq[:4] == ["compaction_start", "compaction_end", f"response:{pr}", "agent_start"]
    assert p.wait_for("compaction_end", start=mark)["reason"] == "threshold"


def test_h_manual_compact(pi, store_kind):
    p = store_kind.starter(pi)(
        script=[PREFIX, SUMMARY, {"text": "answer one " * 10}, {"text": "answer two " * 10}],
        settings={"compaction": {"keepRecentTokens": 10}},
    )
    for text in ("one", "two"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    mark = p.mark()
    c = p.request("compact", customInstructions="focus on answers")
    resp = p.response(c, timeout=20)
    seq = kinds(p.since(mark))
    assert seq == ["compaction_start", "compaction_end", f"response:{c}"]
    assert p.records[mark] == {"type": "compaction_start", "reason": "manual"}
    end = p.records[mark + 1]
    assert end["reason"] == "manual" and end["aborted"] is False and end["willRetry"] is False
    assert resp["success"] is True and resp["data"] == end["result"]
    assert resp["data"]["summary"].startswith("SUMMARY OF WORK")
    # The provider layer's usage keeps every field (upstream keeps cost.totalFromProvider).
    usage = resp["data"]["usage"]
    assert list(usage) == ["input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens", "cost"]
    assert usage["cost"]["totalFromProvider"] is False
    assert resp["data"]["details"] == {"readFiles": [], "modifiedFiles": []} or "details" in resp["data"]
    messages = p.ok("get_messages")["messages"]
    summary = [m for m in messages if m["role"] == "compactionSummary"]
    assert len(summary) == 1 and summary[0]["summary"] == resp["data"]["summary"]
    assert summary[0]["tokensBefore"] == resp["data"]["tokensBefore"]
    state = p.ok("get_state")
    assert state["messageCount"] == len(messages) and state["isCompacting"] is False
    # Compacting again right away: the branch already ends with a compaction.
    mark = p.mark()
    again = p.cmd("compact")
    assert again["success"] is False and again["error"] == "Already compacted"
    end = p.wait_for("compaction_end", start=mark)
    assert end["errorMessage"] == "Compaction failed: Already compacted" and "result" not in end


def test_h_compact_nothing_to_compact(pi):
    p = pi()
    c = p.request("compact")
    resp = p.response(c)
    assert resp["success"] is False and resp["error"] == "Nothing to compact (session too small)"
    assert kinds(p.records) == ["compaction_start", "compaction_end", f"response:{c}"]
    assert p.records[1] == {
        "type": "compaction_end",
        "reason": "manual",
        "aborted": False,
        "willRetry": False,
        "errorMessage": "Compaction failed: Nothing to compact (session too small)",
    }


def test_h_compact_while_streaming_aborts_the_run_first(pi):
    p = pi(
        script=[PREFIX, SUMMARY, {"text": "answer one " * 10}, {"text": "slow " * 50, "delayMs": 40, "chunkChars": 5}],
        settings={"compaction": {"keepRecentTokens": 10}},
    )
    p.cmd("prompt", message="one")
    p.settle()
    mark = p.mark()
    p.cmd("prompt", message="two")
    p.wait_for(lambda r: r["type"] == "message_update", start=mark)
    c = p.request("compact")
    resp = p.response(c, timeout=20)
    assert resp["success"] is True
    seq = kinds(p.since(mark))
    i = seq.index("agent_settled")
    assert seq[i - 2 :] == [
        "turn_end",
        "agent_end",
        "agent_settled",
        "compaction_start",
        "compaction_end",
        f"response:{c}",
    ]
    assert p.wait_for("agent_settled", start=mark)["aborted"] is True
    assert p.ok("get_state")["isStreaming"] is False


def test_manual_compaction_in_progress_rejects_prompt_and_abort_cancels(pi):
    slow_summary = {"text": "SLOW SUMMARY " * 20, "match": "<conversation>", "delayMs": 40, "chunkChars": 5}
    p = pi(
        script=[PREFIX, slow_summary, {"text": "answer one " * 10}, {"text": "answer two " * 10}],
        settings={"compaction": {"keepRecentTokens": 1}},
    )
    for text in ("one", "two"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    mark = p.mark()
    c = p.request("compact")
    p.wait_for("compaction_start", start=mark)
    assert p.ok("get_state")["isCompacting"] is True
    busy = p.cmd("prompt", message="while compacting")
    assert busy["success"] is False
    assert busy["error"] == (
        "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry."
    )
    ab = p.request("abort")
    p.response(ab)
    resp = p.response(c)
    assert resp["success"] is False and resp["error"] == "Compaction cancelled"
    end = p.wait_for("compaction_end", start=mark)
    assert end == {"type": "compaction_end", "reason": "manual", "aborted": True, "willRetry": False}
    seq = kinds(p.since(mark))
    assert seq.index("compaction_end") < seq.index(f"response:{ab}")
    assert not [e for e in p.ok("get_entries")["entries"] if e["type"] == "compaction"]
    assert p.ok("get_state")["isCompacting"] is False


def test_g_message_queued_during_threshold_compaction_runs_in_same_settled_run(pi):
    slow_summary = {"text": "SUMMARY OF WORK " * 10, "match": "<conversation>", "delayMs": 30, "chunkChars": 8}
    script = [
        PREFIX,
        slow_summary,
        {"text": "first answer " * 10},
        {"text": "big answer", "usage": {"input": 3500, "output": 10}},
        {"text": "steer answer"},
    ]
    p = pi(script=script, models=SMALL_WINDOW, settings=SETTINGS)
    p.cmd("prompt", message="one")
    p.settle()
    mark = p.mark()
    p.cmd("prompt", message="two")
    p.wait_for("compaction_start", start=mark)
    s = p.request("steer", message="during compaction")
    p.settle(mark, timeout=20)
    seq = kinds(p.since(mark))
    assert "compaction_start" in seq
    assert seq.count("agent_settled") == 1 and seq.count("agent_start") == 2
    assert seq.index(f"response:{s}") < seq.index("compaction_end")
    tail = seq[seq.index("compaction_end") :]
    assert tail == [
        "compaction_end",
        "agent_start",
        "turn_start",
        "queue_update",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    assert p.ok("get_last_assistant_text") == {"text": "steer answer"}
    assert p.ok("get_state")["pendingMessageCount"] == 0


def test_g_threshold_compaction_between_turns_inside_a_run(pi):
    script = [
        PREFIX,
        SUMMARY,
        {"text": "first answer " * 10},
        {
            "toolCalls": [{"id": "t1", "name": "bash", "arguments": {"command": "echo tool"}}],
            "usage": {"input": 3500, "output": 10},
        },
        {"text": "final after compaction"},
    ]
    p = pi(script=script, models=SMALL_WINDOW, settings=SETTINGS)
    p.cmd("prompt", message="one")
    p.settle()
    mark = p.mark()
    p.cmd("prompt", message="two")
    p.settle(mark, timeout=20)
    seq = kinds(p.since(mark))
    i = seq.index("compaction_start")
    assert seq[i - 3 : i] == ["message_start:toolResult", "message_end:toolResult", "turn_end"]
    assert seq[i:] == [
        "compaction_start",
        "compaction_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    assert seq.count("agent_start") == 1
    assert p.wait_for("compaction_end", start=mark)["reason"] == "threshold"
    assert p.ok("get_last_assistant_text") == {"text": "final after compaction"}
    messages = p.ok("get_messages")["messages"]
    roles = [m["role"] for m in messages]
    assert "compactionSummary" in roles and roles[-1] == "assistant"
    # the tool call and its result survive the compaction, still paired
    assert roles[-3:] == ["assistant", "toolResult", "assistant"]


def test_h_summary_request_retried_with_summarization_retry_events(pi):
    # The first summary request fails with a retryable 503, the retry succeeds.
    failing = {"error": {"status": 503, "body": "overloaded"}, "match": "<conversation>"}
    p = pi(
        script=[PREFIX, failing, SUMMARY, {"text": "answer one " * 10}, {"text": "answer two " * 10}],
        settings={"compaction": {"keepRecentTokens": 10}, "retry": {"baseDelayMs": 20}},
    )
    for text in ("one", "two"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    mark = p.mark()
    c = p.request("compact")
    resp = p.response(c, timeout=20)
    assert resp["success"] is True and resp["data"]["summary"].startswith("SUMMARY OF WORK")
    seq = kinds(p.since(mark))
    assert seq == [
        "compaction_start",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
        "compaction_end",
        f"response:{c}",
    ]
    scheduled = p.records[mark + 1]
    assert scheduled == {
        "type": "summarization_retry_scheduled",
        "attempt": 1,
        "maxAttempts": 3,
        "delayMs": 20,
        "errorMessage": "503 overloaded",
    }
    assert p.records[mark + 2] == {
        "type": "summarization_retry_attempt_start",
        "source": "compaction",
        "reason": "manual",
    }
    assert p.records[mark + 3] == {"type": "summarization_retry_finished"}


def test_h_summary_failure_writes_nothing(pi):
    # A summary that calls a tool is not a summary: compaction fails and nothing is written.
    tool_reply = {"toolCalls": [{"name": "bash", "arguments": {"command": "ls"}}], "match": "<conversation>"}
    p = pi(
        script=[PREFIX, tool_reply, {"text": "answer one " * 10}, {"text": "answer two " * 10}],
        settings={"compaction": {"keepRecentTokens": 10}},
    )
    for text in ("one", "two"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    before = p.ok("get_entries")["entries"]
    mark = p.mark()
    resp = p.cmd("compact")
    assert resp["success"] is False and "tool" in resp["error"]
    end = p.wait_for("compaction_end", start=mark)
    assert end["errorMessage"].startswith("Compaction failed: ") and "result" not in end
    assert p.ok("get_entries")["entries"] == before
