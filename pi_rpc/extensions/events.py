"""The names of the events extensions subscribe to with ``pi.on(name, handler)`` (upstream pi
1.6's names), which of them this implementation emits, and the shape of each (one TypedDict
per ``type``; ``ExtensionEvent`` is what ``ExtensionRunner.emit`` takes).

Every event reaches a handler as a plain dict with upstream's camelCase keys and its ``"type"``;
what a handler may return (and how several handlers' results compose) is upstream's, see
``pi_rpc.extensions.combine``. ``pi.on`` refuses a name not in ``ALL_EVENTS``. A field typed
``object`` is passed on as the runtime holds it (a message, a model, a handler's own value).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict, Union

from pi_rpc.agent.events import ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.types import Model
    from pi_rpc.session.entries import Entry

# Emitted by this implementation, in the order of upstream's lifecycle documentation.
STARTUP_EVENTS = (
    "project_trust",  # {cwd} -> {trusted: yes|no|undecided, remember?} (limited ctx; before the session)
)
SESSION_EVENTS = (
    "session_start",  # {reason: startup|reload|new|resume|fork, previousSessionFile?}
    "resources_discover",  # {cwd, reason: startup|reload} -> {skillPaths?, promptPaths?}
    "mcp_servers_change",  # {servers: [{name, config, extensionPath}]} after pi.register_mcp_server changes
    "session_info_changed",  # {name?}
    "session_before_switch",  # {reason: new|resume, targetSessionFile?} -> {cancel?}
    "session_before_fork",  # {entryId, position} -> {cancel?}
    "session_before_compact",  # {preparation, branchEntries, customInstructions?, reason, willRetry, signal} -> {cancel?|compaction?}
    "session_compact",  # {compactionEntry, fromExtension, reason, willRetry}
    "session_compact_failed",  # {reason, errorMessage?, aborted, willRetry, fromExtension}
    "session_before_tree",  # {preparation, signal} -> {cancel?|summary?|customInstructions?|replaceInstructions?|label?}
    "session_tree",  # {newLeafId, oldLeafId, summaryEntry?, fromExtension?}
    "session_shutdown",  # {reason: quit|reload|new|resume|fork, targetSessionFile?}
)
AGENT_EVENTS = (
    "input",  # {text, images?, source: rpc|extension|sdk, streamingBehavior?} -> {action: continue|transform|handled}
    "before_agent_start",  # {messageType, prompt?, images?, message?, systemPrompt, systemPromptOptions (edit in place)} -> {message?, systemPrompt?}
    "agent_start",
    "agent_end",  # {messages}
    "agent_before_settle",  # {outcome, entries, continue, context} -> {entries?, continue?} (actionable boundary)
    "agent_settled",  # {aborted}
    "turn_start",  # {turnIndex, timestamp}
    "turn_end",  # {turnIndex, message, toolResults, messageEntryId, toolResultEntryIds, outcome, entries, continue, context} -> {entries?, continue?}
    "message_start",  # {message}
    "message_update",  # {message, assistantMessageEvent}
    "message_end",  # {message} -> {message?} (same role)
    "tool_execution_start",  # {toolCallId, toolName, args}
    "tool_execution_update",  # {toolCallId, toolName, args, partialResult}
    "tool_execution_end",  # {toolCallId, toolName, result, isError, durationMs?}
    "tool_call",  # {toolName, toolCallId, input} -> {block?, reason?, terminate?}; input is mutable
    "tool_result",  # {toolName, toolCallId, input, content, details, isError, usage?} -> patch
    "context",  # {messages} (no system messages; a deep copy) -> {messages?}
    "context_with_system",  # {messages} (the full transcript) -> {messages?}, sent as returned
    "before_provider_headers",  # {headers} (mutate in place; None deletes)
    "before_provider_request",  # {payload} -> a replacement payload
    "after_provider_response",  # {status, headers}
    "provider_stream_event",  # {provider, api, model, data} for each parsed stream event (HTTP providers)
    "model_select",  # {model, previousModel?, source: set|cycle}
    "thinking_level_select",  # {level, previousLevel}
    "user_bash",  # {command, excludeFromContext, cwd} -> {result}|{operations}
    "ui_prompt_start",  # {reason: "ui_prompt", kind, title?}
    "ui_prompt_end",
)
EMITTED_EVENTS = STARTUP_EVENTS + SESSION_EVENTS + AGENT_EVENTS

# Upstream events accepted by ``pi.on`` that this implementation never emits: pi_rpc has no
# idle prompt-cache refresh, so there is no cache warming decision to make.
NEVER_EMITTED_EVENTS = ("cache_warming_decision",)

ALL_EVENTS = EMITTED_EVENTS + NEVER_EMITTED_EVENTS

# A handler result with {"cancel": True} stops these operations (first cancel wins).
CANCELLABLE_EVENTS = frozenset(
    {"session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree"}
)


# --------------------------------------------------------------------------- event shapes
# startup and session


class ProjectTrustEvent(TypedDict):
    type: Literal["project_trust"]
    cwd: str


class SessionStartEvent(TypedDict):
    type: Literal["session_start"]
    reason: str  # startup | reload | new | resume | fork
    previousSessionFile: str | None


class ResourcesDiscoverEvent(TypedDict):
    type: Literal["resources_discover"]
    cwd: str
    reason: Literal["startup", "reload"]


class McpServersChangeEvent(TypedDict):
    type: Literal["mcp_servers_change"]
    servers: list[dict[str, object]]  # {name, config, extensionPath}


class SessionInfoChangedEvent(TypedDict):
    type: Literal["session_info_changed"]
    name: NotRequired[str | None]


class SessionBeforeSwitchEvent(TypedDict):
    type: Literal["session_before_switch"]
    reason: str  # new | resume
    targetSessionFile: str | None


class SessionBeforeForkEvent(TypedDict):
    type: Literal["session_before_fork"]
    entryId: str
    position: str  # before | at


class SessionBeforeCompactEvent(TypedDict):
    type: Literal["session_before_compact"]
    preparation: dict[str, object]
    branchEntries: list[Entry]
    customInstructions: str | None
    reason: str
    willRetry: bool
    signal: AbortSignal


class SessionCompactEvent(TypedDict):
    type: Literal["session_compact"]
    compactionEntry: Entry | None
    fromExtension: bool
    reason: str
    willRetry: bool


class SessionCompactFailedEvent(TypedDict):
    type: Literal["session_compact_failed"]
    reason: str
    errorMessage: NotRequired[str]
    aborted: bool
    willRetry: bool
    fromExtension: bool


class SessionBeforeTreeEvent(TypedDict):
    type: Literal["session_before_tree"]
    preparation: dict[str, object]
    signal: AbortSignal | None  # None when no summary is asked for


class SessionTreeEvent(TypedDict):
    type: Literal["session_tree"]
    newLeafId: str | None
    oldLeafId: str | None
    summaryEntry: Entry | None
    fromExtension: bool | None


class SessionShutdownEvent(TypedDict):
    type: Literal["session_shutdown"]
    reason: str  # quit | reload | new | resume | fork
    targetSessionFile: str | None


# the agent run


class InputEvent(TypedDict):
    type: Literal["input"]
    text: str
    images: list[dict[str, object]] | None
    source: str  # rpc | extension | sdk
    streamingBehavior: str | None


class BeforeAgentStartEvent(TypedDict):
    """The prompt's trigger (``messageType``, ``prompt``, ``images``, ``message``, ``systemPrompt``)
    and the ``systemPromptOptions`` handlers edit in place."""

    type: Literal["before_agent_start"]
    messageType: NotRequired[str]
    prompt: NotRequired[object]
    images: NotRequired[object]
    message: NotRequired[object]
    systemPrompt: NotRequired[object]
    systemPromptOptions: dict[str, object]


class AgentStartNotice(TypedDict):
    type: Literal["agent_start"]


class AgentEndNotice(TypedDict):
    type: Literal["agent_end"]
    messages: object


class AgentSettledEvent(TypedDict):
    type: Literal["agent_settled"]
    aborted: bool


class TurnStartNotice(TypedDict):
    type: Literal["turn_start"]
    turnIndex: int
    timestamp: int


class TurnEndBoundaryEvent(TypedDict):
    """``turn_end`` as an actionable boundary; the fold adds ``entries``, ``continue`` and
    ``context`` (``combine.BoundaryProposal``)."""

    type: Literal["turn_end"]
    turnIndex: int
    message: object
    toolResults: Sequence[object]
    messageEntryId: str | None
    toolResultEntryIds: list[str]
    outcome: str


class AgentBeforeSettleEvent(TypedDict):
    type: Literal["agent_before_settle"]
    outcome: str


class MessageStartNotice(TypedDict):
    type: Literal["message_start"]
    message: object


class MessageUpdateNotice(TypedDict):
    type: Literal["message_update"]
    message: object
    assistantMessageEvent: object


class MessageEndNotice(TypedDict):
    type: Literal["message_end"]
    message: object


class ToolCallEvent(TypedDict):
    """``input`` is the call's live arguments: a handler's mutation is what the tool runs with."""

    type: Literal["tool_call"]
    toolName: object
    toolCallId: object
    input: object


class ToolResultEvent(TypedDict):
    type: Literal["tool_result"]
    toolName: object
    toolCallId: object
    input: object
    content: object
    details: object
    structuredContent: NotRequired[object]
    isError: bool
    usage: object


class ContextEvent(TypedDict):
    type: Literal["context", "context_with_system"]
    messages: object  # the transcript's messages (a deep copy for ``context``)


class BeforeProviderHeadersEvent(TypedDict):
    type: Literal["before_provider_headers"]
    headers: dict[str, object]


class BeforeProviderRequestEvent(TypedDict):
    type: Literal["before_provider_request"]
    payload: object


class AfterProviderResponseEvent(TypedDict):
    type: Literal["after_provider_response"]
    status: int
    headers: dict[str, str]


class ProviderStreamEvent(TypedDict):
    type: Literal["provider_stream_event"]
    provider: object
    api: object
    model: object
    data: object


class ModelSelectEvent(TypedDict):
    type: Literal["model_select"]
    model: Model
    previousModel: Model | None
    source: str  # set | cycle


class ThinkingLevelSelectEvent(TypedDict):
    type: Literal["thinking_level_select"]
    level: str
    previousLevel: str


class UserBashEvent(TypedDict):
    type: Literal["user_bash"]
    command: str
    excludeFromContext: bool
    cwd: str


class UIPromptEvent(TypedDict):
    type: Literal["ui_prompt_start", "ui_prompt_end"]
    reason: Literal["ui_prompt"]
    kind: str
    title: NotRequired[str]


#: The agent's tool execution events, passed on to extensions as the agent emitted them.
ToolExecutionEvent = Union[ToolExecutionStartEvent, ToolExecutionUpdateEvent, ToolExecutionEndEvent]

#: The actionable boundaries (``ExtensionRunner.emit_boundary``).
BoundaryEvent = Union[TurnEndBoundaryEvent, AgentBeforeSettleEvent]

#: Every event ``ExtensionRunner.emit`` dispatches (the agent's tool execution events are
#: passed on as the agent emits them).
ExtensionEvent = Union[
    ProjectTrustEvent,
    SessionStartEvent,
    ResourcesDiscoverEvent,
    McpServersChangeEvent,
    SessionInfoChangedEvent,
    SessionBeforeSwitchEvent,
    SessionBeforeForkEvent,
    SessionBeforeCompactEvent,
    SessionCompactEvent,
    SessionCompactFailedEvent,
    SessionBeforeTreeEvent,
    SessionTreeEvent,
    SessionShutdownEvent,
    InputEvent,
    BeforeAgentStartEvent,
    AgentStartNotice,
    AgentEndNotice,
    AgentSettledEvent,
    TurnStartNotice,
    TurnEndBoundaryEvent,
    AgentBeforeSettleEvent,
    MessageStartNotice,
    MessageUpdateNotice,
    MessageEndNotice,
    ToolExecutionEvent,
    ToolCallEvent,
    ToolResultEvent,
    ContextEvent,
    BeforeProviderHeadersEvent,
    BeforeProviderRequestEvent,
    AfterProviderResponseEvent,
    ProviderStreamEvent,
    ModelSelectEvent,
    ThinkingLevelSelectEvent,
    UserBashEvent,
    UIPromptEvent,
]
