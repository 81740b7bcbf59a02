"""Executing one assistant message's tool calls (upstream pi-agent-core 1.6 ``agent-loop``).

Preparation runs in source order: ``tool_execution_start``, tool lookup (``Tool <name> not
found``), argument validation, the ``before_tool_call`` hook. A call that fails preparation is an
*immediate* result whose ``tool_execution_end`` is emitted at once (no ``durationMs``: the tool
never ran).

* parallel (default): the prepared calls then run concurrently; each emits its
  ``tool_execution_end`` when it finishes (after the ``after_tool_call`` hook), and once all are
  done the toolResult messages are emitted in source order.
* sequential: prepare, execute, end and result message for one call, then the next.

Steering never skips a call in 1.6: queued messages wait for the batch to finish.
"""

from __future__ import annotations

import copy
import inspect
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import anyio

from pi_rpc.agent.types import (
    AfterToolCallContext,
    AfterToolCallHook,
    AgentContext,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallHook,
)
from pi_rpc.agent.validation import ValidateArgs
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import AssistantMessage, ToolCall, ToolResultMessage, tool_calls_of

if TYPE_CHECKING:
    from pi_rpc.agent.events import AgentEvent, ToolExecutionEndEvent

Emit = Callable[["AgentEvent"], Awaitable[None]]

OPERATION_ABORTED = "Operation aborted"


class ToolPolicy(Protocol):
    """What running tool calls reads from the loop's configuration (``LoopConfig``)."""

    @property
    def validate_args(self) -> ValidateArgs: ...
    @property
    def before_tool_call(self) -> BeforeToolCallHook | None: ...
    @property
    def after_tool_call(self) -> AfterToolCallHook | None: ...


class ToolBatchPolicy(ToolPolicy, Protocol):
    """``ToolPolicy`` plus how a turn's calls are scheduled."""

    @property
    def tool_execution(self) -> str: ...


@dataclass
class ToolOutcome:
    """One finished tool call: its result (or error result) and how long it ran."""

    tool_call: ToolCall
    result: AgentToolResult | dict[str, object]
    is_error: bool
    duration_ms: int | None = None


@dataclass
class PreparedToolCall:
    """A tool call whose tool was found and whose arguments validated, ready to run."""

    tool_call: ToolCall
    tool: Any
    args: object


@dataclass
class ToolBatch:
    """The tool-result messages of one assistant turn, and whether every tool asked to end the run."""

    messages: list[ToolResultMessage]
    terminate: bool


async def maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def error_result(message: str) -> dict[str, object]:
    return {"content": [{"type": "text", "text": message}], "details": {}}


def error_text(error: BaseException) -> str:
    # A task group wraps a lone failure in an ExceptionGroup; report the failure itself.
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return str(error)


def _aborted(signal: AbortSignal | None) -> bool:
    return signal is not None and signal.aborted


async def prepare_tool_call(
    context: AgentContext,
    assistant_message: AssistantMessage,
    tool_call: ToolCall,
    config: ToolPolicy,
    signal: AbortSignal | None,
) -> PreparedToolCall | ToolOutcome:
    if _aborted(signal):
        return ToolOutcome(tool_call, error_result(OPERATION_ABORTED), True)
    tool = next((t for t in context.tools if t.name == tool_call.get("name")), None)
    if tool is None:
        return ToolOutcome(tool_call, error_result(f"Tool {tool_call.get('name')} not found"), True)
    try:
        if tool_call.get("argumentsError"):
            raise ValueError(f'Invalid arguments for tool "{tool_call.get("name")}": {tool_call["argumentsError"]}')
        raw = tool_call.get("arguments") or {}
        prepare_async = getattr(tool, "prepare_arguments_async", None)
        if prepare_async is not None:
            # A preparation that needs the event loop (a TypeScript tool's, run in Node)
            # happens here; the validator then validates what it returned.
            raw = await prepare_async(copy.deepcopy(raw))
        # The validator owns argument preparation (``tool.prepare_arguments``) and coercion.
        args = config.validate_args(tool, raw)
        if config.before_tool_call is not None:
            # Not cancelled by an abort (upstream): the hook finishes (a dialog it awaits with
            # the run's signal resolves with its default), then the call ends as aborted.
            before = await maybe_await(
                config.before_tool_call(BeforeToolCallContext(assistant_message, tool_call, args, context), signal)
            )
            if _aborted(signal):
                return ToolOutcome(tool_call, error_result(OPERATION_ABORTED), True)
            if before and before.get("block"):
                result = error_result(before.get("reason") or "Tool execution was blocked")
                if before.get("terminate") is True:
                    result["terminate"] = True
                return ToolOutcome(tool_call, result, True)
        return PreparedToolCall(tool_call, tool, args)
    except Exception as exc:  # noqa: BLE001 - any failure becomes the call's error result
        return ToolOutcome(tool_call, error_result(error_text(exc)), True)


