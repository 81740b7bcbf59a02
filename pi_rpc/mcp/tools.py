"""MCP server tools as tool definitions of the agent (upstream's ``extensions/mcp/tools``).

A definition is a dict with upstream's ``ToolDefinition`` keys: ``name``
(``mcp__<server>__<tool>``), ``label`` (``server/tool``), ``description`` (the tool's, else its
title, else a generated one), ``parameters`` (the input schema as an object schema),
``outputSchema`` (the ``CallToolResult`` scripts receive, with the tool's own output schema as
``structuredContent``), ``exposure`` (``codemode`` becomes ``deferred``: both are reached only
through codemode or ``tool_search``), ``namespace``, ``annotations`` (the boolean hints) and
``execute(tool_call_id, params, signal, on_update, ctx)``.

Progress notifications become ``tool_execution_update``s (``step 3`` or ``Progress 3/10``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.mcp.content import convert_result, normalize_input_schema
from pi_rpc.tools._js import js_number

ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

CONTENT_BLOCK_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "type": {"enum": ["text", "image", "audio", "resource_link", "resource"]},
        "text": {"type": "string"},
        "data": {"type": "string"},
        "mimeType": {"type": "string"},
    },
    "required": ["type"],
    "additionalProperties": True,
}
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
)


def to_tool_exposure(exposure: str) -> str:
    """``codemode`` and ``deferred`` both keep tools out of declarations and the codemode
    description; they differ only in which tool MCP activates to reach them."""
    return "deferred" if exposure == "codemode" else exposure


def relocate_schema(schema: object, pointer: str) -> object:
    """``schema`` moved to ``pointer`` inside another schema: local ``$ref``s follow it."""
    if isinstance(schema, list):
        return [relocate_schema(item, pointer) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, object] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and (value == "#" or value.startswith("#/")):
            out[key] = pointer + value[1:]
        elif key in _DATA_KEYWORDS:
            out[key] = value
        elif key in _MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {name: relocate_schema(sub, pointer) for name, sub in value.items()}
        else:
            out[key] = relocate_schema(value, pointer)
    return out


def result_schema(structured: dict[str, object] | None) -> dict[str, object]:
    """Output schema of every MCP tool: the ``CallToolResult`` without ``_meta``."""
    return {
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": CONTENT_BLOCK_SCHEMA},
            "structuredContent": relocate_schema(structured, "#/properties/structuredContent") if structured else {},
            "isError": {"type": "boolean"},
        },
        "required": ["content"],
        "additionalProperties": True,
    }


def tool_annotations(tool: dict[str, Any]) -> dict[str, bool] | None:
    raw = tool.get("annotations") or {}
    hints = {hint: raw[hint] for hint in ANNOTATION_HINTS if isinstance(raw.get(hint), bool)}
    return hints or None


def progress_text(progress: float, total: float | None, message: str | None) -> str:
    if message is not None:
        return message
    suffix = "" if total is None else f"/{js_number(total)}"
    return f"Progress {js_number(progress)}{suffix}"


GetConnection = Callable[[], Awaitable[Any]]


def create_tool_definition(
    *,
    server: str,
    tool: dict[str, Any],
    name: str,
    exposure: str,
    namespace: dict[str, object],
    get_connection: GetConnection,
    readable_resources: Callable[[], bool] = lambda: False,
) -> dict[str, Any]:
    tool_name = str(tool.get("name"))
    title = tool.get("title") or (tool.get("annotations") or {}).get("title")
    label = f"{server}/{tool_name}"
    description = (tool.get("description") or "").strip() or title or f"MCP tool {tool_name} from server {server}"

    async def execute(
        _tool_call_id: str, params: Any, signal: AbortSignal | None, on_update: Any = None, _ctx: Any = None
    ) -> dict[str, object]:
        connection = await get_connection()

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if on_update is not None:
                outcome = on_update(
                    {
                        "content": [{"type": "text", "text": progress_text(value, total, message)}],
                        "details": {"server": server, "tool": tool_name},
                    }
                )
                if outcome is not None and hasattr(outcome, "__await__"):
                    await outcome

        # The call watches the signal itself: an abort cancels the request on the server
        # (notifications/cancelled) and fails it at once with upstream's "MCP request aborted",
        # instead of the generic cancellation of the surrounding scope.
        with anyio.CancelScope(shield=True):
            result = await connection.call_tool(tool_name, params if isinstance(params, dict) else {}, signal, progress)
        return convert_result(server, tool_name, result, readable_resources())

    definition: dict[str, object] = {
        "name": name,
        "label": label,
        "description": description,
        "parameters": normalize_input_schema(tool.get("inputSchema")),
        "outputSchema": result_schema(tool.get("outputSchema")),
        "exposure": to_tool_exposure(exposure),
        "namespace": namespace,
        "execute": execute,
    }
    annotations = tool_annotations(tool)
    if annotations:
        definition["annotations"] = annotations
    return definition
