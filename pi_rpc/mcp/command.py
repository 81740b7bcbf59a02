"""The ``/mcp`` command's name, listing and the answers it gives while no server is configured.

Upstream lists ``mcp`` in ``get_commands`` in every session (its built-in MCP extension always
loads) and answers ``/mcp`` without an ``mcp.json``. This module is all a session without MCP
imports for that, and only when the command is listed or run: constants and string work, no
manager, no SDK. ``builtin:mcp`` (``pi_rpc.mcp.extension``) uses the same texts once loaded.
"""

from __future__ import annotations

import os

COMMAND_NAME = "mcp"
COMMAND_DESCRIPTION = "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure"
MCP_USAGE = "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]"
NO_RECONNECTABLE = "No enabled MCP server to reconnect."
NO_OAUTH = "No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do."
SOURCE_INFO = {"path": "builtin:mcp", "source": "builtin", "scope": "temporary", "origin": "top-level"}


def listing() -> dict[str, object]:
    """The command as ``get_commands`` lists it (upstream's entry for ``builtin:mcp``)."""
    return {
        "name": COMMAND_NAME,
        "description": COMMAND_DESCRIPTION,
        "source": "extension",
        "sourceInfo": dict(SOURCE_INFO),
    }


def no_server_named(name: str) -> str:
    return f'No MCP server named "{name}".'


def not_configured(agent_dir: str) -> str:
    return f"No MCP servers configured. Add them to {os.path.join(agent_dir, 'mcp.json')} or .pi/mcp.json."


def unconfigured_reply(args: str, agent_dir: str) -> tuple[str, str]:
    """``(message, notifyType)`` for ``/mcp <args>`` when no server exists (upstream's texts)."""
    words = args.split()
    if not words:
        return not_configured(agent_dir), "info"
    action, extra = words[0], words[2:]
    if extra or action not in ("login", "logout", "reconnect"):
        return MCP_USAGE, "warning"
    if len(words) == 2:
        return no_server_named(words[1]), "error"
    return (NO_RECONNECTABLE if action == "reconnect" else NO_OAUTH), "info"