class _Emitted:
    """What ``on_update`` returns: awaiting it waits until the update event was delivered, and
    a tool that does not await it loses nothing."""

    def __init__(self, event: anyio.Event | None) -> None:
        self._event = event

    def __await__(self) -> object:
        if self._event is None:
            return
        yield from self._event.wait().__await__()


async def execute_prepared_tool_call(
    prepared: PreparedToolCall,
    signal: AbortSignal | None,
    on_update: Callable[[object], Awaitable[None]],
) -> ToolOutcome:
    send, receive = anyio.create_memory_object_stream[tuple[object, anyio.Event]](math.inf)
    accepting = True

    def update(partial: object) -> _Emitted:
        if not accepting:
            return _Emitted(None)
        delivered = anyio.Event()
        send.send_nowait((partial, delivered))
        return _Emitted(delivered)

    async def pump() -> None:
        async with receive:
            async for partial, delivered in receive:
                await on_update(partial)
                delivered.set()

    outcome: ToolOutcome
    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        started = time.perf_counter()
        try:
            result = await prepared.tool.execute(prepared.tool_call.get("id"), prepared.args, signal, update)
            duration = round((time.perf_counter() - started) * 1000)
            outcome = ToolOutcome(prepared.tool_call, result, bool(result.get("isError") is True), duration)
        except Exception as exc:  # noqa: BLE001 - a thrown tool error is the call's result
            duration = round((time.perf_counter() - started) * 1000)
            outcome = ToolOutcome(prepared.tool_call, error_result(error_text(exc)), True, duration)
        finally:
            accepting = False
            send.close()
        # Leaving the task group waits until every queued update was emitted.
    return outcome


async def finalize_executed_tool_call(
    context: AgentContext,
    assistant_message: AssistantMessage,
    prepared: PreparedToolCall,
    executed: ToolOutcome,
    config: ToolPolicy,
    signal: AbortSignal | None,
) -> ToolOutcome:
    result: dict[str, object] = executed.result  # type: ignore[assignment]
    is_error = executed.is_error
    if config.after_tool_call is not None:
        try:
            # Runs to completion after an abort too, as upstream's afterToolCall does.
            after = await maybe_await(
                config.after_tool_call(
                    AfterToolCallContext(
                        assistant_message,
                        prepared.tool_call,
                        prepared.args,
                        # the tool's (or error_result's) dict, AgentToolResult-shaped by contract
                        cast(AgentToolResult, result),
                        is_error,
                        context,
                    ),
                    signal,
                )
            )
            if after:
                # Structured content that was not replaced along with the content may no longer match it.
                if after.get("structuredContent") is not None:
                    structured = after["structuredContent"]
                elif after.get("content") is not None:
                    structured = None
                else:
                    structured = result.get("structuredContent")
                merged = dict(result)
                for key in ("content", "details", "usage", "terminate"):
                    if after.get(key) is not None:
                        merged[key] = after[key]
                if structured is None:
                    merged.pop("structuredContent", None)
                else:
                    merged["structuredContent"] = structured
                result = merged
                if after.get("isError") is not None:
                    is_error = bool(after["isError"])
        except Exception as exc:  # noqa: BLE001
            result = error_result(error_text(exc))
            is_error = True
    return ToolOutcome(prepared.tool_call, result, is_error, executed.duration_ms)


async def emit_tool_execution_end(outcome: ToolOutcome, emit: Emit) -> None:
    event: ToolExecutionEndEvent = {
        "type": "tool_execution_end",
        "toolCallId": outcome.tool_call.get("id"),
        "toolName": outcome.tool_call.get("name"),
        "result": outcome.result,
        "isError": outcome.is_error,
    }
    if outcome.duration_ms is not None:
        event["durationMs"] = outcome.duration_ms
    await emit(event)


def create_tool_result_message(outcome: ToolOutcome) -> ToolResultMessage:
    result: Mapping[str, object] = outcome.result
    message: dict[str, object] = {
        "role": "toolResult",
        "toolCallId": outcome.tool_call.get("id"),
        "toolName": outcome.tool_call.get("name"),
        "content": result.get("content") if result.get("content") is not None else [],
    }
    if result.get("details") is not None:
        message["details"] = result["details"]
    if result.get("usage") is not None:
        message["usage"] = result["usage"]
    message["isError"] = outcome.is_error
    if outcome.duration_ms is not None:
        message["durationMs"] = outcome.duration_ms
    message["timestamp"] = int(time.time() * 1000)
    return cast("ToolResultMessage", message)  # built key by key in upstream's order


async def emit_tool_result_message(message: ToolResultMessage, emit: Emit) -> None:
    await emit({"type": "message_start", "message": message})
    await emit({"type": "message_end", "message": message})


