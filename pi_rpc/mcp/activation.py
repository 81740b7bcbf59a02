"""Which of the MCP built-in extensions a session needs, decided at startup from what is on disk
and on the command line, without importing anything: ``builtin:mcp`` when an ``mcp.json``
exists (global, or the trusted project's) or the mode registers servers (ACP), and
``builtin:codemode`` and ``builtin:tool-search`` when MCP loads (it may activate them) or the
tool selection names them. A session without MCP
therefore loads no extension runtime at all and behaves byte for byte as without this feature.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

MCP_BUILTINS = {"mcp": "", "codemode": "codemode", "tool-search": "tool_search"}  # built-in -> tool name


def _names(entries: Iterable[object]) -> set[str]:
    names: set[str] = set()
    for entry in entries:
        text = str(entry).strip()
        names.add(text[1:] if text[:1] in ("+", "-") else text)
    return names


def unneeded_mcp_builtins(
    *,
    agent_dir: str,
    cwd: str,
    project_trusted: bool,
    tool_entries: Iterable[object] = (),
    default_tools: object = None,
    registered_servers: bool = False,
) -> list[str]:
    """The MCP built-ins this session does not need (to leave out of extension discovery).
    ``registered_servers``: the mode registers servers for the session (ACP's ``mcpServers``)."""
    configured = (
        registered_servers
        or os.path.exists(os.path.join(agent_dir, "mcp.json"))
        or (project_trusted and os.path.exists(os.path.join(cwd, ".pi", "mcp.json")))
    )
    if configured:
        return []
    defaults = default_tools.split(",") if isinstance(default_tools, str) else default_tools
    named = _names(tool_entries) | _names(defaults if isinstance(defaults, list) else [])
    return [builtin for builtin, tool in MCP_BUILTINS.items() if not tool or tool not in named]
