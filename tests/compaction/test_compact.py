"""compact(): the summary request, completeness rules, abort, retries, result shape."""

from __future__ import annotations

import anyio
import pytest

from pi_rpc.ai.abort import AbortController
from pi_rpc.compaction import (
    COMPACTION_CANCELLED,
    CompactionCancelled,
    CompactionError,
    CompactionSettings,
    RetrySettings,
    build_compaction_entry_fields,
    prepare_compaction,
)
from pi_rpc.compaction.compact import compact
from pi_rpc.compaction.prompts import SUMMARIZER_SYSTEM_PROMPT

from .conftest import MODEL, ScriptedStream, SessionBuilder, load_session, reply, usage

pytestmark = pytest.mark.anyio

FAST_RETRY = RetrySettings(enabled=True, max_retries=3, base_delay_ms=1, max_delay_ms=1)


def simple_preparation(keep: int = 2000, **settings_kwargs):
    b = SessionBuilder()
    for i in range(1, 5):
        b.user(f"question {i} " + "q" * 4000)
        b.assistant(f"answer {i} " + "a" * 4000, usage_=usage(1000 * i, 10))
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=keep, **settings_kwargs))
    assert prep is not None and not prep.is_split_turn
    return prep


async def test_success_builds_a_tool_less_uncached_request() -> None:
    prep = simple_preparation()
    stream = ScriptedStream(reply("## Goal\nShip it.", usage_=usage(300, 40, cost=0.5)))
    result = await compact(prep, MODEL, "key-1", stream_fn=stream)

    assert list(result) == ["summary", "firstKeptEntryId", "tokensBefore", "estimatedTokensAfter", "usage", "details"]
    assert result["summary"] == "## Goal\nShip it."
    assert result["firstKeptEntryId"] == prep.first_kept_entry_id
    assert result["tokensBefore"] == prep.tokens_before == 4010
    assert result["usage"]["totalTokens"] == 340 and result["usage"]["cost"]["total"] == 0.5
    assert result["details"] == {"readFiles": [], "modifiedFiles": []}
    assert result["estimatedTokensAfter"] == prep.kept_tokens + 4  # 16-char summary -> 4 tokens

    (model, context, options) = stream.calls[0]
    assert model is MODEL
    assert context.system_prompt == SUMMARIZER_SYSTEM_PROMPT and context.tools == []
    assert options.api_key == "key-1"
    assert options.cache_retention == "none"
    assert options.max_tokens == 4096  # floor(0.8 * 16384) = 13107, capped by the model
    assert options.reasoning is None and options.session_id
    prompt = stream.prompt_text()
    assert prompt.startswith("<conversation>\n[User]: question 1 ")
    assert "\n\n[Assistant]: answer 1 " in prompt
    assert "<previous-summary>" not in prompt and "Additional focus" not in prompt
    # The kept part is not sent.
    assert "question 4" not in prompt
    assert stream.closed == 1


async def test_max_tokens_follows_reserve_and_reasoning_follows_thinking_level() -> None:
    prep = simple_preparation(reserve_tokens=1000)
    stream = ScriptedStream(reply())
    model = {**MODEL, "reasoning": True, "maxTokens": 0}
    await compact(prep, model, None, stream_fn=stream, thinking_level="high", session_id="sess-1")
    options = stream.calls[0][2]
    assert options.max_tokens == 800 and options.reasoning == "high" and options.session_id == "sess-1"


async def test_previous_summary_and_custom_instructions_reach_the_prompt() -> None:
    b = SessionBuilder()
    u1 = b.user("one " + "x" * 4000)
    b.assistant("r1 " + "y" * 4000)
    b.add("compaction", summary="OLD CHECKPOINT", firstKeptEntryId=u1["id"], tokensBefore=5)
    b.user("two " + "x" * 4000)
    b.assistant("r2 " + "y" * 4000)
    b.user("three " + "x" * 4000)
    b.assistant("r3 " + "y" * 4000)
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=2000))
    assert prep is not None and prep.previous_summary == "OLD CHECKPOINT"
    stream = ScriptedStream(reply("NEW"))
    await compact(prep, MODEL, None, custom_instructions="the database schema", stream_fn=stream)
    prompt = stream.prompt_text()
    assert "<previous-summary>\nOLD CHECKPOINT\n</previous-summary>\n\n" in prompt
    assert prompt.index("</conversation>") < prompt.index("<previous-summary>")
    assert prompt.endswith("\n\nAdditional focus: the database schema")
    assert "[User]: one " in prompt and "[User]: two " in prompt and "[User]: three" not in prompt


