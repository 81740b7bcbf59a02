"""Shapes of everything that crosses the LLM layer: messages, content blocks, usage, models,
stream events and stream options.

Messages, content blocks, usage and models are plain ``dict`` objects at run time (typed here
with ``TypedDict``) whose keys are exactly upstream pi's camelCase wire keys, in upstream's key
order. They go to stdout, into session files and back without any renaming, and an absent key
stays absent (never ``None``) unless upstream writes ``null``.
"""

# No ``from __future__ import annotations`` here: typing turns every string annotation of a
# TypedDict into a ForwardRef, compiling it at import (80 of them here, on the way to the first
# request); evaluated annotations cost nothing of the kind. Names imported only for type
# checking are quoted.

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict, TypeGuard, Union

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    import httpx

    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.redaction import RequestSecrets

# --------------------------------------------------------------------------- content blocks


class TextContent(TypedDict):
    type: Literal["text"]
    text: str
    textSignature: NotRequired[str]


class ImageContent(TypedDict):
    type: Literal["image"]
    data: str  # base64
    mimeType: str


class ThinkingContent(TypedDict):
    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str]
    redacted: NotRequired[bool]


class ToolCall(TypedDict):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, object]
    thoughtSignature: NotRequired[str]
    argumentsError: NotRequired[str]


AssistantContent = Union[TextContent, ThinkingContent, ToolCall]
UserContent = Union[TextContent, ImageContent]

# --------------------------------------------------------------------------- usage


class UsageCost(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float
    totalFromProvider: NotRequired[bool]


class Usage(TypedDict):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    cacheWrite1h: NotRequired[int]
    reasoning: NotRequired[int]
    totalTokens: int
    cost: UsageCost


StopReason = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]

# --------------------------------------------------------------------------- messages


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[UserContent]
    timestamp: int  # Unix ms


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: list[AssistantContent]
    api: str
    provider: str
    model: str
    usage: Usage
    stopReason: StopReason
    timestamp: int  # Unix ms, request start
    responseModel: NotRequired[str]
    responseId: NotRequired[str]
    errorMessage: NotRequired[str]
    rawStopReason: NotRequired[str]
    durationMs: NotRequired[int]
    thinkingLevel: NotRequired[str]
    providerThinkingLevel: NotRequired[str]


class ToolResultMessage(TypedDict):
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: list[UserContent]
    details: NotRequired[object]
    usage: NotRequired[Usage]  # the tool's own usage, outside the context accounting
    nestedCalls: NotRequired[list[dict[str, object]]]  # tools this tool called (kept, never sent)
    isError: bool
    timestamp: int
    durationMs: NotRequired[int]


class SystemMessage(TypedDict):
    role: Literal["system"]
    content: str | list[TextContent]
    sections: NotRequired[dict[str, str | None]]
    timestamp: int
    toolsAdded: NotRequired[list[dict[str, Any]]]
    toolsRemoved: NotRequired[list[dict[str, Any]]]


# The agent also carries the coding agent's roles (upstream ``core/messages.ts``); they are
# converted to LLM messages (``agent.convert.convert_to_llm``) before a provider sees them.


class BashExecutionMessage(TypedDict):
    """An RPC ``bash`` command's record (``!``; ``!!`` sets ``excludeFromContext``)."""

    role: Literal["bashExecution"]
    command: str
    output: str
    exitCode: NotRequired[int]  # absent when killed, cancelled or timed out
    cancelled: bool
    truncated: bool
    fullOutputPath: NotRequired[str]
    excludeFromContext: NotRequired[bool]
    timestamp: int


class CustomMessage(TypedDict):
    """A message an extension sent (``pi.sendMessage``); reaches the model as user content."""

    role: Literal["custom"]
    customType: str
    content: str | list[UserContent]
    display: bool
    details: NotRequired[object]
    timestamp: int


class BranchSummaryMessage(TypedDict):
    role: Literal["branchSummary"]
    summary: str
    fromId: str | None
    timestamp: int


