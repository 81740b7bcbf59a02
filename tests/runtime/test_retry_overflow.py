"""Automatic retry (reference §3.3 E, §2.19) and context-overflow recovery (§3.3 F)."""

from __future__ import annotations

from tests.support.pi_process import kinds

FAST_RETRY = {"retry": {"baseDelayMs": 20, "maxRetries": 3}}
OVERLOADED = {"error": {"status": 503, "body": "Service overloaded"}}


def test_e_retry_succeeds_on_first_attempt(pi):
    p = pi(script=[OVERLOADED, {"text": "Recovered."}], settings=FAST_RETRY)
    p.cmd("prompt", message="hi")
    p.settle()
    seq = kinds(p.records)
    assert seq[1:] == [
        "agent_start",
        "turn_start",
        "message_start:system",
        "message_end:system",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "auto_retry_start",
        "entry_appended",
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "auto_retry_end",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    failed = p.wait_for("message_end", start=6)["message"]
    failed = [r for r in p.records if r["type"] == "message_end" and r["message"]["role"] == "assistant"][0]["message"]
    assert failed["stopReason"] == "error" and failed["errorMessage"].startswith("503")
    ends = [r for r in p.records if r["type"] == "agent_end"]
    assert [e["willRetry"] for e in ends] == [True, False]
    start = p.wait_for("auto_retry_start")
    assert start == {
        "type": "auto_retry_start",
        "attempt": 1,
        "maxAttempts": 3,
        "delayMs": 20,
        "errorMessage": failed["errorMessage"],
    }
    edit = p.wait_for("entry_appended")["entry"]
    assert edit["type"] == "context_edit"
    entries = p.ok("get_entries")["entries"]
    failed_entry = [e for e in entries if e["type"] == "message" and e["message"].get("stopReason") == "error"][0]
    assert edit == [e for e in entries if e["type"] == "context_edit"][0]
    assert failed_entry["id"] in str(edit)
    assert p.wait_for("auto_retry_end") == {"type": "auto_retry_end", "success": True, "attempt": 1}
    assert p.wait_for("agent_settled")["aborted"] is False
    # The failed reply is gone from the context; the user message is not repeated.
    roles = [(m["role"], m.get("stopReason")) for m in p.ok("get_messages")["messages"]]
    assert roles == [("system", None), ("user", None), ("assistant", "stop")]


def test_e_retries_exhausted(pi):
    p = pi(script=[OVERLOADED] * 3, settings={"retry": {"baseDelayMs": 10, "maxRetries": 2}})
    p.cmd("prompt", message="hi")
    p.settle()
    seq = kinds(p.records)
    assert seq.count("agent_end") == 3 and seq.count("auto_retry_start") == 2
    ends = [r["willRetry"] for r in p.records if r["type"] == "agent_end"]
    assert ends == [True, True, False]
    starts = [r for r in p.records if r["type"] == "auto_retry_start"]
    assert [(s["attempt"], s["delayMs"]) for s in starts] == [(1, 10), (2, 20)]
    assert seq[-3:] == ["agent_end", "auto_retry_end", "agent_settled"]
    end = p.wait_for("auto_retry_end")
    assert end == {"type": "auto_retry_end", "success": False, "attempt": 2, "finalError": "503 Service overloaded"}
    # A later success starts counting from 1 again.
    mark = p.mark()
    p.cmd("prompt", message="again")
    p.settle(mark)
    assert "auto_retry_start" not in kinds(p.since(mark))


def test_abort_retry_cancels_backoff(pi):
    p = pi(script=[OVERLOADED, {"text": "never"}], settings={"retry": {"baseDelayMs": 5000}})
    p.cmd("prompt", message="hi")
    p.wait_for("auto_retry_start")
    ar = p.request("abort_retry")
    p.settle()
    p.response(ar)
    seq = kinds(p.records)
    i = seq.index("auto_retry_end")
    assert seq[i:] == ["auto_retry_end", f"response:{ar}", "agent_settled"]
    assert p.wait_for("auto_retry_end") == {
        "type": "auto_retry_end",
        "success": False,
        "attempt": 1,
        "finalError": "Retry cancelled",
    }
    assert p.wait_for("agent_settled")["aborted"] is False
    assert p.ok("get_state")["isStreaming"] is False


def test_abort_during_retry_backoff(pi):
    p = pi(script=[OVERLOADED, {"text": "never"}], settings={"retry": {"baseDelayMs": 5000}})
    p.cmd("prompt", message="hi")
    p.wait_for("auto_retry_start")
    ab = p.request("abort")
    p.response(ab)
    seq = kinds(p.records)
    i = seq.index("auto_retry_end")
    assert seq[i:] == ["auto_retry_end", "agent_settled", f"response:{ab}"]
    assert p.wait_for("agent_settled")["aborted"] is True


def test_retry_disabled_by_setting_command(pi):
    p = pi(script=[OVERLOADED, {"text": "unused"}], settings=FAST_RETRY)
    p.ok("set_auto_retry", enabled=False)
    p.cmd("prompt", message="hi")
    p.settle()
    seq = kinds(p.records)
    assert "auto_retry_start" not in seq and seq.count("agent_end") == 1
    assert p.wait_for("agent_end")["willRetry"] is False


def test_non_retryable_error_is_not_retried(pi):
    p = pi(script=[{"error": {"status": 401, "body": "invalid api key"}}], settings=FAST_RETRY)
    p.cmd("prompt", message="hi")
    p.settle()
    assert "auto_retry_start" not in kinds(p.records)


OVERFLOW = {
    "error": {
        "status": 400,
        "body": "This model's maximum context length is 128000 tokens. "
        "However, your messages resulted in 130000 tokens.",
    }
}


def test_f_overflow_recovery_compacts_and_reruns(pi):
    # Enough history that compaction has something to summarize.
    script = [
        {"text": "first answer " * 20},
        {"text": "second answer " * 20},
        OVERFLOW,
        {"text": "PREFIX", "match": "first part of a single long turn"},
        {"text": "SUMMARY", "match": "<conversation>"},
        {"text": "after recovery"},
    ]
    p = pi(script=script, settings={"compaction": {"keepRecentTokens": 10}})
    for text in ("one", "two"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    mark = p.mark()
    p.cmd("prompt", message="three")
    p.settle(mark, timeout=20)
    seq = kinds(p.since(mark))
    i = seq.index("agent_end")
    assert seq[i:] == [
        "agent_end",
        "entry_appended",
        "compaction_start",
        "compaction_end",
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    ends = [r for r in p.since(mark) if r["type"] == "agent_end"]
    assert [e["willRetry"] for e in ends] == [False, False]
    assert p.wait_for("compaction_start", start=mark) == {"type": "compaction_start", "reason": "overflow"}
    cend = p.wait_for("compaction_end", start=mark)
    assert cend["reason"] == "overflow" and cend["willRetry"] is True and cend["aborted"] is False
    assert cend["result"]["summary"].startswith("SUMMARY")
    assert "after recovery" not in cend["result"]["summary"]
    assert "errorMessage" not in cend
    assert p.wait_for("entry_appended", start=mark)["entry"]["type"] == "context_edit"
    assert p.ok("get_last_assistant_text") == {"text": "after recovery"}
    messages = p.ok("get_messages")["messages"]
    assert "compactionSummary" in [m["role"] for m in messages]
    assert not any(m.get("stopReason") == "error" for m in messages)


def test_f_overflow_twice_gives_up(pi):
    script = [
        {"text": "first answer " * 20},
        OVERFLOW,
        {"text": "PREFIX", "match": "first part of a single long turn"},
        {"text": "SUMMARY", "match": "<conversation>"},
        OVERFLOW,
    ]
    p = pi(script=script, settings={"compaction": {"keepRecentTokens": 10}})
    p.cmd("prompt", message="one")
    p.settle()
    mark = p.mark()
    p.cmd("prompt", message="two")
    p.settle(mark, timeout=20)
    ends = [r for r in p.since(mark) if r["type"] == "compaction_end"]
    assert len(ends) == 2
    assert ends[1] == {
        "type": "compaction_end",
        "reason": "overflow",
        "aborted": False,
        "willRetry": False,
        "errorMessage": "Context overflow recovery failed after one compact-and-retry attempt. "
        "Try reducing context or switching to a larger-context model.",
    }
    assert kinds(p.since(mark)).count("compaction_start") == 1