async def test_split_turn_makes_two_requests_and_sums_usage() -> None:
    path = load_session("c_tool_bash.session.jsonl")
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=1))
    assert prep is not None and prep.is_split_turn
    stream = ScriptedStream(
        reply("HISTORY", usage_=usage(100, 10, cost=0.25)), reply("PREFIX", usage_=usage(50, 5, cost=0.5))
    )
    result = await compact(prep, MODEL, None, stream_fn=stream)
    assert len(stream.calls) == 2
    prompts = {stream.prompt_text(0), stream.prompt_text(1)}
    history_prompt = next(p for p in prompts if "Run echo hi" in p)
    prefix_prompt = next(p for p in prompts if p is not history_prompt)
    assert "Run two commands in parallel" in prefix_prompt and "Run echo hi" not in prefix_prompt
    assert '[Assistant tool calls]: bash(command="echo one"); bash(command="echo two")' in prefix_prompt
    # Which reply answers which prompt depends on scheduling; the merge order does not.
    assert result["summary"] in (
        "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX",
        "PREFIX\n\n---\n\n**Turn Context (split turn):**\n\nHISTORY",
    )
    assert result["usage"]["input"] == 150 and result["usage"]["output"] == 15
    assert result["usage"]["totalTokens"] == 165 and result["usage"]["cost"]["total"] == 0.75
    prefix_options = next(c[2] for c in stream.calls if "Run echo hi" not in c[1].messages[0]["content"][0]["text"])
    assert prefix_options.max_tokens == 4096  # floor(0.5 * 16384) = 8192, capped by the model


async def test_split_turn_without_history_uses_previous_summary_text() -> None:
    b = SessionBuilder()
    b.user("big task")
    for i in range(3):
        b.assistant(calls=[(f"c{i}", "read", {"path": f"p{i}"})])
        b.tool_result(f"c{i}", "read", "r" * 8000)
    b.assistant("done")
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=3000))
    assert prep is not None and prep.is_split_turn and prep.messages_to_summarize == []
    stream = ScriptedStream(reply("PREFIX"))
    result = await compact(prep, MODEL, None, stream_fn=stream)
    assert len(stream.calls) == 1
    assert result["summary"].startswith("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")
    assert "<read-files>\np0\np1\n</read-files>" in result["summary"]


async def test_file_lists_are_appended_to_the_summary() -> None:
    b = SessionBuilder()
    b.user("fix " + "x" * 4000)
    b.assistant(calls=[("1", "read", {"path": "src/a.py"}), ("2", "edit", {"path": "src/b.py"})])
    b.tool_result("1", "read", "...")
    b.tool_result("2", "edit", "ok")
    b.assistant("fixed " + "y" * 4000)
    b.user("more " + "x" * 4000)
    b.assistant("sure " + "y" * 4000)
    prep = prepare_compaction(b.path(), CompactionSettings(keep_recent_tokens=2000))
    assert prep is not None
    result = await compact(prep, MODEL, None, stream_fn=ScriptedStream(reply("S")))
    assert result["summary"] == (
        "S\n\n<read-files>\nsrc/a.py\n</read-files>\n\n<modified-files>\nsrc/b.py\n</modified-files>"
    )
    assert result["details"] == {"readFiles": ["src/a.py"], "modifiedFiles": ["src/b.py"]}


@pytest.mark.parametrize(
    ("scripted", "message"),
    [
        (reply(None, stop="error", error="400 invalid request"), "Summarization failed: 400 invalid request"),
        (reply(None, stop="error"), "Summarization failed: Unknown error"),
        (
            reply("## Goal\nhalf a summ", stop="length"),
            "Summarization failed: generation hit the token cap and the summary is incomplete",
        ),
        (reply("I will read it", tool_call=True, stop="toolUse"), "Summarization attempted to call a tool"),
        (reply("text", tool_call=True, stop="stop"), "Summarization attempted to call a tool"),
    ],
)
async def test_incomplete_summaries_raise(scripted: dict, message: str) -> None:
    prep = simple_preparation()
    stream = ScriptedStream(scripted)
    outcome: list = []
    with pytest.raises(CompactionError) as err:
        outcome.append(await compact(prep, MODEL, None, stream_fn=stream, retry_settings=FAST_RETRY))
    assert not isinstance(err.value, CompactionCancelled)
    assert str(err.value) == message
    assert outcome == [] and len(stream.calls) == 1


