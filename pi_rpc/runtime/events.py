"""The session's events: what ``AgentSession.emit`` hands its listeners (the modes, the
listeners of ``--listen``, the SDK) and what extensions see through the port.

One TypedDict per ``type``: the agent loop's events (``agent.events``) and the ones the session
adds (queue, compaction, retry, entries, write faults). They stay plain dicts, built in
upstream's key order with camelCase keys, so the wire bytes are what they were; the types only
tell the checker which keys each ``type`` carries. ``modes.wire.protocol.events`` describes the
same events as they look on the wire (pydantic, for the schema export).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Literal, NotRequired, TypedDict, Union

from pi_rpc.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_rpc.compaction.events import (
    SummarizationRetryAttemptStartEvent,
    SummarizationRetryEvent,
    SummarizationRetryFinishedEvent,
    SummarizationRetryScheduledEvent,
)
from pi_rpc.session.entries import Entry

__all__ = [
    "AgentEndEvent",
    "AgentEvent",
    "AgentSettledEvent",
    "AgentStartEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionUpdateEvent",
    "CompactionEndEvent",
    "CompactionStartEvent",
    "EntryAppendedEvent",
    "EmitEvent",
    "ExtensionErrorEvent",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "QueueUpdateEvent",
    "SessionEvent",
    "SessionInfoChangedEvent",
    "SessionListener",
    "SessionWriteErrorEvent",
    "SessionWriteResumedEvent",
    "SummarizationRetryAttemptStartEvent",
    "SummarizationRetryEvent",
    "SummarizationRetryFinishedEvent",
    "SummarizationRetryScheduledEvent",
    "ThinkingLevelChangedEvent",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "TurnEndEvent",
    "TurnStartEvent",
]


class AgentSettledEvent(TypedDict):
    type: Literal["agent_settled"]
    aborted: bool


class QueueUpdateEvent(TypedDict):
    type: Literal["queue_update"]
    steering: list[str]
    followUp: list[str]


class CompactionStartEvent(TypedDict):
    type: Literal["compaction_start"]
    reason: str


class CompactionEndEvent(TypedDict):
    type: Literal["compaction_end"]
    reason: str
    result: NotRequired[Mapping[str, object]]  # compaction.CompactionResult as stored
    aborted: bool
    willRetry: bool
    errorMessage: NotRequired[str]


class AutoRetryStartEvent(TypedDict):
    type: Literal["auto_retry_start"]
    attempt: int
    maxAttempts: int
    delayMs: float
    errorMessage: str


class AutoRetryEndEvent(TypedDict):
    type: Literal["auto_retry_end"]
    success: bool
    attempt: int
    finalError: NotRequired[str]


class EntryAppendedEvent(TypedDict):
    type: Literal["entry_appended"]
    entry: Entry | None


class SessionInfoChangedEvent(TypedDict):
    type: Literal["session_info_changed"]
    name: NotRequired[str | None]


class ThinkingLevelChangedEvent(TypedDict):
    type: Literal["thinking_level_changed"]
    level: str


class BashExecutionUpdateEvent(TypedDict):
    type: Literal["bash_execution_update"]
    id: NotRequired[object]
    delta: str


class ExtensionErrorEvent(TypedDict):
    type: Literal["extension_error"]
    extensionPath: str
    event: str
    error: str


class SessionWriteErrorEvent(TypedDict):
    """pi_rpc only: entries could not be written to the session file (kept in memory)."""

    type: Literal["session_write_error"]
    sessionFile: str
    error: str
    pendingEntries: int


class SessionWriteResumedEvent(TypedDict):
    """pi_rpc only: the entries a write fault held back are in the file."""

    type: Literal["session_write_resumed"]
    sessionFile: str
    writtenEntries: int


#: Every event a session emits to its listeners.
SessionEvent = Union[
    AgentEvent,
    AgentSettledEvent,
    QueueUpdateEvent,
    CompactionStartEvent,
    CompactionEndEvent,
    AutoRetryStartEvent,
    AutoRetryEndEvent,
    SummarizationRetryEvent,
    EntryAppendedEvent,
    SessionInfoChangedEvent,
    ThinkingLevelChangedEvent,
    BashExecutionUpdateEvent,
    ExtensionErrorEvent,
    SessionWriteErrorEvent,
    SessionWriteResumedEvent,
]

#: Where a session's events go: ``AgentSession.emit`` as the parts see it, and every listener.
EmitEvent = Callable[[SessionEvent], Awaitable[None]]

#: A client of the session's events (a mode, ``--listen``, the SDK): ``AgentSession.subscribe``.
SessionListener = Callable[[SessionEvent], Awaitable[None]]
