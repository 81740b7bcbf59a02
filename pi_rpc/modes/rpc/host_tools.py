"""The client's own tools over RPC (host tools) and the tool-control commands.

Commands (each answered with a ``response``): ``set_host_tools {tools}``, ``get_tools``,
``set_active_tools {names}``; the session is the one ``handle`` names.

When the model calls a host tool (after ``tool_execution_start`` and after its arguments
validated against the tool's schema and the extensions' ``tool_call`` hooks ran), the server
writes ``{"type":"host_tool_request","id","toolCallId","name","arguments"}`` (``handle`` after
them when the session's events carry one). The client answers with records that, like
``extension_ui_response``, never get a response:

- ``host_tool_update {id, content, details?}``: becomes a ``tool_execution_update``;
- ``host_tool_result {id, content, isError?, details?}``: ends the call.

An answer whose ``id`` names no pending call (late, or for a call that was cancelled) is
ignored. An answer that is not well formed (``content`` not an array of text/image blocks,
``isError`` not a boolean) ends the call with an error result that says what was wrong; the run
goes on. ``abort`` cancels pending calls, ``--host-tool-timeout`` (default 600 s) ends one with
an error result; in both cases the client is told with ``host_tool_cancelled {id}``. When stdin
ends (the client is gone) pending calls end with an error result and new ones fail at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.errors import CommandError
from pi_rpc.modes.wire.protocol.names import HOST_TOOL_CANCELLED, HOST_TOOL_REQUEST, HOST_TOOL_UPDATE

if TYPE_CHECKING:
    from pi_rpc.modes.rpc.registry import CommandContext
    from pi_rpc.runtime.session import AgentSession

DEFAULT_HOST_TOOL_TIMEOUT_S = 600.0
OPERATION_ABORTED = "Operation aborted"


def content_problem(content: object) -> str | None:
    """Why ``content`` is not tool-result content (text and image blocks), or None."""
    if not isinstance(content, list):
        return '"content" must be an array of text and image blocks'
    for index, block in enumerate(content):
        where = f"content[{index}]"
        if not isinstance(block, dict):
            return f"{where} must be an object"
        kind = block.get("type")
        if kind == "text":
            if not isinstance(block.get("text"), str):
                return f'{where}: a text block needs a string "text"'
        elif kind == "image":
            if not isinstance(block.get("data"), str) or not isinstance(block.get("mimeType"), str):
                return f'{where}: an image block needs string "data" (base64) and "mimeType"'
        else:
            return f'{where}: "type" must be "text" or "image"'
    return None


def _clean_content(content: list[dict[str, object]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for block in content:
        if block["type"] == "text":
            out.append({"type": "text", "text": block["text"]})
        else:
            out.append({"type": "image", "data": block["data"], "mimeType": block["mimeType"]})
    return out


class _Call:
    __slots__ = ("name", "on_update", "done", "result", "error")

    def __init__(self, name: str, on_update: ToolUpdateCallback | None) -> None:
        self.name = name
        self.on_update = on_update
        self.done = anyio.Event()
        self.result: AgentToolResult | None = None
        self.error: str | None = None


class RpcHostChannel:
    """Host-tool calls of one session over the RPC output (``write``: the session's direct
    record writer, which adds its ``handle``)."""

    def __init__(
        self, write: Callable[[dict[str, object]], None], timeout_s: float = DEFAULT_HOST_TOOL_TIMEOUT_S
    ) -> None:
        self._write = write
        self.timeout_s = timeout_s
        self._pending: dict[str, _Call] = {}
        self._closed = False

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    def close(self) -> None:
        """The client can no longer answer (stdin ended): pending calls end with an error."""
        self._closed = True
        pending, self._pending = self._pending, {}
        for call in pending.values():
            call.error = f'The client disconnected before answering host tool "{call.name}"'
            call.done.set()

    async def call(
        self,
        name: str,
        tool_call_id: str,
        args: dict[str, object],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        if self._closed:
            raise ToolError(f'Host tool "{name}" is unavailable: the client disconnected')
        if signal is not None and signal.aborted:
            raise ToolError(OPERATION_ABORTED)
        key = str(uuid.uuid4())
        call = _Call(name, on_update)
        self._pending[key] = call
        remove = signal.add_callback(call.done.set) if signal is not None else None
        timed_out = False
        try:
            self._write(
                {"type": HOST_TOOL_REQUEST, "id": key, "toolCallId": tool_call_id, "name": name, "arguments": args}
            )
            with anyio.move_on_after(self.timeout_s) as scope:
                await call.done.wait()
            timed_out = scope.cancelled_caught
        finally:
            if remove is not None:
                remove()
            still_pending = self._pending.pop(key, None) is not None
            if still_pending and not self._closed:
                # Aborted, timed out or cancelled: the client should stop working on it.
                self._write({"type": HOST_TOOL_CANCELLED, "id": key})
        if call.result is not None:
            return call.result
        if call.error is not None:
            raise ToolError(call.error)
        if timed_out:
            raise ToolError(f'Host tool "{name}" timed out after {self.timeout_s:g} s (--host-tool-timeout)')
        raise ToolError(OPERATION_ABORTED)

    # ------------------------------------------------------------------ the client's answers

    def owns(self, key: object) -> bool:
        return isinstance(key, str) and key in self._pending

    async def update(self, record: dict[str, Any]) -> bool:
        """A ``host_tool_update``; False when it names no pending call."""
        key = record.get("id")
        call = self._pending.get(key) if isinstance(key, str) else None
        if call is None or not isinstance(key, str):
            return False
        problem = content_problem(record.get("content"))
        if problem is not None:
            self._fail(key, f'The client sent an invalid host_tool_update for "{call.name}": {problem}')
            return True
        partial: dict[str, object] = {"content": _clean_content(record["content"])}
        if record.get("details") is not None:
            partial["details"] = record["details"]
        if call.on_update is not None:
            outcome = call.on_update(partial)  # type: ignore[arg-type]
            if outcome is not None and hasattr(outcome, "__await__"):
                await outcome
        return True

    def resolve(self, record: dict[str, Any]) -> bool:
        """A ``host_tool_result``; False when it names no pending call."""
        key = record.get("id")
        call = self._pending.get(key) if isinstance(key, str) else None
        if call is None or not isinstance(key, str):
            return False
        problem = content_problem(record.get("content"))
        if problem is None and "isError" in record and not isinstance(record["isError"], bool):
            problem = '"isError" must be a boolean'
        if problem is not None:
            self._fail(key, f'The client answered host tool "{call.name}" with an invalid result: {problem}')
            return True
        result: dict[str, object] = {"content": _clean_content(record["content"])}
        if record.get("details") is not None:
            result["details"] = record["details"]
        if record.get("isError") is True:
            result["isError"] = True
        self._pending.pop(key, None)
        call.result = result  # type: ignore[assignment]
        call.done.set()
        return True

    def _fail(self, key: str, error: str) -> None:
        call = self._pending.pop(key, None)
        if call is not None:
            call.error = error
            call.done.set()


class HostToolCommands:
    """``set_host_tools``, ``get_tools`` and ``set_active_tools`` of one session."""

    def __init__(self, session: AgentSession, write: Callable[[], Callable[[dict[str, object]], None]]) -> None:
        self._holder = session.holder
        self._write = write
        self.channel: RpcHostChannel | None = None

    @property
    def session(self) -> AgentSession:
        """The holder's current session (a replacement never leaves these commands on an old one)."""
        return self._holder.current

    def _channel(self) -> RpcHostChannel:
        if self.channel is None:
            timeout = self.session.options.host_tool_timeout_s
            self.channel = RpcHostChannel(self._write(), DEFAULT_HOST_TOOL_TIMEOUT_S if timeout is None else timeout)
        return self.channel

    async def cmd_set_host_tools(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        names = self.session.tools().set_host_tools(cmd.get("tools"), self._channel())
        return {"tools": names}

    async def cmd_get_tools(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return {"tools": self.session.tools().get_tools()}

    async def cmd_set_active_tools(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        names = cmd.get("names")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise CommandError('Invalid command "set_active_tools": field "names": expected array of strings')
        return {"activeTools": self.session.tools().set_active_tools(names)}

    def input_closed(self) -> None:
        if self.channel is not None:
            self.channel.close()

    async def answer(self, record: dict[str, object]) -> bool:
        """Route a ``host_tool_result``/``host_tool_update``; False when no call of this
        session has its id."""
        if self.channel is None or not self.channel.owns(record.get("id")):
            return False
        if record.get("type") == HOST_TOOL_UPDATE:
            return await self.channel.update(record)
        return self.channel.resolve(record)