async def test_turn_prefix_failure_raises_with_its_label() -> None:
    path = load_session("c_tool_bash.session.jsonl")
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=1))
    assert prep is not None

    def route(model, context, options):
        text = context.messages[0]["content"][0]["text"]
        bad = "Run echo hi" not in text
        item = reply(None, stop="error", error="bad prefix") if bad else reply("H")
        return ScriptedStream(item)(model, context, options)

    with pytest.raises(CompactionError, match=r"^Turn prefix summarization failed: bad prefix$"):
        await compact(prep, MODEL, None, stream_fn=route)


@pytest.mark.parametrize("mode", ["hang", "hang-ignoring-signal"])
async def test_abort_mid_stream_cancels(mode: str) -> None:
    prep = simple_preparation()
    stream = ScriptedStream(mode)
    controller = AbortController()
    outcome: list = []

    async def run() -> None:
        with pytest.raises(CompactionCancelled) as err:
            outcome.append(await compact(prep, MODEL, None, signal=controller.signal, stream_fn=stream))
        assert str(err.value) == COMPACTION_CANCELLED == "Compaction cancelled"

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await stream.started.wait()
            controller.abort()
    assert outcome == [] and stream.closed == 1


async def test_already_aborted_signal_cancels_without_result() -> None:
    controller = AbortController()
    controller.abort()
    stream = ScriptedStream("hang-ignoring-signal")
    with anyio.fail_after(5), pytest.raises(CompactionCancelled):
        await compact(simple_preparation(), MODEL, None, signal=controller.signal, stream_fn=stream)


async def test_transient_error_is_retried_with_callbacks() -> None:
    events: list[dict] = []
    stream = ScriptedStream(
        reply(None, stop="error", error="503 Service Unavailable"),
        reply(None, stop="error", error="overloaded_error: Overloaded"),
        reply("S", usage_=usage(7, 3)),
    )
    result = await compact(
        simple_preparation(),
        MODEL,
        None,
        stream_fn=stream,
        on_retry=events.append,
        retry_settings=RetrySettings(max_retries=3, base_delay_ms=1, max_delay_ms=2),
    )
    assert result["summary"] == "S" and result["usage"]["totalTokens"] == 10
    assert events == [
        {
            "type": "summarization_retry_scheduled",
            "attempt": 1,
            "maxAttempts": 3,
            "delayMs": 1,
            "errorMessage": "503 Service Unavailable",
        },
        {"type": "summarization_retry_attempt_start"},
        {
            "type": "summarization_retry_scheduled",
            "attempt": 2,
            "maxAttempts": 3,
            "delayMs": 2,
            "errorMessage": "overloaded_error: Overloaded",
        },
        {"type": "summarization_retry_attempt_start"},
        {"type": "summarization_retry_finished"},
    ]
    assert len(stream.calls) == 3


async def test_retries_exhausted_raise_the_last_error() -> None:
    events: list[dict] = []

    async def on_retry(event: dict) -> None:  # async callbacks are awaited
        events.append(event)

    stream = ScriptedStream(*[reply(None, stop="error", error=f"429 rate limit #{i}") for i in range(3)])
    with pytest.raises(CompactionError, match=r"^Summarization failed: 429 rate limit #2$"):
        await compact(
            simple_preparation(),
            MODEL,
            None,
            stream_fn=stream,
            on_retry=on_retry,
            retry_settings=RetrySettings(max_retries=2, base_delay_ms=1, max_delay_ms=1),
        )
    assert [e["type"] for e in events] == [
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
    ]
    assert len(stream.calls) == 3


async def test_non_transient_errors_are_not_retried() -> None:
    events: list[dict] = []
    for error in ("400 prompt is too long: 300000 tokens", "insufficient_quota: billing", "401 invalid api key"):
        stream = ScriptedStream(reply(None, stop="error", error=error))
        with pytest.raises(CompactionError):
            await compact(simple_preparation(), MODEL, None, stream_fn=stream, on_retry=events.append)
        assert len(stream.calls) == 1
    assert events == []


