"""prepare_compaction: cut points, split turns, refusals, previous summaries, file tracking."""

from __future__ import annotations

import pytest

from pi_rpc.compaction import (
    ALREADY_COMPACTED,
    NOTHING_TO_COMPACT,
    CompactionError,
    CompactionSettings,
    prepare_compaction,
    prepare_compaction_or_raise,
)

from .conftest import SessionBuilder, load_session, usage

TURN_CHARS = 4000  # 1000 estimated tokens per message


def add_turns(b: SessionBuilder, first: int, last: int, *, assistant_usage: int = 0) -> dict[int, dict]:
    users = {}
    for i in range(first, last + 1):
        users[i] = b.user(f"u{i:02d}".ljust(TURN_CHARS, "."))
        b.assistant(f"a{i:02d}".ljust(TURN_CHARS, "."), usage_=usage(assistant_usage or 1000 * i, 0))
    return users


def texts(messages: list[dict]) -> list[str]:
    out = []
    for m in messages:
        if m["role"] == "toolResult":
            out.append("result:" + m["toolCallId"])
        elif isinstance(m.get("content"), list) and m["content"] and m["content"][0]["type"] == "text":
            out.append(m["content"][0]["text"][:3])
        else:
            out.append(m["role"])
    return out


# --------------------------------------------------------------------------- real session


def test_real_session_too_small_is_nothing_to_compact() -> None:
    path = load_session("c_tool_bash.session.jsonl")
    assert prepare_compaction(path, CompactionSettings()) is None
    with pytest.raises(CompactionError) as err:
        prepare_compaction_or_raise(path, CompactionSettings())
    assert str(err.value) == NOTHING_TO_COMPACT == "Nothing to compact (session too small)"


def test_real_session_tiny_budget_splits_the_last_turn() -> None:
    path = load_session("c_tool_bash.session.jsonl")
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=1))
    assert prep is not None
    # The newest entry alone fills the budget: keep the final reply, summarize the rest of
    # its turn ("Run two commands in parallel" + two calls + two results) as a prefix.
    assert prep.first_kept_entry_id == "35b1d70b"
    assert prep.is_split_turn
    assert [m["role"] for m in prep.turn_prefix_messages] == ["user", "assistant", "toolResult", "toolResult"]
    assert prep.turn_prefix_messages[0]["content"][0]["text"] == "Run two commands in parallel"
    # Earlier turns are the history; the system message is never summarized.
    assert len(prep.messages_to_summarize) == 16
    assert prep.messages_to_summarize[0]["content"][0]["text"] == "Run echo hi"
    assert all(m["role"] != "system" for m in prep.messages_to_summarize)
    assert prep.tokens_before == 101  # the last reply's reported usage
    assert prep.previous_summary is None
    assert prep.file_ops.details() == {"readFiles": [], "modifiedFiles": []}  # bash is not tracked


def test_budget_crossed_on_a_tool_result_keeps_the_next_reply() -> None:
    path = load_session("c_tool_bash.session.jsonl")
    # "Both ran." (3 tokens) + tool result "two\n" (1 token) reaches 4 on the tool result;
    # the cut moves forward to the next valid cut point, never onto the tool result.
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=4))
    assert prep is not None and prep.first_kept_entry_id == "35b1d70b"


# --------------------------------------------------------------------------- synthetic long sessions


def test_long_session_cuts_at_the_turn_that_fills_keep_recent_tokens() -> None:
    b = SessionBuilder()
    b.add("model_change", provider="fake", modelId="fake-model")
    b.add("thinking_level_change", thinkingLevel="off")
    users = add_turns(b, 1, 30)
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=20000))
    assert prep is not None
    # 10 turns x 2000 tokens = 20000 reached exactly at turn 21's user message.
    assert prep.first_kept_entry_id == users[21]["id"]
    assert not prep.is_split_turn and prep.turn_prefix_messages == []
    assert len(prep.messages_to_summarize) == 40
    assert texts(prep.messages_to_summarize)[:2] == ["u01", "a01"]
    assert texts(prep.messages_to_summarize)[-2:] == ["u20", "a20"]
    assert prep.tokens_before == 30000  # turn 30's reported usage
    # Kept: turns 21-30 (20 x 1000 tokens), nothing else in context.
    assert prep.kept_tokens == 20000


def test_settings_entries_before_the_cut_stay_with_the_kept_tail() -> None:
    b = SessionBuilder()
    add_turns(b, 1, 5)
    model_change = b.add("model_change", provider="fake", modelId="other")
    b.add("thinking_level_change", thinkingLevel="high")
    b.add("label", targetId=model_change["id"], label="switch")
    add_turns(b, 6, 7)
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=4000))
    assert prep is not None
    assert prep.first_kept_entry_id == model_change["id"]
    assert texts(prep.messages_to_summarize)[-1] == "a05"


