"""Live translation of the session runtime's events into ``session/update`` payloads.

- assistant text and thinking deltas -> ``agent_message_chunk`` / ``agent_thought_chunk``;
- a tool call the model finished writing -> ``tool_call`` (``pending``), its execution ->
  ``tool_call_update`` (``in_progress`` with streamed output, then ``completed``/``failed``
  with the result; edit/write carry a ``diff`` with the file's old and new text);
- retries and compaction -> short ``agent_thought_chunk`` notes, so an editor shows them
  without mixing them into the answer;
- bash running in the editor's terminal (``acp.terminal``) -> the terminal embedded in the call
  (``{"type":"terminal"}``) instead of streamed output.
Edit/write diffs read the file through the session's text access (the editor's buffer when
the client serves files, else the disk) before and after the tool runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.acp.tool_calls import (
    FILE_MUTATIONS,
    absolute_path,
    first_changed_line,
    result_blocks,
    tool_call_fields,
    tool_locations,
)

if TYPE_CHECKING:
    from pi_rpc.ai.types import AssistantMessageEvent
    from pi_rpc.runtime.events import SessionEvent, ToolExecutionEndEvent, ToolExecutionStartEvent

ReadText = Callable[[str], Awaitable[str | None]]


@dataclass
class _Call:
    name: str
    args: dict[str, Any]
    announced: bool = False
    path: str | None = None
    old_text: str | None = None
    terminal_id: str | None = None  # bash running in the editor's terminal (acp.terminal)


def _thought(text: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": text}}


def _terminal(terminal_id: str) -> dict[str, Any]:
    return {"type": "terminal", "terminalId": terminal_id}


def _status_line(block: dict[str, Any]) -> dict[str, Any]:
    """A text content item reduced to its last paragraph (the output is in the terminal)."""
    text = str(block.get("content", {}).get("text", ""))
    return {"type": "content", "content": {"type": "text", "text": text.rsplit("\n\n", 1)[-1]}}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _seconds(ms: Any) -> str:
    return f"{ms / 1000:g}s" if isinstance(ms, (int, float)) else "a moment"


class LiveUpdates:
    def __init__(self, cwd: str, read_text: ReadText) -> None:
        self.cwd = cwd
        self.read_text = read_text
        self.calls: dict[str, _Call] = {}

    def announce(self, call_id: str, name: str, args: dict[str, Any], status: str) -> dict[str, Any] | None:
        """The ``tool_call`` for a call not shown yet (None when it already was)."""
        call = self.calls.get(call_id)
        if call is None:
            call = self.calls[call_id] = _Call(name, args)
        if call.announced:
            return None
        call.announced = True
        return {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            **tool_call_fields(name, args, self.cwd),
            "status": status,
        }

    def attach_terminal(self, call_id: str, terminal_id: str) -> dict[str, Any]:
        """The update embedding the editor's terminal that runs this call; from now on the
        editor shows its output, so streamed output is not sent for it."""
        call = self.calls.get(call_id)
        if call is None:
            call = self.calls[call_id] = _Call("bash", {})
        call.terminal_id = terminal_id
        return {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": "in_progress",
            "content": [_terminal(terminal_id)],
        }

    async def translate(self, event: SessionEvent) -> list[dict[str, Any]]:
        if event["type"] == "message_update":
            inner = event.get("assistantMessageEvent")
            return self._assistant(inner) if inner else []
        if event["type"] == "tool_execution_start":
            return await self._tool_start(event)
        if event["type"] == "tool_execution_update":
            call_id = str(event.get("toolCallId", ""))
            call = self.calls.get(call_id)
            if call is None or call.name in FILE_MUTATIONS or call.terminal_id is not None:
                return []
            content = result_blocks(event.get("partialResult"))
            return [
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call_id,
                    "status": "in_progress",
                    "content": content,
                }
            ]
        if event["type"] == "tool_execution_end":
            return await self._tool_end(event)
        if event["type"] == "auto_retry_start":
            return [
                _thought(
                    f"Retrying (attempt {event.get('attempt')}/{event.get('maxAttempts')}) in "
                    f"{_seconds(event.get('delayMs'))}: {event.get('errorMessage', '')}\n"
                )
            ]
        if event["type"] == "auto_retry_end" and not event.get("success"):
            return [_thought(f"Retries exhausted: {event.get('finalError') or 'the request failed'}\n")]
        if event["type"] == "compaction_start":
            return [_thought(f"Compacting the conversation ({event.get('reason', 'manual')})…\n")]
        if event["type"] == "compaction_end":
            if event.get("errorMessage"):
                return [_thought(f"{event['errorMessage']}\n")]
            if event.get("aborted"):
                return [_thought("Compaction cancelled.\n")]
            result = event.get("result") or {}
            return [_thought(f"Conversation compacted ({result.get('tokensBefore', '?')} tokens before).\n")]
        return []

    def _assistant(self, inner: AssistantMessageEvent) -> list[dict[str, Any]]:
        if inner["type"] == "text_delta" and inner["delta"]:
            return [{"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": inner["delta"]}}]
        if inner["type"] == "thinking_delta" and inner["delta"]:
            return [_thought(inner["delta"])]
        if inner["type"] == "toolcall_end":
            block = inner["toolCall"] or {}
            args = _dict(block.get("arguments"))
            update = self.announce(str(block.get("id", "")), str(block.get("name", "")), args, "pending")
            return [update] if update else []
        return []

    async def _tool_start(self, event: ToolExecutionStartEvent) -> list[dict[str, Any]]:
        call_id = str(event.get("toolCallId", ""))
        name = str(event.get("toolName", ""))
        args = _dict(event.get("args"))
        call = self.calls.get(call_id)
        if call is None:
            call = self.calls[call_id] = _Call(name, args)
        call.args = args
        if name in FILE_MUTATIONS:
            call.path = absolute_path(args.get("path"), self.cwd)
            if call.path is not None:
                call.old_text = await self.read_text(call.path)
        announced = self.announce(call_id, name, args, "in_progress")
        if announced is not None:
            return [announced]
        fields = tool_call_fields(name, args, self.cwd)
        return [
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "status": "in_progress",
                "locations": fields["locations"],
                "rawInput": args,
            }
        ]

    async def _tool_end(self, event: ToolExecutionEndEvent) -> list[dict[str, Any]]:
        call_id = str(event.get("toolCallId", ""))
        call = self.calls.pop(call_id, None) or _Call(str(event.get("toolName", "")), {})
        result = event.get("result")
        failed = bool(event.get("isError"))
        update: dict[str, Any] = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": "failed" if failed else "completed",
        }
        if call.name in FILE_MUTATIONS and call.path is not None and not failed:
            new_text = call.args.get("content") if call.name == "write" else await self.read_text(call.path)
            if isinstance(new_text, str):
                update["content"] = [{"type": "diff", "path": call.path, "oldText": call.old_text, "newText": new_text}]
                update["locations"] = tool_locations(call.name, call.args, self.cwd, first_changed_line(result))
                return [update]
        if call.terminal_id is not None:
            # The terminal shows the output (editors keep it after release); a failure adds
            # its closing status line (exit code, aborted, timed out).
            update["content"] = [_terminal(call.terminal_id)]
            if failed:
                update["content"] += [_status_line(block) for block in result_blocks(result)[-1:]]
            return [update]
        update["content"] = result_blocks(result)
        return [update]
