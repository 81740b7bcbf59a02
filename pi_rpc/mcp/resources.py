"""MCP resources through the tools Codex and OpenCode use: ``list_mcp_resources``,
``list_mcp_resource_templates`` and ``read_mcp_resource`` (upstream's ``extensions/mcp/resources``).

Listings are JSON ``{server?, resources: [{server, …}], nextCursor?, errors?}``: with ``server``
one page (``cursor`` continues it), without it every page of every server, sorted by server
name. MCP App resources (``ui://`` URIs, ``profile=mcp-app`` HTML) and icons are left out. Read
resources become text and images; other binary contents are saved to output files. The three
tools reach every enabled, non-hidden server with resources, and are read-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import anyio

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.mcp.connection import error_message
from pi_rpc.mcp.content import limit_content, to_model_content
from pi_rpc.mcp.naming import (
    LIST_MCP_RESOURCE_TEMPLATES_TOOL,
    LIST_MCP_RESOURCES_TOOL,
    READ_MCP_RESOURCE_TOOL,
)
from pi_rpc.mcp.tools import to_tool_exposure
from pi_rpc.tools._js import js_stringify

_MCP_APP = re.compile(r';\s*profile\s*=\s*"?mcp-app"?', re.IGNORECASE)


def _string(description: str) -> dict[str, object]:
    return {"type": "string", "description": description}


LIST_PARAMETERS: dict[str, object] = {
    "type": "object",
    "properties": {
        "server": _string("MCP server name. Omit to list every server with resources."),
        "cursor": _string("Opaque cursor from a previous call with the same server; omit for the first page."),
    },
    "additionalProperties": False,
}
READ_PARAMETERS: dict[str, object] = {
    "type": "object",
    "properties": {
        "server": _string(
            "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."
        ),
        "uri": _string("Resource URI to read. Must be one of the URIs returned by list_mcp_resources."),
    },
    "required": ["server", "uri"],
    "additionalProperties": False,
}
_OPTIONAL_STRING = {"type": "string"}
_LISTING_ERRORS = {
    "type": "array",
    "description": "Servers that could not be listed",
    "items": {
        "type": "object",
        "properties": {"server": {"type": "string"}, "error": {"type": "string"}},
        "required": ["server", "error"],
    },
}
LIST_OUTPUT_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "server": _OPTIONAL_STRING,
        "resources": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "server": {"type": "string"},
                    "uri": {"type": "string"},
                    "name": {"type": "string"},
                    "title": _OPTIONAL_STRING,
                    "description": _OPTIONAL_STRING,
                    "mimeType": _OPTIONAL_STRING,
                    "size": {"type": "number"},
                },
                "required": ["server", "uri", "name"],
            },
        },
        "nextCursor": _OPTIONAL_STRING,
        "errors": _LISTING_ERRORS,
    },
    "required": ["resources"],
}
LIST_TEMPLATES_OUTPUT_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "server": _OPTIONAL_STRING,
        "resourceTemplates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "server": {"type": "string"},
                    "uriTemplate": {"type": "string", "description": "RFC 6570 URI template"},
                    "name": {"type": "string"},
                    "title": _OPTIONAL_STRING,
                    "description": _OPTIONAL_STRING,
                    "mimeType": _OPTIONAL_STRING,
                },
                "required": ["server", "uriTemplate", "name"],
            },
        },
        "nextCursor": _OPTIONAL_STRING,
        "errors": _LISTING_ERRORS,
    },
    "required": ["resourceTemplates"],
}
READ_OUTPUT_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "server": {"type": "string"},
        "uri": {"type": "string"},
        "contents": {
            "type": "array",
            "items": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "uri": {"type": "string"},
                            "mimeType": _OPTIONAL_STRING,
                            "text": {"type": "string"},
                        },
                        "required": ["uri", "text"],
                    },
                    {
                        "type": "object",
                        "properties": {
                            "uri": {"type": "string"},
                            "mimeType": _OPTIONAL_STRING,
                            "blob": {"type": "string", "description": "base64"},
                        },
                        "required": ["uri", "blob"],
                    },
                ]
            },
        },
    },
    "required": ["server", "uri", "contents"],
}

LIST_DESCRIPTION = (
    "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to "
    "language models, such as files, database schemas, or application-specific information. Prefer resources "
    "over web search when possible."
)
LIST_TEMPLATES_DESCRIPTION = (
    "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share "
    "data that takes parameters and provides context to language models, such as files, database schemas, or "
    "application-specific information. Prefer resource templates over web search when possible."
)
READ_DESCRIPTION = "Read a specific resource from an MCP server given the server name and resource URI."


def _is_mcp_app(item: dict[str, object]) -> bool:
    uri = str(item.get("uri") or item.get("uriTemplate") or "")
    return uri.startswith("ui://") or bool(_MCP_APP.search(str(item.get("mimeType") or "")))


def _listed(server: str, item: dict[str, object]) -> dict[str, object]:
    return {"server": server, **{k: v for k, v in item.items() if k not in ("_meta", "icons")}}


def _string_argument(params: object, key: str) -> str | None:
    value = params.get(key) if isinstance(params, dict) else None
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value.strip() or None


def _json_result(tool: str, server: str | None, payload: dict[str, object]) -> dict[str, object]:
    content, full_path = limit_content([{"type": "text", "text": js_stringify(payload)}])
    details: dict[str, object] = {"server": server or "", "tool": tool}
    if full_path:
        details["fullOutputPath"] = full_path
    return {"content": content, "details": details, "structuredContent": payload}


Servers = Callable[[], Sequence[Any]]  # connections (name, timeout_s, resources_page, …)


def _find_server(servers: Servers, name: str) -> Any:
    available = list(servers())
    for server in available:
        if server.name == name:
            return server
    names = ", ".join(server.name for server in available)
    raise ValueError(f'MCP server "{name}" has no resources' + (f". Servers with resources: {names}" if names else ""))


async def _list_page(
    server: Any, cursor: str | None, signal: AbortSignal | None, key: str, templates: bool
) -> dict[str, object]:
    """One page of one server's resources (or templates), MCP apps left out."""
    page = await (server.templates_page(cursor, signal) if templates else server.resources_page(cursor, signal))
    payload: dict[str, object] = {
        "server": server.name,
        key: [_listed(server.name, item) for item in page.get(key) or [] if not _is_mcp_app(item)],
    }
    if page.get("nextCursor") is not None:
        payload["nextCursor"] = page["nextCursor"]
    return payload


