"""Names and exposures of MCP tools, as the model and codemode scripts see them (upstream's
``pi-mcp`` naming and ``core/mcp-servers``).

- ``mcp__<server>__<tool>`` with every character other than ``[A-Za-z0-9_]`` replaced by ``_``;
  names over 64 characters, or taken by another tool, get an 8-hex SHA-256 suffix.
- A server's namespace is ``mcp__<server>`` with ``-`` as ``_``.
- Exposure of one tool: its exact ``toolExposure`` entry, else the first matching pattern
  (``*`` matches anything), else the server's ``exposure``, else ``codemode``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from pi_rpc.config.tool_patterns import tool_pattern

MAX_TOOL_NAME_LENGTH = 64

EXPOSURES = ("codemode", "deferred", "direct", "hidden")
EXPOSURE_ALIASES = {"codemode-deferred": "codemode"}
DEFAULT_EXPOSURE = "codemode"

LIST_MCP_RESOURCES_TOOL = "list_mcp_resources"
LIST_MCP_RESOURCE_TEMPLATES_TOOL = "list_mcp_resource_templates"
READ_MCP_RESOURCE_TOOL = "read_mcp_resource"
RESOURCE_TOOL_NAMES = frozenset({LIST_MCP_RESOURCES_TOOL, LIST_MCP_RESOURCE_TEMPLATES_TOOL, READ_MCP_RESOURCE_TOOL})

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def create_mcp_tool_name(server: str, tool: str, is_taken: Callable[[str], bool] = lambda _name: False) -> str:
    """``mcp__<server>__<tool>`` sanitised; shortened with a hash suffix when too long or taken."""
    name = _UNSAFE.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME_LENGTH and not is_taken(name):
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME_LENGTH - len(digest) - 1]}_{digest}"


def mcp_namespace(server: str) -> str:
    """``mcp__<server>`` with ``-`` replaced by ``_``: names differing only there collide."""
    return f"mcp__{server.replace('-', '_')}"


def server_summary(description: str | None, instructions: str | None) -> str:
    """First line of the configured description, else of the server's instructions."""
    text = (description or "").strip() or (instructions or "").strip()
    return text.split("\n", 1)[0].strip()


def is_mcp_tool_name(name: str) -> bool:
    """A server tool (``mcp__…``) or one of the resource tools."""
    return name.startswith("mcp__") or name in RESOURCE_TOOL_NAMES


def resolve_exposure_alias(value: object) -> object:
    return EXPOSURE_ALIASES.get(value, value) if isinstance(value, str) else value


def tool_exposure(config: Mapping[str, Any], tool: str) -> str:
    """Exposure of one server tool: exact ``toolExposure`` entry, first matching pattern, the
    server's ``exposure``, ``codemode``."""
    overrides = config.get("toolExposure") or {}
    exact = overrides.get(tool)
    if exact is not None:
        return str(exact)
    for pattern, exposure in overrides.items():
        if "*" in pattern and tool_pattern(pattern).match(tool):
            return str(exposure)
    return str(config.get("exposure") or DEFAULT_EXPOSURE)


def server_exposure(config: Mapping[str, object]) -> str:
    return str(config.get("exposure") or DEFAULT_EXPOSURE)


def configured_exposures(config: Mapping[str, Any]) -> set[str]:
    """Exposures the server's tools can have, known before it connects."""
    return {server_exposure(config), *(str(v) for v in (config.get("toolExposure") or {}).values())}


def has_direct_tools(config: Mapping[str, object]) -> bool:
    return "direct" in configured_exposures(config)


def has_indirect_tools(config: Mapping[str, object]) -> bool:
    exposures = configured_exposures(config)
    return "codemode" in exposures or "deferred" in exposures
