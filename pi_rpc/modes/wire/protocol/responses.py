"""The response envelope and the ``data`` shape of every command's success response.

Envelope key order on the wire: ``id``, ``type``, ``command``, ``success``, then ``data`` or
``error``. ``id`` is present iff the request had one (echoed verbatim, any JSON type, ``null``
included); ``command`` is absent when the request had no ``type`` (and is ``"parse"`` for
records that are not JSON); ``data`` is absent when a command returns nothing, and ``null``
only for ``cycle_model``/``cycle_thinking_level`` with nothing to cycle.

Which command answers with which ``data`` model is the command table's (``table``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi_rpc.modes.wire.protocol.base import OpenWireModel, WireModel

# Data models defined with the shapes they share, named by the command table.
from pi_rpc.modes.wire.protocol.host_tools import ActiveToolsData, SetHostToolsData, ToolsData  # noqa: F401
from pi_rpc.modes.wire.protocol.shapes import (  # noqa: F401
    AgentMessage,
    BashResult,
    CompactionResult,
    ModelInfo,
    SessionEntry,
    SessionTreeNode,
    SlashCommand,
)
from pi_rpc.modes.wire.protocol.table import BEYOND_UPSTREAM_COMMANDS, COMMANDS, UPSTREAM_COMMANDS, CommandSpec


class Response(WireModel):
    id: Any = Field(default=None, description="The request's id, verbatim; absent if it had none.")
    type: Literal["response"]
    command: Any = Field(
        default=None,
        description='The request\'s type; "parse" for unparseable input; absent without a type.',
    )
    success: bool
    data: Any = Field(default=None, description="Success payload; absent when there is none.")
    error: str | None = Field(default=None, description="Failure text (success:false only).")
    seq: int | None = Field(
        default=None,
        description="With set_event_options seq on: the record's sequence number (after every other key).",
    )


class PromptData(WireModel):
    disposition: Literal["started", "queued", "handled"]
    run_id: str | None = Field(
        default=None, description='With set_event_options runId on and disposition "started": the run\'s id.'
    )


class AbortData(WireModel):
    outcome: Literal["aborted", "idle"] = Field(
        description='"aborted" when a run, compaction or branch summary was stopped; "idle" when nothing ran.'
    )


class QueueData(WireModel):
    disposition: Literal["queued", "handled"]


class ClearQueueData(WireModel):
    steering: list[str]
    follow_up: list[str]


class CancelledData(WireModel):
    cancelled: bool


class SessionState(WireModel):
    model: ModelInfo
    thinking_level: str
    is_streaming: bool
    is_compacting: bool
    steering_mode: str
    follow_up_mode: str
    session_file: str | None = Field(default=None, description="absent for in-memory sessions")
    session_id: str
    session_name: str | None = Field(default=None, description="absent when unset")
    auto_compaction_enabled: bool
    message_count: int
    pending_message_count: int


class CycleModelData(WireModel):
    model: ModelInfo
    thinking_level: str
    is_scoped: bool


class ModelsData(WireModel):
    models: list[ModelInfo]


class LevelData(WireModel):
    level: str


class LevelsData(WireModel):
    levels: list[str]


class TokenTotals(WireModel):
    input: int
    output: int
    cache_read: int
    cache_write: int
    total: int


class ContextUsage(WireModel):
    tokens: int | None
    context_window: int
    percent: float | None


class SessionStats(OpenWireModel):
    session_file: str | None = None
    session_id: str
    user_messages: int
    assistant_messages: int
    tool_calls: int
    tool_results: int
    total_messages: int
    tokens: TokenTotals
    cost: float
    context_usage: ContextUsage | None = None


class PathData(WireModel):
    path: str


class ForkData(WireModel):
    text: str | None = Field(default=None, description="absent when cancelled")
    cancelled: bool


class ForkMessage(WireModel):
    entry_id: str
    text: str


class ForkMessagesData(WireModel):
    messages: list[ForkMessage]


class EntriesData(WireModel):
    entries: list[SessionEntry]
    leaf_id: str | None


class TreeData(WireModel):
    tree: list[SessionTreeNode]
    leaf_id: str | None


class LastAssistantTextData(WireModel):
    text: str | None = Field(default=None, description="absent when there is no such text")


class MessagesData(WireModel):
    messages: list[AgentMessage]


class CommandsData(WireModel):
    commands: list[SlashCommand]


# ---------------------------------------------------------------- beyond upstream 1.6


class ProtocolLimits(WireModel):
    max_frame_bytes: int
    event_buffer: int = Field(description="How many events get_events can replay at most.")
    max_sessions: int = Field(description='Sessions the process hosts at once, "default" included (--max-sessions).')


class EventOptionsData(WireModel):
    """The effective set_event_options values."""

    seq: bool
    run_id: bool
    handle: bool | None = Field(
        default=None,
        description='The "default" session\'s events carry "handle" too (in set_event_options\'s answer '
        "only when the command had handle or it is on; always in get_protocol_info.features).",
    )


class ProtocolInfoData(WireModel):
    name: Literal["pi_rpc"]
    version: str
    protocol_version: int
    upstream_compat: str
    commands: list[str]
    events: list[str]
    limits: ProtocolLimits
    features: EventOptionsData
    transports: list[Literal["stdio", "unix", "tcp", "ws"]] = Field(
        description="Where this process serves the protocol: stdio, or its --listen listeners' kinds"
    )


class EventsData(WireModel):
    events: list[dict[str, Any]] = Field(description="The event records, each exactly as it was written.")
    last_seq: int
    truncated: bool


class SessionSummary(WireModel):
    path: str
    id: str
    cwd: str
    name: str | None = Field(default=None, description="absent when unnamed")
    parent_session_path: str | None = Field(default=None, description="absent unless forked/cloned")
    created: str | None
    modified: str
    message_count: int
    first_message: str


class SessionsData(WireModel):
    sessions: list[SessionSummary]


class OpenSessionData(WireModel):
    handle: str = Field(description="Names the hosted session in later commands and on its events.")
    session_id: str
    session_file: str | None = Field(description="null without a session file (noSession)")
    cwd: str


class CloseSessionData(WireModel):
    """Only when a session-file write fault kept entries off storage until the close (no
    ``data`` otherwise): they are lost, and never written later."""

    unwritten_entries: int = Field(description="Entries accepted but never stored")
    error: str | None = Field(description="The write fault's text (as in session_write_error)")


class OpenSessionSummary(WireModel):
    handle: str
    session_id: str
    session_file: str | None
    cwd: str
    model: str | None = Field(description='"provider/id", null without a model')
    is_streaming: bool
    pending_message_count: int
    attached: int | None = Field(
        default=None, description="--listen connections: how many connections are attached to it"
    )


class OpenSessionsData(WireModel):
    sessions: list[OpenSessionSummary]


class AttachSessionData(WireModel):
    replayed: int = Field(description="How many ring events were written before this response (0 without since).")
    complete: bool = Field(description="false when the ring no longer held every event numbered above since")


class NavigateTreeData(WireModel):
    cancelled: bool
    editor_text: str | None = Field(default=None, description="the target user message's text")


class ProviderAuthStatus(WireModel):
    provider: str
    name: str = Field(description="the provider's display name")
    auth_type: Literal["oauth", "api_key"] | None = Field(description="null when nothing is configured")
    status: Literal["ready", "expiring", "expired", "missing", "error"] = Field(
        description="expiring: an OAuth token within the 5-minute refresh window; error: a stored entry that cannot be used"
    )
    expires_at: float | None = Field(default=None, description="OAuth: the token's expiry (epoch ms)")
    source: Literal["runtime", "auth.json", "models.json", "environment", "ambient"] | None = Field(
        default=None, description="where the credential comes from; absent when missing"
    )
    login_methods: list[Literal["oauth", "api_key"]] = Field(description="what auth_login can run for it")


class AuthStatusData(WireModel):
    providers: list[ProviderAuthStatus]


class AuthLoginData(WireModel):
    provider: str
    auth_type: Literal["oauth", "api_key"] = Field(description="what was stored (never the secret)")
    expires_at: float | None = Field(default=None, description="OAuth: the new token's expiry (epoch ms)")


class AuthLogoutData(WireModel):
    provider: str
    removed: bool = Field(description="false when nothing was stored")
    auth_type: Literal["oauth", "api_key"] | None = Field(default=None, description="the removed entry's type")


class ScopedModelsData(WireModel):
    models: list[str] = Field(description='The cycling scope, "provider/id" keys; empty: every available model.')


class ReloadData(WireModel):
    warnings: list[str] = Field(description="What the reload could not do (shown as warnings by /reload).")


def _data_model(spec: CommandSpec) -> type[WireModel] | None:
    if spec.response is None:
        return None
    model: object = globals()[spec.response]
    assert isinstance(model, type) and issubclass(model, WireModel), spec.response
    return model


# Each command's success ``data`` model, from the command table; ``None``: success responses
# carry no ``data`` key.
RESPONSE_DATA: dict[str, type[WireModel] | None] = {spec.name: _data_model(spec) for spec in UPSTREAM_COMMANDS}

BEYOND_UPSTREAM_RESPONSE_DATA: dict[str, type[WireModel] | None] = {
    spec.name: _data_model(spec) for spec in BEYOND_UPSTREAM_COMMANDS
}

# Commands whose ``data`` is ours alone: upstream 1.6 answers them without data (and its
# clients ignore data), so a record without it is still a valid response (protocol/README §8).
DATA_ABSENT_UPSTREAM: frozenset[str] = frozenset(spec.name for spec in COMMANDS if spec.data_ours)

NULLABLE_DATA: frozenset[str] = frozenset(spec.name for spec in COMMANDS if spec.nullable)
