"""Summarizing a prepared compaction into a ``CompactionResult`` (``compact``).

Nothing here touches the session: the result is returned for the caller to append as a
``compaction`` entry, and every failure raises before anything is returned, so an
incomplete summary can never be written.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast

import anyio

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import Message, Model, Usage
from pi_rpc.compaction.errors import CompactionCancelled, CompactionError
from pi_rpc.compaction.file_ops import format_file_operations
from pi_rpc.compaction.preparation import CompactionPreparation
from pi_rpc.compaction.prompts import (
    COMPACTION_PROMPT,
    COMPACTION_UPDATE_PROMPT,
    NO_PRIOR_HISTORY,
    SPLIT_TURN_SEPARATOR,
    TURN_PREFIX_PROMPT,
    build_prompt_text,
    with_focus,
)
from pi_rpc.compaction.request import (
    RetryCallback,
    StreamFn,
    combine_usage,
    complete_summarization,
    summary_context,
    summary_options,
    summary_text,
)
from pi_rpc.compaction.serialize import convert_to_llm, serialize_conversation
from pi_rpc.compaction.settings import DEFAULT_RETRY_SETTINGS, RetrySettings
from pi_rpc.compaction.tokens import estimate_tokens


class CompactionDetails(TypedDict):
    readFiles: list[str]
    modifiedFiles: list[str]


class CompactionResult(TypedDict, total=False):
    """Protocol §4.8, key order as upstream: summary, firstKeptEntryId, tokensBefore,
    estimatedTokensAfter?, usage?, details?."""

    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    estimatedTokensAfter: int
    usage: Usage
    details: CompactionDetails


async def _summarize(
    messages: list[Message],
    instructions: str,
    *,
    label: str,
    model: Model,
    api_key: str | None,
    max_tokens: int,
    signal: AbortSignal | None,
    previous_summary: str | None,
    reasoning: str | None,
    session_id: str | None,
    stream_fn: StreamFn | None,
    retry: RetrySettings,
    on_retry: RetryCallback | None,
) -> tuple[str, dict[str, object]]:
    conversation = serialize_conversation(convert_to_llm(messages))
    prompt = build_prompt_text(conversation, instructions, previous_summary)
    options = summary_options(
        model, max_tokens=max_tokens, api_key=api_key, signal=signal, reasoning=reasoning, session_id=session_id
    )
    reply = await complete_summarization(
        model, summary_context(prompt), options, stream_fn=stream_fn, retry=retry, on_retry=on_retry
    )
    if signal is not None and signal.aborted:
        raise CompactionCancelled()
    usage = cast("dict[str, Any]", reply.get("usage") or {})  # passed on as a plain JSON object
    return summary_text(reply, label), usage


async def compact(
    preparation: CompactionPreparation,
    model: Model,
    api_key: str | None,
    custom_instructions: str | None = None,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
    on_retry: RetryCallback | None = None,
    retry_settings: RetrySettings = DEFAULT_RETRY_SETTINGS,
    *,
    thinking_level: str | None = None,
    session_id: str | None = None,
) -> CompactionResult:
    """Summarize ``preparation`` with ``model``. Raises ``CompactionCancelled`` on abort and
    ``CompactionError`` when the summary is not complete (error, truncated, tool call)."""
    reserve = preparation.settings.reserve_tokens
    common: dict[str, Any] = {
        "model": model,
        "api_key": api_key,
        "signal": signal,
        "session_id": session_id,
        "stream_fn": stream_fn,
        "retry": retry_settings,
        "on_retry": on_retry,
    }
    history_instructions = with_focus(
        COMPACTION_UPDATE_PROMPT if preparation.previous_summary else COMPACTION_PROMPT, custom_instructions
    )

    async def history() -> tuple[str, dict[str, object] | None]:
        if not preparation.messages_to_summarize:
            return preparation.previous_summary or NO_PRIOR_HISTORY, None
        return await _summarize(
            preparation.messages_to_summarize,
            history_instructions,
            label="Summarization",
            max_tokens=int(0.8 * reserve),
            previous_summary=preparation.previous_summary,
            reasoning=thinking_level,
            **common,
        )

    async def turn_prefix() -> tuple[str, dict[str, object] | None]:
        return await _summarize(
            preparation.turn_prefix_messages,
            TURN_PREFIX_PROMPT,
            label="Turn prefix summarization",
            max_tokens=int(0.5 * reserve),
            previous_summary=None,
            reasoning=None,
            **common,
        )

    usage: dict[str, object] | None = None
    if preparation.is_split_turn and preparation.turn_prefix_messages:
        (history_text, history_usage), (prefix_text, prefix_usage) = await _both(history, turn_prefix)
        summary = history_text + SPLIT_TURN_SEPARATOR + prefix_text
        if history_usage is not None and prefix_usage is not None:
            usage = combine_usage(history_usage, prefix_usage)
        else:
            usage = prefix_usage if prefix_usage is not None else history_usage
    else:
        summary, usage = await history()

    read_files, modified_files = preparation.file_ops.lists()
    summary += format_file_operations(read_files, modified_files)

    summary_tokens = estimate_tokens({"role": "compactionSummary", "summary": summary})
    result: CompactionResult = {
        "summary": summary,
        "firstKeptEntryId": preparation.first_kept_entry_id,
        "tokensBefore": preparation.tokens_before,
        "estimatedTokensAfter": preparation.kept_tokens + summary_tokens,
    }
    if usage is not None:
        result["usage"] = usage  # type: ignore[typeddict-item]
    result["details"] = {"readFiles": read_files, "modifiedFiles": modified_files}
    return result


async def _both(first: Any, second: Any) -> tuple[Any, Any]:
    """Run two summary requests concurrently; the first failure cancels the other and is
    raised as itself (not as an exception group)."""
    results: list[object] = [None, None]
    errors: list[BaseException] = []

    async def run(index: int, fn: Any, scope: anyio.CancelScope) -> None:
        try:
            results[index] = await fn()
        except CompactionError as exc:
            errors.append(exc)
            scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, 0, first, tg.cancel_scope)
        tg.start_soon(run, 1, second, tg.cancel_scope)
    if errors:
        # Prefer a cancellation over a failure it may have caused in the sibling.
        cancelled = [e for e in errors if isinstance(e, CompactionCancelled)]
        raise cancelled[0] if cancelled else errors[0]
    return results[0], results[1]


def build_compaction_entry_fields(result: CompactionResult, from_hook: bool = False) -> dict[str, object]:
    """Payload of the ``compaction`` entry for ``result`` (protocol §5.3 order: summary,
    firstKeptEntryId, tokensBefore, details?, usage?, fromHook). The session adds type, id,
    parentId, timestamp and the system checkpoint."""
    fields: dict[str, object] = {
        "summary": result["summary"],
        "firstKeptEntryId": result["firstKeptEntryId"],
        "tokensBefore": result["tokensBefore"],
    }
    if "details" in result:
        fields["details"] = result["details"]
    if "usage" in result:
        fields["usage"] = result["usage"]
    fields["fromHook"] = from_hook
    return fields
