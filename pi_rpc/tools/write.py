"""The ``write`` tool: create or overwrite a file, creating parent directories."""

from __future__ import annotations

import os
from typing import Any

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.jsjson import to_utf8
from pi_rpc.tools.base import BuiltinTool, check_aborted, file_mutation_queue, object_schema, string_prop
from pi_rpc.tools.file_access import FileAccessError, TextFileAccess
from pi_rpc.tools.paths import resolve_to_cwd

WRITE_PARAMETERS = object_schema(
    {
        "path": string_prop("Path to the file to write (relative or absolute)"),
        "content": string_prop("Content to write to the file"),
    },
    ["path", "content"],
)


class WriteTool(BuiltinTool):
    name = "write"
    label = "write"
    description = (
        "Save content to a file, replacing whatever was there or creating the file if it is new. "
        "Missing parent directories are created automatically."
    )
    parameters = WRITE_PARAMETERS
    prompt_snippet = "Create or overwrite files"
    prompt_guidelines = ("Use write only for new files or complete rewrites.",)

    def __init__(self, cwd: str, *, file_access: TextFileAccess | None = None) -> None:
        super().__init__(cwd)
        self.file_access = file_access

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        path: str = args["path"]
        content: str = args["content"]
        absolute = resolve_to_cwd(path, self.cwd)

        async def write() -> AgentToolResult:
            check_aborted(signal)
            if self.file_access is not None:
                try:
                    await self.file_access.write_text(absolute, content)
                except FileAccessError as exc:
                    raise ToolError(str(exc)) from exc
                check_aborted(signal)
                return {"content": [{"type": "text", "text": f"Successfully wrote to {path}"}]}
            try:
                os.makedirs(os.path.dirname(absolute), exist_ok=True)
                check_aborted(signal)
                # As node writes a string: a lone surrogate becomes U+FFFD, never invalid UTF-8.
                with open(absolute, "wb") as fh:
                    fh.write(to_utf8(content))
            except OSError as exc:
                from pi_rpc.tools.read import node_error_text

                raise ToolError(node_error_text(exc, "open", absolute)) from exc
            check_aborted(signal)
            return {"content": [{"type": "text", "text": f"Successfully wrote to {path}"}]}

        return await file_mutation_queue.run(absolute, write)
