"""Branch summaries: collecting the abandoned branch and summarizing it."""

from __future__ import annotations

import anyio
import pytest

from pi_rpc.ai.abort import AbortController
from pi_rpc.compaction import (
    BRANCH_SUMMARY_CANCELLED,
    CompactionCancelled,
    CompactionError,
    RetrySettings,
    collect_entries_for_branch_summary,
    generate_branch_summary,
)
from pi_rpc.compaction.prompts import BRANCH_SUMMARY_PREAMBLE

from .conftest import MODEL, ScriptedStream, SessionBuilder, reply, usage

pytestmark = pytest.mark.anyio


def tree() -> tuple[SessionBuilder, dict[str, dict]]:
    """root: model_change -> u1 -> a1 -> (branch A: u2a -> a2a) | (branch B: u2b -> call -> result -> a2b)."""
    b = SessionBuilder()
    n: dict[str, dict] = {}
    n["mc"] = b.add("model_change", provider="fake", modelId="fake-model")
    n["u1"] = b.user("start")
    n["a1"] = b.assistant("ok")
    n["u2a"] = b.user("approach A")
    n["a2a"] = b.assistant("did A")
    b.branch_from(n["a1"]["id"])
    n["u2b"] = b.user("approach B")
    n["call"] = b.assistant("reading", calls=[("c1", "read", {"path": "b.md"}), ("c2", "write", {"path": "out.md"})])
    n["res"] = b.tool_result("c1", "read", "SECRET TOOL OUTPUT")
    n["a2b"] = b.assistant("did B", usage_=usage(10, 2))
    return b, n


def test_collect_entries_between_old_leaf_and_common_ancestor() -> None:
    b, n = tree()
    got = collect_entries_for_branch_summary(b.by_id(), n["a2b"]["id"], n["a2a"]["id"])
    assert got["commonAncestorId"] == n["a1"]["id"]
    assert [e["id"] for e in got["entries"]] == [n[k]["id"] for k in ("u2b", "call", "res", "a2b")]
    # Navigating to an ancestor of the old leaf leaves only what is below it.
    got = collect_entries_for_branch_summary(b.by_id(), n["a2b"]["id"], n["u2b"]["id"])
    assert got["commonAncestorId"] == n["u2b"]["id"]
    assert [e["id"] for e in got["entries"]] == [n[k]["id"] for k in ("call", "res", "a2b")]
    # Target before the first entry: the whole old path.
    got = collect_entries_for_branch_summary(b.by_id(), n["a2a"]["id"], None)
    assert got["commonAncestorId"] is None
    assert [e["id"] for e in got["entries"]] == [n[k]["id"] for k in ("mc", "u1", "a1", "u2a", "a2a")]
    assert collect_entries_for_branch_summary(b.by_id(), None, n["a1"]["id"]) == {
        "entries": [],
        "commonAncestorId": None,
    }


async def test_generate_branch_summary() -> None:
    b, n = tree()
    entries = collect_entries_for_branch_summary(b.by_id(), n["a2b"]["id"], n["a2a"]["id"])["entries"]
    stream = ScriptedStream(reply("## Goal\nTry B.", usage_=usage(40, 8)))
    result = await generate_branch_summary(entries, MODEL, "k", stream_fn=stream)
    assert result["summary"] == (
        BRANCH_SUMMARY_PREAMBLE
        + "## Goal\nTry B."
        + "\n\n<read-files>\nb.md\n</read-files>\n\n<modified-files>\nout.md\n</modified-files>"
    )
    assert result["summary"].startswith(
        "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
    )
    assert result["details"] == {"readFiles": ["b.md"], "modifiedFiles": ["out.md"]}
    assert result["usage"]["totalTokens"] == 48
    prompt = stream.prompt_text()
    assert "[User]: approach B" in prompt and "[Assistant]: did B" in prompt
    assert "SECRET TOOL OUTPUT" not in prompt  # tool results are carried by their calls
    options = stream.calls[0][2]
    assert options.max_tokens == 4096 and options.reasoning is None and options.cache_retention == "none"
    small = {**MODEL, "maxTokens": 1000}
    await generate_branch_summary(entries, small, None, stream_fn=(s := ScriptedStream(reply())))
    assert s.calls[0][2].max_tokens == 1000