async def _list_every_server(
    servers: Servers, signal: AbortSignal | None, key: str, templates: bool
) -> dict[str, object]:
    """Every server's resources (or templates), fetched at once, in server-name order; a
    server that fails is reported in ``errors``."""
    ordered = sorted(servers(), key=lambda server: server.name)
    outcomes: list[Any] = [None] * len(ordered)

    async def fetch(index: int, server: Any) -> None:
        try:
            outcomes[index] = await (server.all_templates(signal) if templates else server.all_resources(signal))
        except Exception as exc:  # noqa: BLE001 - reported per server
            outcomes[index] = exc

    async with anyio.create_task_group() as tg:
        for index, server in enumerate(ordered):
            tg.start_soon(fetch, index, server)
    items: list[dict[str, object]] = []
    errors: list[dict[str, str]] = []
    for server, outcome in zip(ordered, outcomes):
        if isinstance(outcome, BaseException):
            errors.append({"server": server.name, "error": error_message(outcome)})
        else:
            items.extend(_listed(server.name, item) for item in outcome if not _is_mcp_app(item))
    result: dict[str, object] = {key: items}
    if errors:
        result["errors"] = errors
    return result


def _read_result(server: Any, uri: str, result: dict[str, Any]) -> dict[str, Any]:
    """A read resource as the tool's result: each content as a resource block (named by its
    URI when there are several), limited like any tool output."""
    contents = result.get("contents") or []
    blocks: list[dict[str, object]] = []
    for item in contents:
        if len(contents) > 1:
            blocks.append({"type": "text", "text": f"{item.get('uri')}:"})
        blocks.append({"type": "resource", "resource": item})
    converted = to_model_content(server.name, blocks)
    content, full_path = limit_content(converted or [{"type": "text", "text": f"Resource {uri} is empty."}])
    details: dict[str, object] = {"server": server.name, "tool": READ_MCP_RESOURCE_TOOL}
    if full_path:
        details["fullOutputPath"] = full_path
    plain = [{k: v for k, v in item.items() if k != "_meta"} for item in contents]
    return {
        "content": content,
        "details": details,
        "structuredContent": {"server": server.name, "uri": uri, "contents": plain},
    }


