"""The ``ls`` tool (off by default): list one directory, dotfiles included, ``/`` after dirs."""

from __future__ import annotations

import os
from typing import Any

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.tools.base import (
    BuiltinTool,
    Notice,
    check_aborted,
    listing_result,
    number_prop,
    object_schema,
    string_prop,
)
from pi_rpc.tools.paths import resolve_to_cwd
from pi_rpc.tools.truncate import DEFAULT_MAX_BYTES

DEFAULT_LS_LIMIT = 500

LS_PARAMETERS = object_schema(
    {
        "path": string_prop("Directory to list (default: current directory)"),
        "limit": number_prop("Maximum number of entries to return (default: 500)"),
    }
)


class LsTool(BuiltinTool):
    name = "ls"
    label = "ls"
    description = (
        "Show what a directory contains, sorted alphabetically, with a trailing '/' on directories and "
        f"dotfiles included. At most {DEFAULT_LS_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB of output "
        "are returned, whichever comes first."
    )
    parameters = LS_PARAMETERS
    prompt_snippet = "List directory contents"

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        dir_path = resolve_to_cwd(args.get("path") or ".", self.cwd)
        limit = int(args["limit"]) if args.get("limit") is not None else DEFAULT_LS_LIMIT
        if not os.path.exists(dir_path):
            raise ToolError(f"Path not found: {dir_path}")
        if not os.path.isdir(dir_path):
            raise ToolError(f"Not a directory: {dir_path}")
        try:
            entries = os.listdir(dir_path)
        except OSError as exc:
            raise ToolError(f"Cannot read directory: {exc.strerror or exc}") from exc
        entries.sort(key=lambda e: (e.lower(), e))

        results: list[str] = []
        limit_reached = False
        for entry in entries:
            check_aborted(signal)
            if len(results) >= limit:
                limit_reached = True
                break
            try:
                suffix = "/" if os.path.isdir(os.path.join(dir_path, entry)) else ""
                os.stat(os.path.join(dir_path, entry))
            except OSError:
                continue  # unreadable entries are skipped, as upstream does
            results.append(entry + suffix)
        if not results:
            return {"content": [{"type": "text", "text": "(empty directory)"}]}

        before: list[Notice] = []
        if limit_reached:
            before.append(
                (f"{limit} entries limit reached. Use limit={limit * 2} for more", "entryLimitReached", limit)
            )
        return listing_result(results, before)
