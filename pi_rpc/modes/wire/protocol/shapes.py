"""Data shapes shared by commands, responses and events (protocol reference §4).

Messages, session entries and model objects are kept open (extra keys allowed): upstream
and extensions add fields, and the runtime passes them around as plain camelCase dicts.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi_rpc.modes.wire.protocol.base import OpenWireModel, WireModel

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]


class ImageContent(WireModel):
    """An image attached to ``prompt`` / ``steer`` / ``follow_up``. ``type`` may be left out,
    as upstream never reads it (it rebuilds every attachment as ``{type:"image", data,
    mimeType}``)."""

    type: Literal["image"] = "image"
    data: str = Field(description="base64-encoded image bytes")
    mime_type: str


class ModelCost(OpenWireModel):
    input: float
    output: float
    cache_read: float
    cache_write: float


class ModelInfo(OpenWireModel):
    """A model object (``get_state.model``, ``set_model``, ``get_available_models``)."""

    id: str
    name: str
    api: str
    provider: str
    base_url: str
    reasoning: bool
    input: list[str]
    cost: ModelCost
    context_window: int
    max_tokens: int


class UsageCost(OpenWireModel):
    input: float
    output: float
    cache_read: float
    cache_write: float
    total: float
    total_from_provider: bool | None = None


class Usage(OpenWireModel):
    input: int
    output: int
    cache_read: int
    cache_write: int
    total_tokens: int
    cost: UsageCost
    cache_write1h: int | None = Field(default=None, alias="cacheWrite1h")
    reasoning: int | None = None


class AgentMessage(OpenWireModel):
    """Any message role (system, user, assistant, toolResult, bashExecution, custom, …)."""

    role: str
    timestamp: int | float | None = None


class SessionEntry(OpenWireModel):
    """A session-file entry (§5.3); ``parentId`` is ``null`` for roots."""

    type: str
    id: str
    parent_id: str | None
    timestamp: str


class CompactionResult(OpenWireModel):
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    estimated_tokens_after: int | None = None
    usage: dict[str, Any] | None = None
    details: dict[str, Any] | None = None


class BashResult(OpenWireModel):
    output: str
    exit_code: int | None = Field(default=None, description="absent when cancelled")
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None


class SourceInfo(OpenWireModel):
    path: str
    source: str
    scope: Literal["user", "project", "temporary"]
    origin: Literal["top-level", "package"]
    base_dir: str | None = None
    changelog_path: str | None = None


class SlashCommand(OpenWireModel):
    name: str
    description: str | None = None
    source: str
    source_info: SourceInfo


class SessionTreeNode(OpenWireModel):
    entry: SessionEntry
    children: list[SessionTreeNode]
    label: str | None = None
    label_timestamp: str | None = None