async def test_disabled_retry_policy_does_not_retry() -> None:
    stream = ScriptedStream(reply(None, stop="error", error="503 unavailable"))
    with pytest.raises(CompactionError):
        await compact(simple_preparation(), MODEL, None, stream_fn=stream, retry_settings=RetrySettings(enabled=False))
    assert len(stream.calls) == 1


async def test_abort_during_retry_backoff_cancels() -> None:
    events: list[dict] = []
    controller = AbortController()

    def on_retry(event: dict) -> None:
        events.append(event)
        if event["type"] == "summarization_retry_scheduled":
            controller.abort()

    stream = ScriptedStream(reply(None, stop="error", error="502 bad gateway"), reply("never"))
    with anyio.fail_after(5), pytest.raises(CompactionCancelled):
        await compact(
            simple_preparation(),
            MODEL,
            None,
            signal=controller.signal,
            stream_fn=stream,
            on_retry=on_retry,
            retry_settings=RetrySettings(max_retries=3, base_delay_ms=60_000, max_delay_ms=60_000),
        )
    assert [e["type"] for e in events] == ["summarization_retry_scheduled", "summarization_retry_finished"]
    assert len(stream.calls) == 1


def test_retry_delay_formula() -> None:
    policy = RetrySettings()
    assert [policy.delay_ms(n) for n in (1, 2, 3)] == [2000, 4000, 8000]
    capped = RetrySettings(base_delay_ms=2000, max_delay_ms=5000)
    assert capped.delay_ms(3) == 5000
    assert RetrySettings.from_dict({"maxRetries": 5, "baseDelayMs": 10, "maxAgentDelayMs": 30}).delay_ms(4) == 30


def test_entry_fields() -> None:
    result = {
        "summary": "S",
        "firstKeptEntryId": "abcd1234",
        "tokensBefore": 10,
        "estimatedTokensAfter": 3,
        "usage": usage(1, 1),
        "details": {"readFiles": [], "modifiedFiles": []},
    }
    fields = build_compaction_entry_fields(result)  # type: ignore[arg-type]
    assert list(fields) == ["summary", "firstKeptEntryId", "tokensBefore", "details", "usage", "fromHook"]
    assert fields["fromHook"] is False and "estimatedTokensAfter" not in fields
    assert build_compaction_entry_fields(result, from_hook=True)["fromHook"] is True  # type: ignore[arg-type]


async def test_single_summary_usage_passes_through_with_every_field() -> None:
    # The provider layer's usage (cost.totalFromProvider, optional counters, unknown extras)
    # reaches the result unchanged; upstream keeps it as the reply's usage object.
    provider_usage = usage(300, 40, cost=0.5)
    provider_usage["reasoning"] = 7
    provider_usage["cost"]["totalFromProvider"] = True
    provider_usage["serviceTier"] = "flex"
    stream = ScriptedStream(reply("S", usage_=provider_usage))
    result = await compact(simple_preparation(), MODEL, None, stream_fn=stream)
    assert result["usage"] == provider_usage


@pytest.mark.parametrize(
    ("first", "second", "expected"), [(True, True, True), (True, False, False), (None, True, False)]
)
async def test_split_turn_usage_combines_like_upstream(first: bool | None, second: bool, expected: bool) -> None:
    path = load_session("c_tool_bash.session.jsonl")
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=1))
    assert prep is not None and prep.is_split_turn
    a, b = usage(100, 10, cost=0.25), usage(50, 5, cost=0.5)
    if first is not None:
        a["cost"]["totalFromProvider"] = first
    b["cost"]["totalFromProvider"] = second
    b["reasoning"] = 3
    result = await compact(prep, MODEL, None, stream_fn=ScriptedStream(reply("H", usage_=a), reply("P", usage_=b)))
    assert result["usage"] == {
        "input": 150,
        "output": 15,
        "cacheRead": 0,
        "cacheWrite": 0,
        "reasoning": 3,
        "totalTokens": 165,
        "cost": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "total": 0.75,
            "totalFromProvider": expected,
        },
    }
