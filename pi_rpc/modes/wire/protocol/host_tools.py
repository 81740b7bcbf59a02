"""Protocol models of the client's own tools, tool control and run limits (protocol/README
§11 "Host tools, tool control and run limits"): the commands ``set_host_tools``, ``get_tools``,
``set_active_tools``, the client records ``host_tool_result``/``host_tool_update`` (no
response, as ``extension_ui_response``), the records ``host_tool_request``/
``host_tool_cancelled``, ``limits``/``outputSchema`` of ``prompt`` and their ``agent_end`` keys."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi_rpc.modes.wire.protocol.base import WireModel


class RunLimits(WireModel):
    """Bounds of one run; each optional and positive. Counted from the run's start."""

    max_turns: int | None = Field(default=None, description="model responses")
    max_tool_calls: int | None = Field(default=None, description="tool calls run (later ones are blocked)")
    max_output_tokens: int | None = Field(default=None, description="usage.output summed over the run")
    max_cost_usd: float | None = Field(default=None, description="usage.cost.total summed over the run")
    timeout_ms: int | None = Field(default=None, description="wall time; the run is aborted")


class HostToolDefinition(WireModel):
    name: str = Field(description="1-64 of [A-Za-z0-9_-], not taken by another tool")
    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema (draft 2020-12) of the arguments: an object schema",
    )


class ToolContentBlock(WireModel):
    type: Literal["text", "image"]
    text: str | None = Field(default=None, description="text blocks")
    data: str | None = Field(default=None, description="image blocks: base64")
    mime_type: str | None = Field(default=None, description="image blocks")


class ToolInfo(WireModel):
    name: str
    description: str
    parameters: dict[str, Any]
    source: Literal["builtin", "extension", "mcp", "host"]
    active: bool = Field(description="declared to the model on the next request")


class SetHostToolsData(WireModel):
    tools: list[str] = Field(description="the client's tools now (all active)")


class ToolsData(WireModel):
    tools: list[ToolInfo]


class ActiveToolsData(WireModel):
    active_tools: list[str]


class HostToolRequest(WireModel):
    """The model called a client tool: answer with ``host_tool_result`` carrying this ``id``."""

    type: Literal["host_tool_request"]
    id: str = Field(description="a fresh UUID v4")
    tool_call_id: str = Field(description="as on tool_execution_start")
    name: str
    arguments: dict[str, Any] = Field(description="validated against the tool's schema")
    handle: str | None = Field(default=None, description="The session that asks (as on events).")


class HostToolCancelled(WireModel):
    """A pending call was aborted or timed out: stop working on it (a late answer is ignored)."""

    type: Literal["host_tool_cancelled"]
    id: str
    handle: str | None = None


class LimitHit(WireModel):
    kind: Literal["maxTurns", "maxToolCalls", "maxOutputTokens", "maxCostUsd", "timeoutMs"]
    limit: float
    used: float