async def _emit_start(tool_call: ToolCall, emit: Emit) -> None:
    await emit(
        {
            "type": "tool_execution_start",
            "toolCallId": tool_call.get("id"),
            "toolName": tool_call.get("name"),
            "args": tool_call.get("arguments"),
        }
    )


def _update_emitter(tool_call: ToolCall, emit: Emit) -> Callable[[object], Awaitable[None]]:
    async def on_update(partial: object) -> None:
        await emit(
            {
                "type": "tool_execution_update",
                "toolCallId": tool_call.get("id"),
                "toolName": tool_call.get("name"),
                "args": tool_call.get("arguments"),
                "partialResult": partial,
            }
        )

    return on_update


def _should_terminate(outcomes: list[ToolOutcome]) -> bool:
    return bool(outcomes) and all(o.result.get("terminate") is True for o in outcomes)


async def fail_tool_calls_from_truncated_message(tool_calls: Sequence[ToolCall], emit: Emit) -> ToolBatch:
    messages: list[ToolResultMessage] = []
    for tool_call in tool_calls:
        await _emit_start(tool_call, emit)
        outcome = ToolOutcome(
            tool_call,
            error_result(
                f'Tool call "{tool_call.get("name")}" was not executed: the response hit the output token limit, '
                "so its arguments may be truncated. Re-issue the tool call with complete arguments."
            ),
            True,
        )
        await emit_tool_execution_end(outcome, emit)
        message = create_tool_result_message(outcome)
        await emit_tool_result_message(message, emit)
        messages.append(message)
    return ToolBatch(messages, False)


async def execute_tool_calls(
    context: AgentContext,
    assistant_message: AssistantMessage,
    config: ToolBatchPolicy,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    tool_calls = tool_calls_of(assistant_message)
    has_sequential_tool = any(
        getattr(next((t for t in context.tools if t.name == tc.get("name")), None), "execution_mode", None)
        == "sequential"
        for tc in tool_calls
    )
    if config.tool_execution == "sequential" or has_sequential_tool:
        return await _execute_sequential(context, assistant_message, tool_calls, config, signal, emit)
    return await _execute_parallel(context, assistant_message, tool_calls, config, signal, emit)


async def _execute_sequential(
    context: AgentContext,
    assistant_message: AssistantMessage,
    tool_calls: Sequence[ToolCall],
    config: ToolPolicy,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    outcomes: list[ToolOutcome] = []
    messages: list[ToolResultMessage] = []
    for tool_call in tool_calls:
        await _emit_start(tool_call, emit)
        prepared = await prepare_tool_call(context, assistant_message, tool_call, config, signal)
        if isinstance(prepared, ToolOutcome):
            outcome = prepared
        else:
            executed = await execute_prepared_tool_call(prepared, signal, _update_emitter(tool_call, emit))
            outcome = await finalize_executed_tool_call(context, assistant_message, prepared, executed, config, signal)
        await emit_tool_execution_end(outcome, emit)
        message = create_tool_result_message(outcome)
        await emit_tool_result_message(message, emit)
        outcomes.append(outcome)
        messages.append(message)
    return ToolBatch(messages, _should_terminate(outcomes))


async def _execute_parallel(
    context: AgentContext,
    assistant_message: AssistantMessage,
    tool_calls: Sequence[ToolCall],
    config: ToolPolicy,
    signal: AbortSignal | None,
    emit: Emit,
) -> ToolBatch:
    entries: list[ToolOutcome | PreparedToolCall] = []
    for tool_call in tool_calls:
        await _emit_start(tool_call, emit)
        prepared = await prepare_tool_call(context, assistant_message, tool_call, config, signal)
        if isinstance(prepared, ToolOutcome):
            await emit_tool_execution_end(prepared, emit)
        entries.append(prepared)

    outcomes: list[ToolOutcome | None] = [e if isinstance(e, ToolOutcome) else None for e in entries]

    async def run(index: int, prepared: PreparedToolCall) -> None:
        if _aborted(signal):
            outcome = ToolOutcome(prepared.tool_call, error_result(OPERATION_ABORTED), True)
        else:
            executed = await execute_prepared_tool_call(prepared, signal, _update_emitter(prepared.tool_call, emit))
            outcome = await finalize_executed_tool_call(context, assistant_message, prepared, executed, config, signal)
        await emit_tool_execution_end(outcome, emit)
        outcomes[index] = outcome

    async with anyio.create_task_group() as tg:
        for index, entry in enumerate(entries):
            if isinstance(entry, PreparedToolCall):
                tg.start_soon(run, index, entry)

    finished = [o for o in outcomes if o is not None]
    messages: list[ToolResultMessage] = []
    for outcome in finished:
        message = create_tool_result_message(outcome)
        await emit_tool_result_message(message, emit)
        messages.append(message)
    return ToolBatch(messages, _should_terminate(finished))
