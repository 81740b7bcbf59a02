"""The ``edit`` tool: exact, unique, non-overlapping text replacements in one file.

Also accepts the legacy single ``oldText``/``newText`` form and ``edits`` sent as a JSON
string or a single object (``prepare_arguments``), as upstream 1.x does. The file's BOM and
line endings are preserved.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.jsjson import to_utf8
from pi_rpc.tools.base import BuiltinTool, check_aborted, file_mutation_queue, object_schema, string_prop
from pi_rpc.tools.file_access import FileAccessError, TextFileAccess
from pi_rpc.tools.paths import resolve_to_cwd

_REPLACE_EDIT = object_schema(
    {
        "oldText": string_prop(
            "Exact text for one targeted replacement. It must be unique in the original file and must not "
            "overlap with any other edits[].oldText in the same call."
        ),
        "newText": string_prop("Replacement text for this targeted edit."),
    },
    ["oldText", "newText"],
)

EDIT_PARAMETERS = object_schema(
    {
        "path": string_prop("Path to the file to edit (relative or absolute)"),
        "edits": {
            "type": "array",
            "items": _REPLACE_EDIT,
            "description": (
                "One or more targeted replacements. Each edit is matched against the original file, not "
                "incrementally. Do not include overlapping or nested edits. If two changes touch the same "
                "block or nearby lines, merge them into one edit instead."
            ),
        },
    },
    ["path", "edits"],
)


def _is_single_edit(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("oldText"), str) and isinstance(value.get("newText"), str)


def prepare_edit_arguments(args: Any) -> Any:
    if not isinstance(args, dict):
        return args
    edits = args.get("edits")
    # Some models send edits as a JSON string, or one edit object instead of a list.
    if isinstance(edits, str):
        try:
            parsed = json.loads(edits)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            args["edits"] = parsed
        elif _is_single_edit(parsed):
            args["edits"] = [parsed]
    elif _is_single_edit(edits):
        args["edits"] = [edits]
    old, new = args.get("oldText"), args.get("newText")
    if not isinstance(old, str) or not isinstance(new, str):
        return args
    merged = list(args["edits"]) if isinstance(args.get("edits"), list) else []
    merged.append({"oldText": old, "newText": new})
    rest = {k: v for k, v in args.items() if k not in ("oldText", "newText")}
    rest["edits"] = merged
    return rest


class EditTool(BuiltinTool):
    name = "edit"
    label = "edit"
    description = (
        "Change one file by exact text replacement. Each edits[].oldText has to match a single, "
        "non-overlapping span of the file as it was before the call. When two changes touch the same "
        "block or neighbouring lines, combine them into one edit rather than sending overlapping edits, "
        "and avoid padding an edit with long unchanged stretches just to bridge distant changes."
    )
    parameters = EDIT_PARAMETERS
    prompt_snippet = (
        "Make precise file edits with exact text replacement, including multiple disjoint edits in one call"
    )
    prompt_guidelines = (
        "Use edit for targeted changes. Batch changes to one file in a single call.",
        "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and "
        "non-overlapping; merge nearby changes without including large unchanged regions.",
    )

    def __init__(self, cwd: str, *, file_access: TextFileAccess | None = None) -> None:
        super().__init__(cwd)
        self.file_access = file_access

    def prepare_arguments(self, args: object) -> object:
        return prepare_edit_arguments(args)

    async def _read(self, absolute: str, path: str) -> str:
        if self.file_access is not None:
            try:
                return await self.file_access.read_text(absolute)
            except FileAccessError as exc:
                raise ToolError(f"Could not edit file: {path}. {exc}") from exc
        if not os.path.exists(absolute):
            raise ToolError(f"Could not edit file: {path}. Error code: ENOENT.")
        if not os.access(absolute, os.R_OK | os.W_OK):
            raise ToolError(f"Could not edit file: {path}. Error code: EACCES.")
        try:
            with open(absolute, "rb") as fh:
                return fh.read().decode("utf-8", "replace")
        except IsADirectoryError as exc:
            raise ToolError("EISDIR: illegal operation on a directory, read") from exc

    async def _write(self, absolute: str, text: str) -> None:
        if self.file_access is not None:
            try:
                await self.file_access.write_text(absolute, text)
            except FileAccessError as exc:
                raise ToolError(str(exc)) from exc
            return
        with open(absolute, "wb") as fh:  # lone surrogates become U+FFFD, as node writes
            fh.write(to_utf8(text))

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        args = prepare_edit_arguments(dict(args))
        edits = args.get("edits")
        if not isinstance(edits, list) or not edits:
            raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
        path: str = args["path"]
        absolute = resolve_to_cwd(path, self.cwd)

        # The diff machinery loads at the first edit, not with the tool's definition.
        from pi_rpc.tools.edit_diff import (
            apply_edits,
            detect_line_ending,
            generate_diff_string,
            generate_unified_patch,
            normalize_to_lf,
            restore_line_endings,
            strip_bom,
        )

        async def edit() -> AgentToolResult:
            check_aborted(signal)
            raw = await self._read(absolute, path)
            check_aborted(signal)
            bom, content = strip_bom(raw)
            ending = detect_line_ending(content)
            base, new_content = apply_edits(normalize_to_lf(content), edits, path)
            check_aborted(signal)
            await self._write(absolute, bom + restore_line_endings(new_content, ending))
            check_aborted(signal)
            diff, first_changed = generate_diff_string(base, new_content)
            details: dict[str, Any] = {"diff": diff, "patch": generate_unified_patch(path, base, new_content)}
            if first_changed is not None:
                details["firstChangedLine"] = first_changed
            return {
                "content": [{"type": "text", "text": f"Successfully replaced {len(edits)} block(s) in {path}."}],
                "details": details,
            }

        return await file_mutation_queue.run(absolute, edit)