def create_resource_tool_definitions(exposure: str, servers: Servers) -> list[dict[str, object]]:
    read_only = {"readOnlyHint": True}

    async def list_items(params: object, signal: AbortSignal | None, key: str, templates: bool) -> dict[str, object]:
        server_name = _string_argument(params, "server")
        cursor = _string_argument(params, "cursor")
        if server_name:
            return await _list_page(_find_server(servers, server_name), cursor, signal, key, templates)
        if cursor:
            raise ValueError("cursor can only be used when a server is specified")
        return await _list_every_server(servers, signal, key, templates)

    async def list_resources(_id: str, params: object, signal: AbortSignal | None, *_rest: object) -> dict[str, object]:
        payload = await list_items(params, signal, "resources", False)
        return _json_result(LIST_MCP_RESOURCES_TOOL, _string_argument(params, "server"), payload)

    async def list_templates(_id: str, params: object, signal: AbortSignal | None, *_rest: object) -> dict[str, object]:
        payload = await list_items(params, signal, "resourceTemplates", True)
        return _json_result(LIST_MCP_RESOURCE_TEMPLATES_TOOL, _string_argument(params, "server"), payload)

    async def read_resource(_id: str, params: object, signal: AbortSignal | None, *_rest: object) -> dict[str, object]:
        server_name = _string_argument(params, "server")
        uri = _string_argument(params, "uri")
        if not server_name:
            raise ValueError("server must be provided")
        if not uri:
            raise ValueError("uri must be provided")
        server = _find_server(servers, server_name)
        return _read_result(server, uri, await server.read_resource(uri, signal))

    tool_exposure = to_tool_exposure(exposure)
    return [
        {
            "name": LIST_MCP_RESOURCES_TOOL,
            "label": LIST_MCP_RESOURCES_TOOL,
            "description": LIST_DESCRIPTION,
            "parameters": LIST_PARAMETERS,
            "outputSchema": LIST_OUTPUT_SCHEMA,
            "exposure": tool_exposure,
            "annotations": dict(read_only),
            "execute": list_resources,
        },
        {
            "name": LIST_MCP_RESOURCE_TEMPLATES_TOOL,
            "label": LIST_MCP_RESOURCE_TEMPLATES_TOOL,
            "description": LIST_TEMPLATES_DESCRIPTION,
            "parameters": LIST_PARAMETERS,
            "outputSchema": LIST_TEMPLATES_OUTPUT_SCHEMA,
            "exposure": tool_exposure,
            "annotations": dict(read_only),
            "execute": list_templates,
        },
        {
            "name": READ_MCP_RESOURCE_TOOL,
            "label": READ_MCP_RESOURCE_TOOL,
            "description": READ_DESCRIPTION,
            "parameters": READ_PARAMETERS,
            "outputSchema": READ_OUTPUT_SCHEMA,
            "exposure": tool_exposure,
            "annotations": dict(read_only),
            "execute": read_resource,
        },
    ]
