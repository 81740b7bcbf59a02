"""Tool calls that a tool makes while it runs (``ctx.execute_tool``, codemode scripts), as
upstream's ``NestedToolCallRunner``.

Each call gets the id ``<caller id>/<n>`` and runs through the agent's tool pipeline against
the callable tools (validation, the ``tool_call``/``tool_result`` hooks, abort), with
``tool_execution_start/update/end`` events carrying ``parentToolCallId``. The calls of one
model-issued call (nested ones included) are recorded, and the record lands on that call's tool
result message as ``nestedCalls`` (``{calls: [{id, name, status, arguments|argumentsBytes,
durationMs, error?}], complete}``), with their usage added to the message's.
Nothing here runs until a tool calls ``ctx.execute_tool``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from pi_rpc.agent.tool_exec import (
    PreparedToolCall,
    ToolOutcome,
    execute_prepared_tool_call,
    finalize_executed_tool_call,
    prepare_tool_call,
)
from pi_rpc.agent.types import AgentContext
from pi_rpc.agent.validation import resolve_validator
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.transcript import content_text
from pi_rpc.ai.types import Message, ToolCall, is_assistant

MAX_CALLS = 256
MAX_ARGUMENT_BYTES_PER_CALL = 8 * 1024
MAX_ARGUMENT_BYTES_TOTAL = 32 * 1024
MAX_ERROR_CHARS = 500

if TYPE_CHECKING:
    from pi_rpc.runtime.events import SessionEvent, ToolExecutionEndEvent

Emit = Callable[["SessionEvent"], Awaitable[None]]


def add_usage(total: dict[str, Any] | None, usage: dict[str, Any]) -> dict[str, Any]:
    """``usage`` added to ``total`` (numbers summed, nested dicts merged; a copy of ``usage``
    when there is no total yet)."""
    if total is None:
        copied: dict[str, object] = json.loads(json.dumps(usage))
        return copied
    out = dict(total)
    for key, value in usage.items():
        if isinstance(value, (int, float)) and isinstance(out.get(key), (int, float)):
            out[key] = out[key] + value
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = add_usage(out[key], value)
        elif key not in out:
            out[key] = value
    return out


@dataclass
class _Recorder:
    calls: list[dict[str, object]] = field(default_factory=list)
    started: dict[int, float] = field(default_factory=dict)
    complete: bool = True
    argument_bytes: int = 0
    usage: dict[str, object] | None = None

    def start(self, tool_call: ToolCall) -> dict[str, object] | None:
        if len(self.calls) >= MAX_CALLS:
            self.complete = False
            return None
        record: dict[str, object] = {"id": tool_call["id"], "name": tool_call["name"], "status": "unfinished"}
        encoded = json.dumps(tool_call.get("arguments") or {}, ensure_ascii=False, separators=(",", ":"))
        size = len(encoded.encode("utf-8"))
        if size > MAX_ARGUMENT_BYTES_PER_CALL or self.argument_bytes + size > MAX_ARGUMENT_BYTES_TOTAL:
            record["argumentsBytes"] = size
            self.complete = False
        else:
            record["arguments"] = json.loads(encoded)
            self.argument_bytes += size
        self.calls.append(record)
        self.started[id(record)] = time.perf_counter()
        return record

    def finish(self, record: dict[str, object] | None, is_error: bool, error: str) -> None:
        if record is None:
            return
        record["status"] = "error" if is_error else "ok"
        record["durationMs"] = round((time.perf_counter() - self.started.pop(id(record), time.perf_counter())) * 1000)
        if is_error and error:
            record["error"] = error[:MAX_ERROR_CHARS]

    def snapshot(self) -> dict[str, object] | None:
        if not self.calls and self.complete:
            return None
        calls = [dict(call) for call in self.calls]
        return {"calls": calls, "complete": self.complete and all(c["status"] != "unfinished" for c in calls)}


@dataclass
class _Scope:
    recorder: _Recorder
    next_id: int = 1


class NestedToolCalls:
    def __init__(
        self,
        *,
        get_tools: Callable[[], list[object]],
        get_messages: Callable[[], list[Message]],
        get_validator: Callable[[], object],
        before_tool_call: object,
        after_tool_call: object,
        emit: Emit,
    ) -> None:
        self._get_tools = get_tools
        self._get_messages = get_messages
        self._get_validator = get_validator
        self._before = before_tool_call
        self._after = after_tool_call
        self._emit = emit
        self._scopes: dict[str, _Scope] = {}

    async def execute(
        self,
        caller_id: str,
        name: str,
        args: Any,
        signal: AbortSignal | None = None,
        on_update: Callable[[object], object] | None = None,
    ) -> dict[str, object]:
        """Run ``name`` for the call ``caller_id``; tool failures come back as ``isError``."""
        scope = self._scopes.get(caller_id)
        if scope is None:
            scope = self._scopes[caller_id] = _Scope(_Recorder())
        tool_call: ToolCall = {
            "type": "toolCall",
            "id": f"{caller_id}/{scope.next_id}",
            "name": name,
            "arguments": args if args is not None else {},
        }
        scope.next_id += 1
        record = scope.recorder.start(tool_call)
        await self._emit(
            {
                "type": "tool_execution_start",
                "toolCallId": tool_call["id"],
                "toolName": name,
                "args": tool_call["arguments"],
                "parentToolCallId": caller_id,
            }
        )
        self._scopes[tool_call["id"]] = _Scope(scope.recorder)
        try:
            outcome = await self._run(tool_call, caller_id, signal, on_update)
        finally:
            self._scopes.pop(tool_call["id"], None)
        result: dict[str, Any] = dict(outcome.result)
        scope.recorder.finish(record, outcome.is_error, content_text(result.get("content")))
        if result.get("usage"):
            scope.recorder.usage = add_usage(scope.recorder.usage, result["usage"])
        end: ToolExecutionEndEvent = {
            "type": "tool_execution_end",
            "toolCallId": tool_call["id"],
            "toolName": name,
            "result": result,
            "isError": outcome.is_error,
        }
        if outcome.duration_ms is not None:
            end["durationMs"] = outcome.duration_ms
        end["parentToolCallId"] = caller_id
        await self._emit(end)
        out: dict[str, Any] = {"toolCall": tool_call, "result": result, "isError": outcome.is_error}
        if outcome.duration_ms is not None:
            out["durationMs"] = outcome.duration_ms
        return out

    async def _run(
        self,
        tool_call: ToolCall,
        caller_id: str,
        signal: AbortSignal | None,
        on_update: Callable[[object], object] | None,
    ) -> ToolOutcome:
        messages = self._get_messages()
        assistant = next((m for m in reversed(messages) if is_assistant(m)), None)
        if assistant is None:
            return ToolOutcome(
                tool_call,
                {"content": [{"type": "text", "text": "No assistant message issued this call"}], "details": {}},
                True,
            )
        tools = self._get_tools()
        context = AgentContext(messages=list(messages), tools=tools)
        config = SimpleNamespace(
            validate_args=self._get_validator() or resolve_validator(),
            before_tool_call=self._before,
            after_tool_call=self._after,
        )
        prepared = await prepare_tool_call(context, assistant, tool_call, config, signal)
        if isinstance(prepared, ToolOutcome):
            return prepared
        assert isinstance(prepared, PreparedToolCall)

        async def update(partial: object) -> None:
            if on_update is not None:
                outcome = on_update(partial)
                if isinstance(outcome, Awaitable):
                    await outcome
            await self._emit(
                {
                    "type": "tool_execution_update",
                    "toolCallId": tool_call["id"],
                    "toolName": tool_call["name"],
                    "args": tool_call["arguments"],
                    "partialResult": partial,
                    "parentToolCallId": caller_id,
                }
            )

        executed = await execute_prepared_tool_call(prepared, signal, update)
        return await finalize_executed_tool_call(context, assistant, prepared, executed, config, signal)

    def take_record(self, tool_call_id: str) -> tuple[dict[str, object] | None, dict[str, object] | None]:
        """The record and usage of a model-issued call's nested calls (removed)."""
        scope = self._scopes.pop(tool_call_id, None)
        if scope is None:
            return None, None
        return scope.recorder.snapshot(), scope.recorder.usage

    def clear(self) -> None:
        self._scopes.clear()
