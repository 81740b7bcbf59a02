"""One summary request: a tool-less, cache-less model call whose reply must be complete.

The call goes through an injectable ``stream_fn`` with the signature of
``pi_rpc.ai.stream.stream`` (an async iterator of pi-ai events ending in ``done`` or
``error``). Transient errors are retried with the session's retry policy, reported through
``on_retry`` as ``summarization_retry_*`` event dicts that the runtime forwards.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, cast

import anyio

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.transcript import content_text
from pi_rpc.ai.types import AssistantMessageEvent, Context, StreamOptions, empty_usage
from pi_rpc.compaction.errors import CompactionCancelled, CompactionError
from pi_rpc.compaction.overflow import is_retryable_error
from pi_rpc.compaction.prompts import SUMMARIZER_SYSTEM_PROMPT
from pi_rpc.compaction.settings import RetrySettings
from pi_rpc.session.ids import uuid7

if TYPE_CHECKING:
    from pi_rpc.ai.types import AssistantMessage, Model
    from pi_rpc.compaction.events import SummarizationRetryEvent

StreamFn = Callable[
    [Any, Context, StreamOptions],
    AsyncIterator[AssistantMessageEvent] | Awaitable[AsyncIterator[AssistantMessageEvent]],
]
RetryCallback = Callable[["SummarizationRetryEvent"], Awaitable[None] | None]

TRUNCATED_DETAIL = "generation hit the token cap and the summary is incomplete"


def resolve_stream_fn(stream_fn: StreamFn | None) -> StreamFn:
    if stream_fn is not None:
        return stream_fn
    from pi_rpc.ai.stream import stream

    return stream


def summary_context(prompt_text: str) -> Context:
    return Context(
        system_prompt=SUMMARIZER_SYSTEM_PROMPT,
        messages=[
            {"role": "user", "content": [{"type": "text", "text": prompt_text}], "timestamp": int(time.time() * 1000)}
        ],
        tools=[],
    )


def summary_options(
    model: Model,
    *,
    max_tokens: int,
    api_key: str | None,
    signal: AbortSignal | None,
    reasoning: str | None = None,
    session_id: str | None = None,
) -> StreamOptions:
    model_max = model.get("maxTokens") or 0
    if isinstance(model_max, (int, float)) and model_max > 0:
        max_tokens = min(max_tokens, int(model_max))
    use_reasoning = reasoning if (model.get("reasoning") and reasoning and reasoning != "off") else None
    return StreamOptions(
        api_key=api_key,
        signal=signal,
        reasoning=use_reasoning,
        max_tokens=max_tokens,
        # A one-off summary is never read again: writing it to the prompt cache only costs.
        cache_retention="none",
        session_id=session_id or uuid7(),
    )


def _aborted_message(model: Model) -> AssistantMessage:
    return {
        "role": "assistant",
        "content": [],
        "api": model.get("api", ""),
        "provider": model.get("provider", ""),
        "model": model.get("id", ""),
        "usage": empty_usage(),
        "stopReason": "aborted",
        "errorMessage": "Request was aborted",
        "timestamp": int(time.time() * 1000),
    }


def _error_message(model: Model, text: str) -> AssistantMessage:
    message = _aborted_message(model)
    message["stopReason"] = "error"  # (both keys exist: their places are kept)
    message["errorMessage"] = text
    return message


async def _notify(callback: RetryCallback | None, event: SummarizationRetryEvent) -> None:
    if callback is None:
        return
    result = callback(event)
    if inspect.isawaitable(result):
        await result


async def run_stream(stream_fn: StreamFn, model: Model, context: Context, options: StreamOptions) -> AssistantMessage:
    """Drain one stream to its final assistant message. An abort cancels the read even if
    the stream ignores the signal; the message then says ``aborted``."""
    signal = options.signal
    final: AssistantMessage | None = None
    iterator: object = None
    try:
        with signal.scope() if signal is not None else nullcontext():
            iterator = stream_fn(model, context, options)
            if inspect.isawaitable(iterator):
                iterator = await iterator
            async for event in iterator:
                kind = event.get("type") if isinstance(event, dict) else None
                # The provider's output dict is the assistant message (its shape checked below).
                if kind == "done":
                    final = cast("AssistantMessage | None", event.get("message"))
                    break
                if kind == "error":
                    final = cast("AssistantMessage | None", event.get("error"))
                    break
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            with anyio.CancelScope(shield=True):
                await aclose()
    if signal is not None and signal.aborted:
        return final if isinstance(final, dict) and final.get("stopReason") == "aborted" else _aborted_message(model)
    if not isinstance(final, dict):
        return _error_message(model, "Summary stream ended without a result")
    return final


async def complete_summarization(
    model: Model,
    context: Context,
    options: StreamOptions,
    *,
    stream_fn: StreamFn | None = None,
    retry: RetrySettings | None = None,
    on_retry: RetryCallback | None = None,
) -> AssistantMessage:
    """Run the request, retrying transient errors: delay min(base·2^(n−1), max) before retry
    n. Returns the final message (which may still be an error or aborted)."""
    fn = resolve_stream_fn(stream_fn)
    signal = options.signal
    retry = retry or RetrySettings(enabled=False, max_retries=0)
    attempt = 0
    while True:
        message = await run_stream(fn, model, context, options)
        can_retry = (
            retry.enabled
            and attempt < retry.max_retries
            and message.get("stopReason") == "error"
            and not (signal is not None and signal.aborted)
            and is_retryable_error(message)
        )
        if not can_retry:
            if attempt > 0:
                await _notify(on_retry, {"type": "summarization_retry_finished"})
            return message
        attempt += 1
        delay_ms = retry.delay_ms(attempt)
        await _notify(
            on_retry,
            {
                "type": "summarization_retry_scheduled",
                "attempt": attempt,
                "maxAttempts": retry.max_retries,
                "delayMs": delay_ms,
                "errorMessage": message.get("errorMessage") or "Unknown error",
            },
        )
        with signal.scope() if signal is not None else nullcontext():
            await anyio.sleep(delay_ms / 1000)
        if signal is not None and signal.aborted:
            await _notify(on_retry, {"type": "summarization_retry_finished"})
            return _aborted_message(model)
        await _notify(on_retry, {"type": "summarization_retry_attempt_start"})


def summary_text(message: Mapping[str, Any], label: str, cancelled_message: str | None = None) -> str:
    """The text of a complete summary reply, or raise: aborted -> ``CompactionCancelled``;
    error, truncation (``length``) or any tool call -> ``CompactionError``."""
    stop = message.get("stopReason")
    if stop == "aborted":
        raise CompactionCancelled(cancelled_message) if cancelled_message else CompactionCancelled()
    if stop == "error":
        raise CompactionError(f"{label} failed: {message.get('errorMessage') or 'Unknown error'}")
    if stop == "length":
        raise CompactionError(f"{label} failed: {TRUNCATED_DETAIL}")
    content = [b for b in message.get("content") or [] if isinstance(b, dict)]
    if stop == "toolUse" or any(b.get("type") == "toolCall" for b in content):
        raise CompactionError(f"{label} attempted to call a tool")
    if stop != "stop":
        raise CompactionError(f"{label} failed: unexpected stop reason {stop!r}")
    return content_text(content)


_COUNTERS = ("input", "output", "cacheRead", "cacheWrite")
_OPTIONAL_COUNTERS = ("cacheWrite1h", "reasoning")
_COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")


def combine_usage(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Sum of two ``Usage`` dicts as upstream's ``combineUsage``: optional counters only when
    either side has them, and ``cost.totalFromProvider`` only when both totals came from the
    provider. (A single usage is passed through untouched, never rebuilt.)"""
    out: dict[str, object] = {k: (first.get(k) or 0) + (second.get(k) or 0) for k in _COUNTERS}
    for key in _OPTIONAL_COUNTERS:
        if key in first or key in second:
            out[key] = (first.get(key) or 0) + (second.get(key) or 0)
    out["totalTokens"] = (first.get("totalTokens") or 0) + (second.get("totalTokens") or 0)
    a: dict[str, Any] = first.get("cost") or {}
    b: dict[str, Any] = second.get("cost") or {}
    cost: dict[str, object] = {k: (a.get(k) or 0) + (b.get(k) or 0) for k in _COST_KEYS}
    cost["totalFromProvider"] = a.get("totalFromProvider") is True and b.get("totalFromProvider") is True
    out["cost"] = cost
    return out
