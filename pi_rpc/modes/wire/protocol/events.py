"""The 24 session events (pi -> client), the two session-file fault events pi_rpc adds, and
the extension UI request family.

The runtime emits plain dicts on the hot path; these models document the shapes, feed the
JSON Schema export and let tests validate what goes on the wire.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from pi_rpc.modes.wire.protocol.base import OpenWireModel, WireModel
from pi_rpc.modes.wire.protocol.host_tools import HostToolCancelled, HostToolRequest, LimitHit
from pi_rpc.modes.wire.protocol.shapes import AgentMessage, CompactionResult, SessionEntry, Usage


class EventBase(WireModel):
    """Fields every session event may carry beyond upstream: ``handle`` on the events of a
    session opened with ``open_session`` (and of ``"default"`` after ``set_event_options
    {handle: true}``), ``runId``/``seq`` only after a client turned them on with
    ``set_event_options``; they come after every other key, in that order."""

    handle: str | None = Field(
        default=None,
        description='The hosted session the event belongs to (absent: "default", unless tagging is on).',
    )
    run_id: str | None = Field(
        default=None,
        description="With runId on: the session-level run this event belongs to (absent outside runs).",
    )
    seq: int | None = Field(
        default=None,
        description="With seq on: the record's sequence number on stdout (grows by 1 per record).",
    )


class AgentStart(EventBase):
    type: Literal["agent_start"]


class AgentEnd(EventBase):
    type: Literal["agent_end"]
    messages: list[AgentMessage]
    will_retry: bool
    limit: LimitHit | None = Field(default=None, description="A run limit ended the run (prompt limits).")
    output: Any = Field(default=None, description="The final answer parsed (prompt outputSchema).")
    output_error: str | None = Field(default=None, description="Why no answer matched the outputSchema.")


class AgentSettled(EventBase):
    type: Literal["agent_settled"]
    aborted: bool


class TurnStart(EventBase):
    type: Literal["turn_start"]


class TurnEnd(EventBase):
    type: Literal["turn_end"]
    message: AgentMessage
    tool_results: list[AgentMessage]


class MessageStart(EventBase):
    type: Literal["message_start"]
    message: AgentMessage


class AssistantMessageEvent(OpenWireModel):
    """``text_*``, ``thinking_*``, ``toolcall_*`` (with ``contentIndex``), ``done``, ``error``."""

    type: str
    content_index: int | None = None


class MessageUpdate(EventBase):
    """No ``message`` key on the wire: only usage plus the delta event."""

    type: Literal["message_update"]
    usage: Usage
    assistant_message_event: AssistantMessageEvent


class MessageEnd(EventBase):
    type: Literal["message_end"]
    message: AgentMessage


class ToolExecutionStart(EventBase):
    type: Literal["tool_execution_start"]
    tool_call_id: str
    tool_name: str
    args: Any
    parent_tool_call_id: str | None = None


class ToolExecutionUpdate(EventBase):
    type: Literal["tool_execution_update"]
    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: Any
    parent_tool_call_id: str | None = None


class ToolExecutionEnd(EventBase):
    type: Literal["tool_execution_end"]
    tool_call_id: str
    tool_name: str
    result: Any
    is_error: bool
    duration_ms: float | None = None
    parent_tool_call_id: str | None = None


class QueueUpdate(EventBase):
    type: Literal["queue_update"]
    steering: list[str]
    follow_up: list[str]


CompactionReason = Literal["manual", "threshold", "overflow"]


class CompactionStart(EventBase):
    type: Literal["compaction_start"]
    reason: CompactionReason


class CompactionEnd(EventBase):
    type: Literal["compaction_end"]
    reason: CompactionReason
    result: CompactionResult | None = Field(default=None, description="absent on failure/abort")
    aborted: bool
    will_retry: bool
    error_message: str | None = None


class AutoRetryStart(EventBase):
    type: Literal["auto_retry_start"]
    attempt: int
    max_attempts: int
    delay_ms: float
    error_message: str


class AutoRetryEnd(EventBase):
    type: Literal["auto_retry_end"]
    success: bool
    attempt: int
    final_error: str | None = None


class SummarizationRetryScheduled(EventBase):
    type: Literal["summarization_retry_scheduled"]
    attempt: int
    max_attempts: int
    delay_ms: float
    error_message: str


class SummarizationRetryAttemptStart(EventBase):
    type: Literal["summarization_retry_attempt_start"]
    source: Literal["compaction", "branchSummary"]
    reason: CompactionReason | None = Field(default=None, description='only for source "compaction"')


class SummarizationRetryFinished(EventBase):
    type: Literal["summarization_retry_finished"]


class EntryAppended(EventBase):
    type: Literal["entry_appended"]
    entry: SessionEntry


class SessionInfoChanged(EventBase):
    type: Literal["session_info_changed"]
    name: str | None = Field(default=None, description="absent = name cleared")


class ThinkingLevelChanged(EventBase):
    type: Literal["thinking_level_changed"]
    level: str


class BashExecutionUpdate(EventBase):
    type: Literal["bash_execution_update"]
    id: Any = Field(default=None, description="the bash command's id, when it had one")
    delta: str


class ExtensionError(EventBase):
    type: Literal["extension_error"]
    extension_path: str
    event: str
    error: str


class SessionWriteError(EventBase):
    """pi_rpc only: entries could not be written to the session file (read-only directory,
    full disk, file-size limit). They stay in memory and are written when the fault is gone."""

    type: Literal["session_write_error"]
    session_file: str
    error: str
    pending_entries: int = Field(description="entries accepted but not yet on disk")


class SessionWriteResumed(EventBase):
    """pi_rpc only: the fault is gone and the entries it held back are in the file."""

    type: Literal["session_write_resumed"]
    session_file: str
    written_entries: int


class ExtensionUiRequest(OpenWireModel):
    """An extension's dialog (``select``/``confirm``/``input``/``editor``: answer with an
    ``extension_ui_response`` carrying this ``id``) or fire-and-forget request (``notify``,
    ``setStatus``, ``setWidget``, ``setTitle``, ``set_editor_text``); protocol/README §10.4.
    Fields a method does not use, or whose value is undefined, are absent."""

    type: Literal["extension_ui_request"]
    id: str = Field(description="a fresh UUID v4")
    method: Literal[
        "select", "confirm", "input", "editor", "notify", "setStatus", "setWidget", "setTitle", "set_editor_text"
    ]
    title: str | None = Field(default=None, description="select, confirm, input, editor, setTitle")
    options: list[str] | None = Field(default=None, description="select")
    message: str | None = Field(default=None, description="confirm, notify")
    placeholder: str | None = Field(default=None, description="input")
    prefill: str | None = Field(default=None, description="editor")
    timeout: float | None = Field(default=None, description="select, confirm, input: milliseconds")
    notify_type: Literal["info", "warning", "error"] | None = Field(default=None, description="notify")
    status_key: str | None = Field(default=None, description="setStatus")
    status_text: str | None = Field(default=None, description="setStatus (absent: clear)")
    widget_key: str | None = Field(default=None, description="setWidget")
    widget_lines: list[str] | None = Field(default=None, description="setWidget (absent: clear)")
    widget_placement: Literal["aboveEditor", "belowEditor"] | None = Field(default=None, description="setWidget")
    text: str | None = Field(default=None, description="set_editor_text")
    handle: str | None = Field(default=None, description="The session whose extension asks (as on events).")


class ExtensionUiResolved(WireModel):
    """--listen: the dialog ``id`` is no longer open (another connection answered it first, or
    it timed out or was aborted); a client showing it should dismiss it."""

    type: Literal["extension_ui_resolved"]
    id: str
    handle: str | None = Field(default=None, description="The session whose extension asked (as on events).")
    seq: int | None = Field(default=None, description="With seq on, as on events.")


EVENT_MODELS: dict[str, type[WireModel]] = {
    "agent_start": AgentStart,
    "agent_end": AgentEnd,
    "agent_settled": AgentSettled,
    "turn_start": TurnStart,
    "turn_end": TurnEnd,
    "message_start": MessageStart,
    "message_update": MessageUpdate,
    "message_end": MessageEnd,
    "tool_execution_start": ToolExecutionStart,
    "tool_execution_update": ToolExecutionUpdate,
    "tool_execution_end": ToolExecutionEnd,
    "queue_update": QueueUpdate,
    "compaction_start": CompactionStart,
    "compaction_end": CompactionEnd,
    "auto_retry_start": AutoRetryStart,
    "auto_retry_end": AutoRetryEnd,
    "summarization_retry_scheduled": SummarizationRetryScheduled,
    "summarization_retry_attempt_start": SummarizationRetryAttemptStart,
    "summarization_retry_finished": SummarizationRetryFinished,
    "entry_appended": EntryAppended,
    "session_info_changed": SessionInfoChanged,
    "thinking_level_changed": ThinkingLevelChanged,
    "bash_execution_update": BashExecutionUpdate,
    "extension_error": ExtensionError,
    "session_write_error": SessionWriteError,
    "session_write_resumed": SessionWriteResumed,
}

Event = Annotated[  # type: ignore[valid-type]  # union built at runtime from the table
    Union[tuple(EVENT_MODELS.values())],
    Field(discriminator="type"),
]

OutboundRecord = Annotated[  # type: ignore[valid-type]  # union built at runtime from the table
    Union[tuple([*EVENT_MODELS.values(), ExtensionUiRequest, ExtensionUiResolved, HostToolRequest, HostToolCancelled])],
    Field(discriminator="type"),
]