async def test_custom_instructions_append_or_replace() -> None:
    b, n = tree()
    entries = collect_entries_for_branch_summary(b.by_id(), n["a2b"]["id"], n["a2a"]["id"])["entries"]
    stream = ScriptedStream(reply(), reply())
    await generate_branch_summary(entries, MODEL, None, custom_instructions="focus on B", stream_fn=stream)
    assert stream.prompt_text(0).endswith("\n\nAdditional focus: focus on B")
    await generate_branch_summary(
        entries, MODEL, None, custom_instructions="ONLY THIS", replace_instructions=True, stream_fn=stream
    )
    assert stream.prompt_text(1).endswith("</conversation>\n\nONLY THIS")


async def test_nothing_to_summarize_makes_no_request() -> None:
    b = SessionBuilder()
    b.add("model_change", provider="fake", modelId="fake-model")
    b.add("label", targetId="x", label="l")
    stream = ScriptedStream()
    result = await generate_branch_summary(b.entries, MODEL, None, stream_fn=stream)
    assert result == {"summary": "No content to summarize", "details": {"readFiles": [], "modifiedFiles": []}}
    assert stream.calls == []


async def test_budget_keeps_the_newest_messages() -> None:
    b = SessionBuilder()
    for i in range(10):
        b.user(f"old{i} " + "x" * 4000)  # ~1000 tokens each
    b.user("newest")
    model = {**MODEL, "contextWindow": 3500}
    stream = ScriptedStream(reply())
    await generate_branch_summary(b.entries, model, None, reserve_tokens=1000, stream_fn=stream)
    prompt = stream.prompt_text()
    # Budget 2500: "newest" plus the two newest big messages fit, the third does not.
    assert "[User]: newest" in prompt and "old9" in prompt and "old8" in prompt and "old7" not in prompt


async def test_summary_entries_still_fit_under_ninety_percent() -> None:
    b = SessionBuilder()
    b.add("branch_summary", fromId="root", summary="EARLIER " + "s" * 8000, details={"readFiles": ["r.txt"]})
    b.user("recent " + "x" * 400)
    model = {**MODEL, "contextWindow": 1500}
    stream = ScriptedStream(reply("S"))
    result = await generate_branch_summary(b.entries, model, None, reserve_tokens=500, stream_fn=stream)
    assert "EARLIER" in stream.prompt_text()
    assert result["details"]["readFiles"] == ["r.txt"]


async def test_failures_raise() -> None:
    b, n = tree()
    entries = [n["u2b"], n["a2b"]]
    with pytest.raises(CompactionError, match=r"^Branch summarization failed: 500 boom$"):
        await generate_branch_summary(
            entries,
            MODEL,
            None,
            stream_fn=ScriptedStream(reply(None, stop="error", error="500 boom")),
            retry_settings=RetrySettings(enabled=False),
        )
    with pytest.raises(CompactionError, match=r"token cap"):
        await generate_branch_summary(entries, MODEL, None, stream_fn=ScriptedStream(reply("x", stop="length")))
    with pytest.raises(CompactionError, match=r"^Branch summarization attempted to call a tool$"):
        await generate_branch_summary(entries, MODEL, None, stream_fn=ScriptedStream(reply("x", tool_call=True)))

    controller = AbortController()
    stream = ScriptedStream("hang")

    async def run() -> None:
        with pytest.raises(CompactionCancelled) as err:
            await generate_branch_summary(entries, MODEL, None, signal=controller.signal, stream_fn=stream)
        assert str(err.value) == BRANCH_SUMMARY_CANCELLED

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await stream.started.wait()
            controller.abort()
