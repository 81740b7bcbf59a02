"""Contracts between the agent loop, the tools and the session runtime.

A tool is any object satisfying ``AgentTool``. Its ``execute`` returns an ``AgentToolResult``
dict, passed through to the wire unchanged as ``tool_execution_end.result`` (upstream's shape:
``{content, details?, structuredContent?, isError?}``). A tool signals failure by raising
``ToolError`` (or any exception): the loop turns the message into an error result.

Agent events are dicts in upstream pi-agent-core's in-process shape, e.g.
``{"type":"message_update","message":partial,"assistantMessageEvent":ev}``; the wire layer of
each mode transforms them (drops ``partial``, adds ``usage``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NotRequired, Protocol, TypedDict, runtime_checkable

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import UserContent

if TYPE_CHECKING:
    from pi_rpc.agent.events import AgentEvent


class AgentToolResult(TypedDict):
    content: list[UserContent]
    details: NotRequired[object]
    structuredContent: NotRequired[object]
    isError: NotRequired[bool]


ToolUpdateCallback = Callable[[AgentToolResult], Awaitable[None] | None]


class ToolError(Exception):
    """Raised by a tool to produce an error result whose text is the exception message."""


@runtime_checkable
class AgentTool(Protocol):
    name: str
    label: str
    description: str
    parameters: dict[str, object]  # JSON Schema (upstream's exact parameter schema)

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, object],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult: ...


AgentEventListener = Callable[["AgentEvent"], Awaitable[None]]


# --------------------------------------------------------------------------- loop contracts
# (added by the agent-loop engineer; additive only)

from dataclasses import dataclass, field  # noqa: E402

from pi_rpc.ai.types import AssistantMessage, Message, ToolCall  # noqa: E402


@dataclass
class AgentContext:
    """What one run works on: a copy of the transcript plus the executable tools.

    ``system_prompt`` is only the fallback used when the transcript has no system message."""

    messages: list[Message] = field(default_factory=list)
    tools: list[Any] = field(default_factory=list)
    system_prompt: str = ""


@dataclass
class BeforeToolCallContext:
    """What a ``before_tool_call`` hook sees: the call, its validated arguments, the agent context."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: object  # validated arguments
    context: AgentContext


@dataclass
class AfterToolCallContext:
    """What an ``after_tool_call`` hook sees: the call, its result and whether it failed."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: object
    result: AgentToolResult
    is_error: bool
    context: AgentContext


class BeforeToolCallResult(TypedDict, total=False):
    block: bool
    reason: str
    terminate: bool


class AfterToolCallResult(TypedDict, total=False):
    """Each present key replaces the result's field wholesale; ``isError`` flips the flag."""

    content: list[UserContent]
    details: object
    structuredContent: object
    usage: object
    terminate: bool
    isError: bool


BeforeToolCallHook = Callable[[BeforeToolCallContext, AbortSignal | None], Awaitable[BeforeToolCallResult | None]]
AfterToolCallHook = Callable[[AfterToolCallContext, AbortSignal | None], Awaitable[AfterToolCallResult | None]]
