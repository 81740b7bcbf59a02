"""How pi's tool calls look to an ACP client: kind, title, locations (absolute paths) and the
result content (text, images, and a ``diff`` with old and new text for edit/write).

Kinds: read/ls -> ``read``, edit/write -> ``edit``, bash -> ``execute``, grep/find ->
``search``, anything else (extension and MCP tools) -> ``other``.
"""

from __future__ import annotations

import os
from typing import Any

KINDS = {
    "read": "read",
    "ls": "read",
    "edit": "edit",
    "write": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
}
FILE_MUTATIONS = ("edit", "write")
_TITLE_COMMAND_CHARS = 200


def absolute_path(path: object, cwd: str) -> str | None:
    if not isinstance(path, str) or not path:
        return None
    if path.startswith("~"):
        path = os.path.expanduser(path)
    if path.startswith("@"):
        path = path[1:]  # the tools accept an "@path" mention
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def tool_kind(name: str) -> str:
    return KINDS.get(name, "other")


def tool_title(name: str, args: dict[str, object], cwd: str) -> str:
    path = args.get("path")
    if name == "bash":
        command = str(args.get("command") or "").strip()
        first = command.split("\n", 1)[0]
        if len(first) > _TITLE_COMMAND_CHARS or "\n" in command:
            first = first[:_TITLE_COMMAND_CHARS] + " …"
        return first or "bash"
    if name == "read" and isinstance(path, str):
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, (int, float)) and isinstance(limit, (int, float)):
            return f"Read {path} (lines {int(offset)}–{int(offset) + int(limit) - 1})"
        if isinstance(offset, (int, float)):
            return f"Read {path} (from line {int(offset)})"
        return f"Read {path}"
    if name in ("edit", "write") and isinstance(path, str):
        return f"{name.capitalize()} {path}"
    if name == "grep":
        where = f" in {path}" if isinstance(path, str) and path else ""
        return f"grep {args.get('pattern', '')!s}{where}"
    if name == "find":
        where = f" in {path}" if isinstance(path, str) and path else ""
        return f"find {args.get('pattern', '')!s}{where}"
    if name == "ls":
        return f"List {path or '.'}"
    return name


def tool_locations(name: str, args: dict[str, Any], cwd: str, line: int | None = None) -> list[dict[str, Any]]:
    target = args.get("path")
    if target is None and name in ("grep", "find", "ls"):
        target = "."
    absolute = absolute_path(target, cwd)
    if absolute is None:
        return []
    location: dict[str, object] = {"path": absolute}
    if line is None and name == "read" and isinstance(args.get("offset"), (int, float)) and args["offset"] >= 1:
        line = int(args["offset"])
    if line is not None:
        location["line"] = line
    return [location]


def tool_call_fields(name: str, args: dict[str, object], cwd: str) -> dict[str, object]:
    """``title``, ``kind``, ``locations`` and ``rawInput`` of a tool call."""
    return {
        "title": tool_title(name, args, cwd),
        "kind": tool_kind(name),
        "locations": tool_locations(name, args, cwd),
        "rawInput": args,
    }


def result_blocks(result: object) -> list[dict[str, object]]:
    """A tool result's content as ACP ``content`` items (text and images)."""
    blocks: list[dict[str, object]] = []
    content = result.get("content") if isinstance(result, dict) else None
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and block.get("text"):
            blocks.append({"type": "content", "content": {"type": "text", "text": block["text"]}})
        elif block.get("type") == "image" and block.get("data"):
            blocks.append(
                {
                    "type": "content",
                    "content": {"type": "image", "data": block["data"], "mimeType": block.get("mimeType", "image/png")},
                }
            )
    return blocks


def first_changed_line(result: object) -> int | None:
    details = result.get("details") if isinstance(result, dict) else None
    line = details.get("firstChangedLine") if isinstance(details, dict) else None
    return line if isinstance(line, int) else None