class CompactionSummaryMessage(TypedDict):
    role: Literal["compactionSummary"]
    summary: str
    tokensBefore: int
    timestamp: int


#: What a provider sees (after conversion).
LlmMessage = Union[UserMessage, AssistantMessage, ToolResultMessage, SystemMessage]
#: Anything in an agent's transcript: the LLM roles plus the coding agent's own.
Message = Union[
    UserMessage,
    AssistantMessage,
    ToolResultMessage,
    SystemMessage,
    BashExecutionMessage,
    CustomMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
]


# Role tests that narrow a ``Message`` for the type checker. They read ``role`` with ``.get``:
# a message read back from a hand-edited session file may have none.


def is_user(message: Message) -> TypeGuard[UserMessage]:
    return message.get("role") == "user"


def is_assistant(message: Message) -> TypeGuard[AssistantMessage]:
    return message.get("role") == "assistant"


def is_tool_result(message: Message) -> TypeGuard[ToolResultMessage]:
    return message.get("role") == "toolResult"


def is_system(message: Message) -> TypeGuard[SystemMessage]:
    return message.get("role") == "system"


def is_bash_execution(message: Message) -> TypeGuard[BashExecutionMessage]:
    return message.get("role") == "bashExecution"


def is_custom(message: Message) -> TypeGuard[CustomMessage]:
    return message.get("role") == "custom"


def is_branch_summary(message: Message) -> TypeGuard[BranchSummaryMessage]:
    return message.get("role") == "branchSummary"


def is_compaction_summary(message: Message) -> TypeGuard[CompactionSummaryMessage]:
    return message.get("role") == "compactionSummary"


def is_tool_call(block: AssistantContent) -> TypeGuard[ToolCall]:
    return block.get("type") == "toolCall"


def tool_calls_of(message: AssistantMessage) -> list[ToolCall]:
    """The message's tool calls, in order."""
    return [b for b in message.get("content") or [] if is_tool_call(b)]


# --------------------------------------------------------------------------- tools and context


class Tool(TypedDict):
    """A tool as offered to a model: name, description and a JSON Schema for the arguments."""

    name: str
    description: str
    parameters: dict[str, object]


@dataclass
class Context:
    """What one model request sees. ``messages`` hold only LLM roles (user, assistant,
    toolResult); the system prompt travels separately."""

    system_prompt: str = ""
    messages: list[Message] = field(default_factory=list)
    tools: list[Tool] = field(default_factory=list)
    # The LLM messages with their system messages as stored (prompt sections, tool deltas), for
    # APIs that send pi's own transcript (``pi-messages``); None when the caller has none.
    transcript: list[Message] | None = None


# --------------------------------------------------------------------------- model


