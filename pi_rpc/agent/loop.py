"""The run/turn loop (upstream pi-agent-core 1.6 ``runAgentLoop`` / ``runLoop``).

A run: ``agent_start``, ``turn_start``, the prompt messages' start/end, one steering poll, then
turns while the last assistant message had tool calls or messages are pending; when it would stop,
the follow-up queue is polled; ``agent_end{messages}`` lists everything new in the run. A failed
or aborted assistant message ends the run right after its ``turn_end`` (queues are kept).

The loop works on an ``AgentContext`` copy; the ``Agent`` keeps its own transcript from the
``message_end`` events. Every event is awaited through ``emit`` before the loop goes on.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, cast

from pi_rpc.agent.convert import build_llm_context, convert_to_llm, transform_messages
from pi_rpc.agent.tool_exec import execute_tool_calls, fail_tool_calls_from_truncated_message, maybe_await
from pi_rpc.agent.transcript import declare_tool_changes
from pi_rpc.agent.types import AfterToolCallHook, AgentContext, BeforeToolCallHook
from pi_rpc.agent.validation import ValidateArgs, resolve_validator
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import AssistantMessage, Message, Model, StreamOptions, ToolResultMessage, tool_calls_of

if TYPE_CHECKING:
    from pi_rpc.agent.events import AgentEvent

Emit = Callable[["AgentEvent"], Awaitable[None]]
StreamFn = Callable[..., object]
#: How a turn's tool calls run (a tool marked ``sequential`` makes its whole batch sequential).
ToolExecution = Literal["parallel", "sequential"]
#: ``finish_turn``'s verdict: stop the run now, or make one more request; None decides nothing.
TurnDecision = Literal["end", "continue"]

_BLOCK_EVENTS = frozenset(
    {
        "text_start",
        "text_delta",
        "text_end",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
    }
)


def default_stream_fn() -> StreamFn:
    from pi_rpc.ai.stream import stream

    return stream


@dataclass
class TurnSnapshot:
    """What a finished turn looked like; given to ``prepare_next_turn`` and ``finish_turn``."""

    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    context: AgentContext
    new_messages: list[Message]


@dataclass
class TurnUpdate:
    """Returned by ``prepare_next_turn`` / ``prepare_request`` to change the next request.

    ``messages`` (prepare_next_turn only) are injected like pending messages before the request.
    ``thinking_level`` "off" clears the reasoning option."""

    context: AgentContext | None = None
    model: Model | None = None
    thinking_level: str | None = None
    messages: list[Message] = field(default_factory=list)


PrepareNextTurn = Callable[[TurnSnapshot], Awaitable[TurnUpdate | None]]
#: ``(context, model, thinking level, signal)`` right before each request.
PrepareRequest = Callable[[AgentContext, Model, str, AbortSignal | None], Awaitable[TurnUpdate | None]]
FinishTurn = Callable[[TurnSnapshot, AbortSignal | None], Awaitable[TurnDecision | None]]


@dataclass
class LoopConfig:
    """How one agent run calls the model and its hooks (model, keys, transforms, tool policy)."""

    model: Model
    reasoning: str | None = None  # thinking level, None when "off"
    session_id: str | None = None
    api_key: str | None = None
    get_api_key: Callable[[str], Awaitable[str | None]] | None = None
    stream_options: dict[str, Any] = field(default_factory=dict)
    convert_to_llm: Callable[[list[Message]], object] = convert_to_llm
    transform_context: Callable[[list[Message], AbortSignal | None], Awaitable[list[Message]]] | None = None
    transform_messages: Callable[[list[Message], Model], list[Message]] | None = transform_messages
    tool_execution: ToolExecution = "parallel"
    before_tool_call: BeforeToolCallHook | None = None
    after_tool_call: AfterToolCallHook | None = None
    validate_args: ValidateArgs = field(default_factory=resolve_validator)
    get_steering_messages: Callable[[], Awaitable[list[Message]]] | None = None
    get_follow_up_messages: Callable[[], Awaitable[list[Message]]] | None = None
    prepare_next_turn: PrepareNextTurn | None = None
    prepare_request: PrepareRequest | None = None
    finish_turn: FinishTurn | None = None
    declare_tools: bool = True


def _apply_update(config: LoopConfig, update: TurnUpdate) -> LoopConfig:
    reasoning = config.reasoning
    if update.thinking_level is not None:
        reasoning = None if update.thinking_level == "off" else update.thinking_level
    return replace(config, model=update.model or config.model, reasoning=reasoning)


def _declare(context: AgentContext, config: LoopConfig, pending: list[Message]) -> list[Message]:
    if not config.declare_tools:
        return pending
    return declare_tool_changes(context.messages, context.tools, pending)


async def run_agent_loop(
    prompts: Sequence[Message],
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    signal: AbortSignal | None,
    stream_fn: StreamFn,
) -> list[Message]:
    initial = _declare(context, config, list(prompts))
    new_messages: list[Message] = list(initial)
    current = replace(context, messages=[*context.messages, *initial])
    await emit({"type": "agent_start"})
    await emit({"type": "turn_start"})
    for message in initial:
        await emit({"type": "message_start", "message": message})
        await emit({"type": "message_end", "message": message})
    await _run_loop(current, new_messages, config, signal, emit, stream_fn)
    return new_messages


async def run_agent_loop_continue(
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    signal: AbortSignal | None,
    stream_fn: StreamFn,
) -> list[Message]:
    if not context.messages:
        raise RuntimeError("Cannot continue: no messages in context")
    if context.messages[-1].get("role") == "assistant":
        raise RuntimeError("Cannot continue from message role: assistant")
    new_messages: list[Message] = []
    current = replace(context, messages=list(context.messages))
    await emit({"type": "agent_start"})
    await emit({"type": "turn_start"})
    await _run_loop(current, new_messages, config, signal, emit, stream_fn)
    return new_messages


async def _poll(getter: Callable[[], Awaitable[list[Message]]] | None) -> list[Message]:
    if getter is None:
        return []
    return list(await getter() or [])


async def _run_loop(
    current: AgentContext,
    new_messages: list[Message],
    config: LoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
    stream_fn: StreamFn,
) -> None:
    last_turn: TurnSnapshot | None = None
    explicit_continuation = False
    pending = await _poll(config.get_steering_messages)

    while True:
        has_more_tool_calls = True
        while has_more_tool_calls or pending:
            prepared_messages: list[Message] = []
            if last_turn is not None:
                if config.prepare_next_turn is not None:
                    update = await config.prepare_next_turn(last_turn)
                    if update is not None:
                        current = update.context or current
                        prepared_messages = list(update.messages)
                        config = _apply_update(config, update)
                # Preparation can take long (compaction): pick up steering queued meanwhile, but
                # only if nothing is pending, or one-at-a-time would deliver two in this turn.
                if not pending:
                    pending = await _poll(config.get_steering_messages)
                await emit({"type": "turn_start"})

            for message in _declare(current, config, [*prepared_messages, *pending]):
                await emit({"type": "message_start", "message": message})
                await emit({"type": "message_end", "message": message})
                current.messages.append(message)
                new_messages.append(message)
            pending = []

            if config.prepare_request is not None:
                update = await config.prepare_request(current, config.model, config.reasoning or "off", signal)
                if update is not None:
                    current = update.context or current
                    config = _apply_update(config, update)

            message = await stream_assistant_response(current, config, signal, emit, stream_fn)
            new_messages.append(message)

            if message.get("stopReason") in ("error", "aborted"):
                last_turn = TurnSnapshot(message, [], current, new_messages)
                if config.finish_turn is not None:
                    await config.finish_turn(last_turn, signal)
                await emit({"type": "turn_end", "message": message, "toolResults": []})
                await emit({"type": "agent_end", "messages": new_messages})
                return

            tool_calls = tool_calls_of(message)
            tool_results: list[ToolResultMessage] = []
            has_more_tool_calls = False
            if tool_calls:
                # A "length" stop may have cut every call's arguments: fail them all, run none.
                if message.get("stopReason") == "length":
                    batch = await fail_tool_calls_from_truncated_message(tool_calls, emit)
                else:
                    batch = await execute_tool_calls(current, message, config, signal, emit)
                tool_results.extend(batch.messages)
                has_more_tool_calls = not batch.terminate
                for result in tool_results:
                    current.messages.append(result)
                    new_messages.append(result)

            last_turn = TurnSnapshot(message, tool_results, current, new_messages)
            decision = await config.finish_turn(last_turn, signal) if config.finish_turn is not None else None
            await emit({"type": "turn_end", "message": message, "toolResults": tool_results})
            if decision == "end":
                await emit({"type": "agent_end", "messages": new_messages})
                return
            explicit_continuation = decision == "continue"

            pending = await _poll(config.get_steering_messages)
            if has_more_tool_calls or pending:
                explicit_continuation = False

        follow_ups = await _poll(config.get_follow_up_messages)
        if follow_ups:
            explicit_continuation = False
            pending = follow_ups
            continue
        if explicit_continuation:
            explicit_continuation = False
            continue
        break

    await emit({"type": "agent_end", "messages": new_messages})


async def stream_assistant_response(
    context: AgentContext,
    config: LoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
    stream_fn: StreamFn,
) -> AssistantMessage:
    """One LLM call: transform, convert, resolve the key, stream; returns the final message."""
    messages: list[Message] = context.messages
    if config.transform_context is not None:
        messages = await config.transform_context(list(messages), signal)
    llm_messages = list(await maybe_await(config.convert_to_llm(messages)))
    transcript = llm_messages
    if config.transform_messages is not None:
        llm_messages = config.transform_messages(llm_messages, config.model)
    # A loop that declares its tools in the transcript sends only what the messages declare:
    # a transform that dropped the system messages drops the declarations too (upstream).
    llm_context = build_llm_context(
        llm_messages,
        fallback_system_prompt=context.system_prompt,
        fallback_tools=() if config.declare_tools else context.tools,
        transcript=transcript,
    )

    api_key = None
    if config.get_api_key is not None:
        provider = cast(str, config.model.get("provider"))  # every resolved model names its provider
        api_key = await maybe_await(config.get_api_key(provider))
    api_key = api_key or config.api_key

    options = StreamOptions(api_key=api_key, signal=signal, reasoning=config.reasoning, session_id=config.session_id)
    if config.stream_options:
        options = replace(options, **config.stream_options)

    thinking_level = config.reasoning or "off"

    def finish(final: AssistantMessage) -> AssistantMessage:
        # Upstream records the requested level on whatever the stream function returned.
        final["thinkingLevel"] = thinking_level
        return final

    events = stream_fn(config.model, llm_context, options)
    if inspect.isawaitable(events):
        events = await events

    partial: AssistantMessage | None = None
    added_partial = False

    async def consume(iterator: Any) -> AssistantMessage:
        nonlocal partial, added_partial
        async for event in iterator:
            etype = event.get("type")
            if etype in _BLOCK_EVENTS:  # first: one per streamed delta
                if partial is not None:
                    partial = event.get("partial", partial)
                    context.messages[-1] = partial
                    await emit({"type": "message_update", "assistantMessageEvent": event, "message": partial.copy()})
            elif etype == "start":
                partial = event["partial"]
                context.messages.append(partial)
                added_partial = True
                await emit({"type": "message_start", "message": partial.copy()})
            elif etype in ("done", "error"):
                final = finish(event["message"] if etype == "done" else event["error"])
                if added_partial:
                    context.messages[-1] = final
                else:
                    context.messages.append(final)
                    await emit({"type": "message_start", "message": final.copy()})
                await emit({"type": "message_end", "message": final})
                return final
        raise RuntimeError("The model stream ended without a done or error event")

    if hasattr(events, "aclose"):
        async with aclosing(events) as iterator:
            return await consume(iterator)
    return await consume(events)
