"""The events the agent loop emits, one TypedDict per ``type``.

They are plain dicts at run time, built in upstream's key order (camelCase keys, exactly what
goes on the wire after ``modes.wire`` has shaped them); these types only let the checker see
which keys an event of a given ``type`` carries. ``runtime.events`` adds the session's own
events on top of these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NotRequired, TypedDict, Union

from pi_rpc.ai.types import AssistantMessageEvent, Message


class AgentStartEvent(TypedDict):
    type: Literal["agent_start"]


class AgentEndEvent(TypedDict):
    """The run's new messages; the session adds ``willRetry`` (and ``limit``/``output``
    when a prompt asked for them) before it passes the event on."""

    type: Literal["agent_end"]
    messages: Sequence[Message]
    willRetry: NotRequired[bool]
    limit: NotRequired[object]
    output: NotRequired[object]
    outputError: NotRequired[str]


class TurnStartEvent(TypedDict):
    type: Literal["turn_start"]


class TurnEndEvent(TypedDict):
    type: Literal["turn_end"]
    message: Message
    toolResults: Sequence[Message]


class MessageStartEvent(TypedDict):
    type: Literal["message_start"]
    message: Message


class MessageUpdateEvent(TypedDict):
    """``message`` is the partial assistant message; the wire drops it (``modes.wire``)."""

    type: Literal["message_update"]
    assistantMessageEvent: AssistantMessageEvent
    message: Message


class MessageEndEvent(TypedDict):
    type: Literal["message_end"]
    message: Message


class ToolExecutionStartEvent(TypedDict):
    type: Literal["tool_execution_start"]
    toolCallId: str
    toolName: str
    args: object
    parentToolCallId: NotRequired[str]


class ToolExecutionUpdateEvent(TypedDict):
    type: Literal["tool_execution_update"]
    toolCallId: str
    toolName: str
    args: object
    partialResult: object
    parentToolCallId: NotRequired[str]


class ToolExecutionEndEvent(TypedDict):
    type: Literal["tool_execution_end"]
    toolCallId: str
    toolName: str
    result: object
    isError: bool
    durationMs: NotRequired[float]
    parentToolCallId: NotRequired[str]


#: Every event the agent loop emits.
AgentEvent = Union[
    AgentStartEvent,
    AgentEndEvent,
    TurnStartEvent,
    TurnEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    MessageEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolExecutionEndEvent,
]
