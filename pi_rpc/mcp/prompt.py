"""The ``mcp_servers`` section of the system prompt (upstream's ``renderServersSection``).

It lists every enabled server with ``codemode`` or ``deferred`` tools, since neither codemode
nor ``tool_search`` lists servers: ``- mcp__<server> (codemode|tool_search): <summary>``, sorted
by name, after one line explaining the ways of reaching them that the listed servers use. The
section (our wording) is at most 4096 characters: summaries (at most 250 characters each) shrink to fit, and
when the server lines alone do not fit, the last servers are counted in a closing line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pi_rpc.mcp.naming import configured_exposures, has_indirect_tools, mcp_namespace, server_summary

SECTION_NAME = "mcp_servers"
MAX_SECTION_CHARS = 4096
MAX_DESCRIPTION_CHARS = 250


def _intro(reaches: set[str]) -> str:
    intro = "These MCP servers have tools that are not declared to you."
    if "codemode" in reaches:
        intro += " Call the tools of servers marked `codemode` from a codemode script."
    if "tool_search" in reaches:
        intro += " Declare the tools of servers marked `tool_search` by searching with `tool_search`."
    return intro


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return "" if limit <= 1 else text[: limit - 1].rstrip() + "…"


def render_servers_section(servers: Sequence[tuple[str, dict[str, Any], str | None]]) -> str | None:
    """``servers``: ``(name, config, instructions)`` of the enabled servers."""
    listed = sorted(
        ((name, config, instructions) for name, config, instructions in servers if has_indirect_tools(config)),
        key=lambda server: (server[0].lower(), server[0].swapcase()),  # close to localeCompare
    )
    if not listed:
        return None
    reaches = ["codemode" if "codemode" in configured_exposures(config) else "tool_search" for _n, config, _i in listed]
    intro = _intro(set(reaches))
    heads = [f"- {mcp_namespace(name)} ({reach})" for (name, _c, _i), reach in zip(listed, reaches)]

    def omitted(count: int) -> list[str]:
        if count <= 0:
            return []
        return [f"- … {count} more server{'' if count == 1 else 's'}; find their tools with search_tools()"]

    def size(kept: int) -> int:
        return len("\n".join([intro, *heads[:kept], *omitted(len(listed) - kept)]))

    kept = len(listed)
    while kept > 0 and size(kept) > MAX_SECTION_CHARS:
        kept -= 1
    per_server = 0 if kept == 0 else min(MAX_DESCRIPTION_CHARS, math.floor((MAX_SECTION_CHARS - size(kept)) / kept) - 2)
    lines = []
    for (name, config, instructions), head in zip(listed[:kept], heads):
        summary = (
            _truncate(server_summary(config.get("description"), instructions), per_server) if per_server > 0 else ""
        )
        lines.append(f"{head}: {summary}" if summary else head)
    return "\n".join([intro, *lines, *omitted(len(listed) - kept)])