class ModelCost(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float


class Model(TypedDict):
    """Key order is upstream's observed order; optional keys only when defined."""

    id: str
    name: str
    api: str
    provider: str
    baseUrl: str
    reasoning: bool
    input: list[str]
    cost: ModelCost
    contextWindow: int
    maxTokens: int
    type: NotRequired[str]
    thinkingLevelMap: NotRequired[dict[str, str | None]]
    compat: NotRequired[dict[str, object]]
    headers: NotRequired[dict[str, str]]


ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
from pi_rpc.ai.thinking import THINKING_LEVELS as THINKING_LEVELS  # noqa: E402 - re-exported

# --------------------------------------------------------------------------- stream events
#
# Each event is a dict, exactly upstream pi-ai's in-process shape:
#   {"type":"start","partial":msg}
#   {"type":"text_start"|"thinking_start"|"toolcall_start","contentIndex":i,"partial":msg}
#   {"type":"text_delta"|"thinking_delta"|"toolcall_delta","contentIndex":i,"delta":s,"partial":msg}
#   {"type":"text_end"|"thinking_end","contentIndex":i,"content":s,"partial":msg}
#   {"type":"toolcall_end","contentIndex":i,"toolCall":tc,"partial":msg}
#   {"type":"done","reason":"stop"|"length"|"toolUse","message":msg}
#   {"type":"error","reason":"error"|"aborted","error":msg}
# ``partial`` is the same live AssistantMessage object throughout the stream. Exactly one
# terminal event (done or error) ends every stream; a stream never raises to its caller.
#
# ``partial``/``message``/``error`` are the provider's output dict (``new_output``), typed as
# the open ``dict[str, object]`` the providers build it as.
AssistantOutput = dict[str, object]


class StreamStartEvent(TypedDict):
    type: Literal["start"]
    partial: AssistantOutput


BlockStartType = Literal["text_start", "thinking_start", "toolcall_start"]


class BlockStartEvent(TypedDict):
    type: BlockStartType
    contentIndex: int
    partial: AssistantOutput


BlockDeltaType = Literal["text_delta", "thinking_delta", "toolcall_delta"]


class BlockDeltaEvent(TypedDict):
    type: BlockDeltaType
    contentIndex: int
    delta: str
    partial: AssistantOutput


BlockEndType = Literal["text_end", "thinking_end"]


class BlockEndEvent(TypedDict):
    type: BlockEndType
    contentIndex: int
    content: str
    partial: AssistantOutput


class ToolCallEndEvent(TypedDict):
    type: Literal["toolcall_end"]
    contentIndex: int
    toolCall: dict[str, object]
    partial: AssistantOutput


class StreamDoneEvent(TypedDict):
    type: Literal["done"]
    reason: object  # "stop" | "length" | "toolUse", read from the output's stopReason
    message: AssistantOutput


class StreamErrorEvent(TypedDict):
    type: Literal["error"]
    reason: object  # "error" | "aborted"
    error: AssistantOutput


AssistantMessageEvent = Union[
    StreamStartEvent,
    BlockStartEvent,
    BlockDeltaEvent,
    BlockEndEvent,
    ToolCallEndEvent,
    StreamDoneEvent,
    StreamErrorEvent,
]


@dataclass
class StreamOptions:
    """Per-request options. ``api_key`` is resolved by the caller right before the request."""

    api_key: str | None = None
    signal: "AbortSignal | None" = None
    reasoning: str | None = None  # thinking level, None when "off"
    max_tokens: int | None = None
    temperature: float | None = None
    session_id: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # Injected HTTP client (tests, connection reuse). None -> the provider makes its own.
    http_client: "httpx.AsyncClient | None" = None
    timeout_s: float | None = None
    # Provider-level HTTP retries for 429/5xx before the stream starts (upstream default 0).
    max_retries: int = 0
    max_retry_delay_ms: int = 60_000
    cache_retention: Literal["none", "short", "long"] = "short"
    # The ``transport`` setting, for providers with more than one (openai-codex-responses:
    # ``auto`` tries a WebSocket first, ``sse``, ``websocket``, ``websocket-cached``).
    transport: str = "auto"
    websocket_connect_timeout_ms: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Extension hooks around each HTTP request (None: no hook, nothing extra runs).
    # ``on_request(headers, body)`` returns the headers and body to send (a header set to None
    # is removed); ``on_response(status, headers)`` sees the response before its body is read.
    on_request: "Callable[[dict[str, Any], Any], Awaitable[tuple[dict[str, Any], Any]]] | None" = None
    on_response: "Callable[[int, dict[str, str]], Awaitable[None]] | None" = None
    # ``on_stream_event(data, model)`` sees each parsed provider stream event before it is
    # normalized (read-only; awaited in stream order).
    on_stream_event: "Callable[[Any, Any], Awaitable[None]] | None" = None
    # The credential values this request carries (``pi_rpc.ai.redaction``): set by
    # ``stream.stream``, added to where a provider sends, cut out of the error it returns.
    secrets: "RequestSecrets | None" = None


def empty_usage() -> Usage:
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