def test_oversized_turn_is_split_and_its_prefix_summarized_separately() -> None:
    b = SessionBuilder()
    add_turns(b, 1, 3)
    b.user("refactor everything")
    calls = {}
    for i in range(1, 11):
        calls[i] = b.assistant(calls=[(f"c{i}", "read", {"path": f"f{i:02d}.txt"})])
        b.tool_result(f"c{i}", "read", "r" * 8000)  # 2000 tokens each
    b.assistant("done")
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=5000))
    assert prep is not None
    # done(1) + r10(2000) + c10(6) + r9(2000) + c9(6) + r8(2000) crosses 5000 on result 8;
    # the next cut point is call 9.
    assert prep.first_kept_entry_id == calls[9]["id"]
    assert prep.is_split_turn
    assert texts(prep.messages_to_summarize) == ["u01", "a01", "u02", "a02", "u03", "a03"]
    prefix_roles = [m["role"] for m in prep.turn_prefix_messages]
    assert prefix_roles == ["user"] + ["assistant", "toolResult"] * 8
    # Files read in the summarized part (prefix included), not in the kept part.
    assert prep.file_ops.details()["readFiles"] == [f"f{i:02d}.txt" for i in range(1, 9)]


def test_tool_result_as_newest_entry_keeps_its_call() -> None:
    b = SessionBuilder()
    add_turns(b, 1, 2)
    b.user("read it")
    call = b.assistant(calls=[("c1", "read", {"path": "big.txt"})])
    b.tool_result("c1", "read", "z" * 40000)  # 10000 tokens, alone over budget
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=5000))
    assert prep is not None
    assert prep.first_kept_entry_id == call["id"]
    assert prep.is_split_turn and [m["role"] for m in prep.turn_prefix_messages] == ["user"]


def test_already_compacted() -> None:
    b = SessionBuilder()
    users = add_turns(b, 1, 3)
    b.add("compaction", summary="S", firstKeptEntryId=users[3]["id"], tokensBefore=3000)
    assert prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=1)) is None
    with pytest.raises(CompactionError) as err:
        prepare_compaction_or_raise(b.path(), CompactionSettings(keep_recent_tokens=1))
    assert str(err.value) == ALREADY_COMPACTED == "Already compacted"


def test_empty_branch_is_nothing_to_compact() -> None:
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        prepare_compaction_or_raise([], CompactionSettings())


def test_second_compaction_updates_previous_summary_and_covers_its_kept_tail() -> None:
    b = SessionBuilder()
    users = add_turns(b, 1, 5, assistant_usage=9000)
    b.add(
        "compaction",
        summary="PREVIOUS",
        firstKeptEntryId=users[4]["id"],
        tokensBefore=9000,
        details={"readFiles": ["a.txt", "b.txt"], "modifiedFiles": ["m.txt"]},
        fromHook=False,
    )
    add_turns(b, 6, 6)
    b.user("u07".ljust(TURN_CHARS, "."))
    b.assistant("a07".ljust(TURN_CHARS, "."), calls=[("c", "edit", {"path": "b.txt"})], usage_=usage(12345, 0))
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=4000))
    assert prep is not None
    assert prep.previous_summary == "PREVIOUS"
    assert prep.tokens_before == 12345
    # The previous compaction kept turns 4-5 verbatim; they are summarized now.
    assert texts(prep.messages_to_summarize) == ["u04", "a04", "u05", "a05"]
    assert texts(prep.kept_messages) == ["u06", "a06", "u07", "a07"]
    # Carried over from the previous summary; the edit of b.txt sits in the kept part, which
    # is not summarized, so it does not count yet.
    assert prep.file_ops.details() == {"readFiles": ["a.txt", "b.txt"], "modifiedFiles": ["m.txt"]}


def test_usage_from_before_a_compaction_is_not_trusted() -> None:
    b = SessionBuilder()
    users = add_turns(b, 1, 3, assistant_usage=90000)
    b.add("compaction", summary="s" * 400, firstKeptEntryId=users[3]["id"], tokensBefore=90000)
    b.user("x" * 400)
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=1))
    assert prep is not None
    # Pure estimate: summary 100 + kept turn 3 (2000) + new user 100.
    assert prep.tokens_before == 100 + 2000 + 100


def test_file_tracking_rules() -> None:
    b = SessionBuilder()
    b.add(
        "compaction",
        summary="hook summary",
        firstKeptEntryId="missing",
        tokensBefore=1,
        details={"readFiles": ["from-hook.txt"], "modifiedFiles": []},
        fromHook=True,
    )
    b.user("go")
    b.assistant(
        calls=[
            ("1", "read", {"path": "z.txt"}),
            ("2", "read", {"path": "a.txt"}),
            ("3", "edit", {"path": "a.txt", "edits": []}),
            ("4", "write", {"path": "new.txt", "content": "x"}),
            ("5", "bash", {"command": "cat q.txt"}),
            ("6", "read", {"path": 42}),
        ]
    )
    b.tool_result("1", "read", "ok")
    b.assistant("done")
    b.user("next")
    b.assistant("ok")
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=1))
    assert prep is not None
    assert prep.previous_summary == "hook summary"
    assert prep.file_ops.details() == {"readFiles": ["z.txt"], "modifiedFiles": ["a.txt", "new.txt"]}


def test_context_edits_apply_before_summarizing() -> None:
    b = SessionBuilder()
    add_turns(b, 1, 2)
    b.user("u03 try")
    failed = b.assistant(stop="error", error="503 overloaded")
    b.add("context_edit", targetId=failed["id"], replacement=None)
    retried = b.assistant("a03 fine")
    b.add("context_edit", targetId=retried["id"], replacement={"content": [{"type": "text", "text": "a03 edited"}]})
    add_turns(b, 4, 5)
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=4000))
    assert prep is not None
    summarized = prep.messages_to_summarize
    assert all(m.get("stopReason") != "error" for m in summarized)
    assert [m["content"][0]["text"] for m in summarized if m["role"] == "assistant"][-1] == "a03 edited"
