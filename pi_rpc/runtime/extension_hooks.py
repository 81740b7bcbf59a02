"""``AgentHooks``: where a session's agent loop and provider stream call its extensions.

Agent events reach extensions before clients (upstream order; a ``message_end`` handler may
replace the message before it is recorded); ``turn_end`` and ``agent_before_settle`` are
actionable boundaries (``boundaries``); ``tool_call`` / ``tool_result`` wrap every tool call,
model-issued or nested (``ctx.execute_tool``); ``context`` / ``context_with_system`` shape each
request's messages; the provider-request hooks see headers, payload, response and stream events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.ai.transcript import get_current_system_message
from pi_rpc.runtime.boundaries import Boundaries
from pi_rpc.runtime.extension_state import ExtensionState, now_ms

if TYPE_CHECKING:
    from pi_rpc.agent.loop import TurnDecision, TurnSnapshot
    from pi_rpc.agent.types import AfterToolCallContext, BeforeToolCallContext
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.types import Message
    from pi_rpc.extensions.events import ToolExecutionEvent, ToolResultEvent
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.extension_port import SessionWiring
    from pi_rpc.runtime.nested_tools import NestedToolCalls

# Provider-request events: with no handler for any of them no hook is installed on the stream.
REQUEST_EVENTS = (
    "before_provider_headers",
    "before_provider_request",
    "after_provider_response",
    "provider_stream_event",
)


def _without_declarations(message: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    """A system message without the declarations ``prepareLoadout`` hooks hide from requests
    (codemode's ``only`` mode): the tools stay executable, the model reaches them by script."""
    if message.get("role") != "system" or not (message.get("toolsAdded") or message.get("toolsRemoved")):
        return message
    out = {k: v for k, v in message.items() if k not in ("toolsAdded", "toolsRemoved")}
    added = [t for t in message.get("toolsAdded") or [] if t.get("name") not in hidden]
    removed = [t for t in message.get("toolsRemoved") or [] if t.get("name") not in hidden]
    if added:
        out["toolsAdded"] = added
    if removed:
        out["toolsRemoved"] = removed
    return out


def _replace_message(target: dict[str, object], replacement: dict[str, object]) -> None:
    """A ``message_end`` handler's replacement becomes the message itself (it is recorded and
    sent as this object); a message role without content gets an empty one."""
    if replacement.get("content") is None and replacement.get("role") in ("user", "assistant", "toolResult", "custom"):
        replacement = {**replacement, "content": []}
    if replacement is not target:
        target.clear()
        target.update(replacement)


class AgentHooks:
    """The agent-loop and stream hooks of one session with extensions."""

    def __init__(self, state: ExtensionState, wiring: SessionWiring) -> None:
        self.state = state
        self.wiring = wiring
        self.boundaries = Boundaries(state, wiring)
        self.nested: NestedToolCalls | None = None  # once a tool calls ctx.execute_tool

    # ------------------------------------------------------------------ agent events

    async def on_agent_event(self, event: Mapping[str, Any]) -> None:
        """Extensions see every agent event before clients do (upstream order)."""
        runner = self.state.runner
        if runner is None:
            return
        etype = event.get("type")
        if etype == "message_update":
            # One per streamed delta: the event is built only for a handler.
            if runner.has_handlers(etype):
                await runner.emit(
                    {
                        "type": etype,
                        "message": event.get("message"),
                        "assistantMessageEvent": event.get("assistantMessageEvent"),
                    }
                )
            return
        if (
            etype == "message_start"
            and (event.get("message") or {}).get("role") == "toolResult"
            and "parentToolCallId" not in event
        ):
            self.take_nested_record(event["message"])
        elif etype == "agent_end" and self.nested is not None:
            self.nested.clear()
        if etype == "agent_start":
            self.state.turn_index = 0
            await runner.emit({"type": "agent_start"})
        elif etype == "agent_end":
            await runner.emit({"type": "agent_end", "messages": event.get("messages") or []})
        elif etype == "turn_start":
            await runner.emit({"type": "turn_start", "turnIndex": self.state.turn_index, "timestamp": now_ms()})
        elif etype == "turn_end":
            # turn_end is an actionable boundary: the loop's finish_turn ran its handlers before
            # this event; a turn the loop did not finish (a failed run) runs them here.
            message = event.get("message")
            if (
                isinstance(message, dict)
                and message.get("role") == "assistant"
                and not self.boundaries.take_dispatched(message)
            ):
                await self.boundaries.turn_end(message, event.get("toolResults") or [])
            self.state.turn_index += 1
        elif etype == "message_end":
            replacement = await runner.emit({"type": "message_end", "message": event["message"]})
            if replacement is not None:
                _replace_message(event["message"], replacement)
        elif etype == "message_start":
            await runner.emit({"type": etype, "message": event.get("message")})
        elif etype in ("tool_execution_start", "tool_execution_update", "tool_execution_end"):
            # The agent's own event (a copy), as it emitted it.
            await runner.emit(cast("ToolExecutionEvent", dict(event)))

    async def finish_turn(self, turn: TurnSnapshot, signal: AbortSignal | None) -> TurnDecision | None:
        """The agent loop's ``finish_turn``: ``turn_end`` handlers may ask for one more request."""
        return "continue" if await self.boundaries.finish_turn(turn.message, turn.tool_results) else None

    async def after_turn_end(self) -> None:
        """Custom messages sent while the turn ran (``triggerTurn: False``) land after it."""
        self.state.deliver_pending_custom_messages()

    # ------------------------------------------------------------------ tool calls

    async def before_tool_call(self, context: BeforeToolCallContext, signal: AbortSignal | None) -> Any:
        """``tool_call`` handlers (the first block wins; a raising one blocks the call), then
        the mode's tool gate unless a handler blocked."""
        runner = self.state.runner
        verdict = None
        if runner is not None:
            verdict = await runner.emit(
                {
                    "type": "tool_call",
                    "toolName": context.tool_call.get("name"),
                    "toolCallId": context.tool_call.get("id"),
                    "input": context.args,
                }
            )
        gate = self.wiring.tool_gate
        if gate is not None and not (isinstance(verdict, dict) and verdict.get("block")):
            return await gate(context, signal) or verdict
        return verdict

    async def after_tool_call(self, context: AfterToolCallContext, signal: AbortSignal | None) -> Any:
        """``tool_result`` handlers' patch of the result (None: unchanged)."""
        runner = self.state.runner
        if runner is None:
            return None
        result = context.result
        event: dict[str, object] = {
            "type": "tool_result",
            "toolName": context.tool_call.get("name"),
            "toolCallId": context.tool_call.get("id"),
            "input": context.args,
            "content": result.get("content"),
            "details": result.get("details"),
        }
        if result.get("structuredContent") is not None:
            event["structuredContent"] = result.get("structuredContent")
        event["isError"] = context.is_error
        event["usage"] = result.get("usage")
        return await runner.emit(cast("ToolResultEvent", event))  # built in upstream's key order

    async def execute_tool(
        self, caller_id: str, name: str, args: Any, signal: AbortSignal | None, on_update: Any = None
    ) -> dict[str, object]:
        """``ctx.execute_tool``: a nested call through the agent's tool pipeline."""
        if self.nested is None:
            from pi_rpc.runtime.nested_tools import NestedToolCalls

            view, wiring = self.state.port.state, self.wiring

            async def emit(event: SessionEvent) -> None:
                await self.on_agent_event(event)
                await wiring.emit(event)

            self.nested = NestedToolCalls(
                get_tools=self.state.loadout.callable_tools,
                get_messages=lambda: view.messages,
                get_validator=lambda: wiring.argument_validator,
                before_tool_call=self.before_tool_call,
                after_tool_call=self.after_tool_call,
                emit=emit,
            )
        return await self.nested.execute(caller_id, name, args, signal, on_update)

    def take_nested_record(self, message: dict[str, Any]) -> None:
        """Record a model-issued call's nested calls (and their usage) on its result message."""
        if self.nested is None:
            return
        calls, usage = self.nested.take_record(str(message.get("toolCallId")))
        if calls is not None:
            message["nestedCalls"] = calls
        if usage is not None:
            from pi_rpc.runtime.nested_tools import add_usage

            message["usage"] = add_usage(message.get("usage"), usage) if message.get("usage") else usage

    # ------------------------------------------------------------------ requests

    async def transform_context(self, agent_messages: list[Message], signal: AbortSignal | None) -> list[Message]:
        # Extensions see and return plain JSON objects: the steps below work on that view.
        messages = cast("list[dict[str, Any]]", agent_messages)
        """``context`` / ``context_with_system`` handlers, then the prompt a
        ``before_agent_start`` forced and the declarations the loadout hides."""
        state = self.state
        if state.runner is not None:
            messages = await state.runner.emit_context(messages)
        forced = state.forced_system_prompt
        if forced is not None:
            current = get_current_system_message(messages)
            head: dict[str, Any] = {"role": "system", "content": forced}
            if current is not None and current.get("toolsAdded"):
                head["toolsAdded"] = current["toolsAdded"]
            head["timestamp"] = current.get("timestamp") if current is not None else now_ms()
            messages = [head, *[m for m in messages if m.get("role") != "system"]]
        hidden = state.loadout.hidden_declarations
        if hidden:
            messages = [_without_declarations(m, hidden) for m in messages]
        return cast("list[Message]", messages)

    def request_hooks(self) -> dict[str, object]:
        """``StreamOptions`` hooks for ``before_provider_headers`` / ``before_provider_request``
        / ``after_provider_response`` / ``provider_stream_event``; none without a handler for
        any of them (the stream then runs as without extensions)."""
        runner = self.state.runner
        if runner is None or not any(runner.has_handlers(name) for name in REQUEST_EVENTS):
            return {}
        state = self.state

        async def on_request(headers: dict[str, object], body: object) -> tuple[dict[str, object], object]:
            live = state.runner
            if live is None:
                return headers, body
            headers = await live.emit({"type": "before_provider_headers", "headers": headers})
            body = await live.emit({"type": "before_provider_request", "payload": body})
            return headers, body

        async def on_response(status: int, headers: dict[str, str]) -> None:
            await state.emit({"type": "after_provider_response", "status": status, "headers": headers})

        async def on_stream_event(data: object, model: dict[str, object]) -> None:
            await state.emit(
                {
                    "type": "provider_stream_event",
                    "provider": model.get("provider"),
                    "api": model.get("api"),
                    "model": model.get("id"),
                    "data": data,
                }
            )

        hooks: dict[str, object] = {"on_request": on_request, "on_response": on_response}
        if runner.has_handlers("provider_stream_event"):  # called per stream event: only for a handler
            hooks["on_stream_event"] = on_stream_event
        return hooks
