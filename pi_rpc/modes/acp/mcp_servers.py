"""The client's ``mcpServers`` (``session/new``, ``session/load``, ``session/resume``,
``session/fork``) as MCP servers registered for that session.

ACP's shapes become ``mcp.json`` entries that pi's MCP support (``pi_rpc.mcp``) connects next
to the user's ``mcp.json`` servers, like servers an extension registers:

- stdio ``{name, command, args, env: [{name, value}]}`` -> ``{command, args, env: {name: value}}``;
- HTTP ``{type: "http", name, url, headers: [{name, value}]}`` -> ``{type: "http", url, headers}``
  (streamable HTTP). SSE (``mcpCapabilities.sse`` is false) and MCP-over-ACP are refused.

Values are the client's literal text: ``$`` and a leading ``!`` are escaped so ``mcp.json``'s
``${VAR}`` / ``!command`` expansion never applies to them. A name with characters ``mcp.json``
does not allow (anything but letters, digits, ``_`` and ``-``) has them replaced by ``_``.
Exposure, timeout and the rest are pi's defaults for an ``mcp.json`` entry. A server whose
namespace ``mcp.json`` also defines is overridden by the ``mcp.json`` entry (``/mcp`` lists it);
a malformed entry, or two entries sharing a namespace, fail the request with -32602.
"""

from __future__ import annotations

import re

from pi_rpc.modes.acp.jsonrpc import invalid_params

CLIENT_SOURCE = "the ACP client"
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def literal(text: str) -> str:
    """``text`` escaped for mcp.json's value syntax, so it resolves to itself."""
    escaped = text.replace("$", "$$")
    return "$!" + escaped[1:] if escaped.startswith("!") else escaped


def _pairs(entry: dict[str, object], key: str, where: str) -> dict[str, str]:
    value = entry.get(key, [])
    if value is None:
        return {}
    if not isinstance(value, list):
        raise invalid_params(f'{where}.{key} must be an array of {{"name", "value"}} objects')
    out: dict[str, str] = {}
    for index, pair in enumerate(value):
        if (
            not isinstance(pair, dict)
            or not isinstance(pair.get("name"), str)
            or not isinstance(pair.get("value"), str)
        ):
            raise invalid_params(f'{where}.{key}[{index}] must be an object with string "name" and "value"')
        out[pair["name"]] = literal(pair["value"])
    return out


def _entry_config(entry: dict[str, object], where: str) -> dict[str, object]:
    kind = entry.get("type")
    if kind == "http":
        url = entry.get("url")
        if not isinstance(url, str) or not url:
            raise invalid_params(f"{where}.url must be a non-empty string")
        config: dict[str, object] = {"type": "http", "url": url}
        headers = _pairs(entry, "headers", where)
        if headers:
            config["headers"] = headers
        return config
    if kind == "sse":
        raise invalid_params(
            f"{where}: the SSE transport is not supported (mcpCapabilities.sse is false); use the server's streamable HTTP URL"
        )
    if kind == "acp":
        raise invalid_params(f"{where}: MCP over ACP is not supported (mcpCapabilities.acp is false)")
    if kind is not None and kind != "stdio":
        raise invalid_params(f'{where}.type must be "http" or absent (stdio), got {kind!r}')
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise invalid_params(f"{where}.command must be a non-empty string")
    args = entry.get("args", [])
    if args is None:
        args = []
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise invalid_params(f"{where}.args must be an array of strings")
    config = {"command": command, "args": list(args)}
    env = _pairs(entry, "env", where)
    if env:
        config["env"] = env
    return config


def client_mcp_servers(raw: object) -> list[dict[str, object]]:
    """The request's ``mcpServers`` as session registrations (``{"name", "config",
    "extensionPath"}``); raises -32602 for a malformed list."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise invalid_params('"mcpServers" must be an array')
    if not raw:
        return []
    from pi_rpc.mcp.config import validate_server_config
    from pi_rpc.mcp.naming import mcp_namespace

    servers: list[dict[str, object]] = []
    namespaces: dict[str, str] = {}
    for index, entry in enumerate(raw):
        where = f"mcpServers[{index}]"
        if not isinstance(entry, dict):
            raise invalid_params(f"{where} must be an object")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise invalid_params(f"{where}.name must be a non-empty string")
        safe = _INVALID_NAME_CHARS.sub("_", name.strip())
        validated = validate_server_config(safe, _entry_config(entry, where))
        if isinstance(validated, str):
            raise invalid_params(f"{where}: {validated}")
        namespace = mcp_namespace(safe)
        if namespace in namespaces:
            raise invalid_params(f'{where}: server "{safe}" conflicts with "{namespaces[namespace]}"')
        namespaces[namespace] = safe
        servers.append({"name": safe, "config": validated, "extensionPath": CLIENT_SOURCE})
    return servers
