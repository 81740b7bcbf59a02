"""The ``read`` tool: text files with offset/limit and head truncation, images as attachments
(normalized and, with ``images.autoResize``, fitted to the model's limits: ``tools/images.py``)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.tools._js import js_string
from pi_rpc.tools.base import BuiltinTool, check_aborted, number_prop, object_schema, string_prop
from pi_rpc.tools.file_access import FileAccessError, TextFileAccess
from pi_rpc.tools.paths import resolve_read_path
from pi_rpc.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, byte_len, format_size, truncate_head

READ_PARAMETERS = object_schema(
    {
        "path": string_prop("Path to the file to read (relative or absolute)"),
        "offset": number_prop("Line number to start reading from (1-indexed)"),
        "limit": number_prop("Maximum number of lines to read"),
    },
    ["path"],
)


def node_error_text(exc: OSError, syscall: str, path: str) -> str:
    """Node-style ``CODE: description, syscall 'path'`` text for a filesystem error."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    descriptions = {
        "ENOENT": "no such file or directory",
        "EACCES": "permission denied",
        "EISDIR": "illegal operation on a directory",
        "ENOTDIR": "not a directory",
        "ELOOP": "too many symbolic links encountered",
    }
    desc = descriptions.get(code, (exc.strerror or "unknown error").lower())
    if code == "EISDIR":
        return f"{code}: {desc}, {syscall}"
    return f"{code}: {desc}, {syscall} '{path}'"


def _local_image_head(absolute: str) -> str | None:
    """The image MIME type of a file on disk, if it is one (images never go through a text
    delegate); None for text, missing or unreadable files."""
    from pi_rpc.tools.images import IMAGE_TYPE_SNIFF_BYTES, detect_supported_image_mime  # (at the first read)

    try:
        with open(absolute, "rb") as fh:
            head = fh.read(IMAGE_TYPE_SNIFF_BYTES)
    except OSError:
        return None
    return detect_supported_image_mime(head)


class ReadTool(BuiltinTool):
    name = "read"
    label = "read"
    description = (
        "Show the contents of a file. Text files and images (jpg, png, gif, webp, bmp) are "
        f"supported; images come back as attachments. Text output stops at {DEFAULT_MAX_LINES} lines "
        f"or {DEFAULT_MAX_BYTES // 1024}KB, whichever comes first; page through large files with "
        "offset/limit and keep going with offset until you have what you need."
    )
    parameters = READ_PARAMETERS
    prompt_snippet = "Read file contents"
    prompt_guidelines = ("Use read to examine files instead of cat or sed.",)

    def __init__(
        self,
        cwd: str,
        *,
        auto_resize_images: bool = True,
        get_model: Callable[[], dict[str, object] | None] | None = None,
        file_access: TextFileAccess | None = None,
    ) -> None:
        super().__init__(cwd)
        self.file_access = file_access
        self.auto_resize_images = auto_resize_images
        # The session's current model: its inputLimits.images.resize, and whether it takes images.
        self.get_model = get_model

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        path = args["path"]
        offset = args.get("offset")
        limit = args.get("limit")
        absolute = resolve_read_path(path, self.cwd)
        if self.file_access is not None:
            image = _local_image_head(absolute)
            if image is None:  # text: the delegate's copy (an editor's buffer may be unsaved)
                try:
                    text = await self.file_access.read_text(absolute)
                except FileAccessError as exc:
                    raise ToolError(str(exc)) from exc
                check_aborted(signal)
                return self._read_text(text, path, offset, limit)
        if not os.access(absolute, os.R_OK):
            try:
                os.stat(absolute)
                raise ToolError(f"EACCES: permission denied, access '{absolute}'")
            except OSError as exc:
                raise ToolError(node_error_text(exc, "access", absolute)) from exc
        try:
            with open(absolute, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise ToolError(node_error_text(exc, "read", absolute)) from exc
        check_aborted(signal)

        from pi_rpc.tools.images import IMAGE_TYPE_SNIFF_BYTES, detect_supported_image_mime

        mime = detect_supported_image_mime(data[:IMAGE_TYPE_SNIFF_BYTES])
        if mime is not None:
            return await self._read_image(data, mime)
        return self._read_text(data.decode("utf-8", "replace"), path, offset, limit)

    async def _read_image(self, data: bytes, mime: str) -> AgentToolResult:
        from pi_rpc.tools.images import process_image, resize_options_for

        model = self.get_model() if self.get_model is not None else None
        processed = await anyio.to_thread.run_sync(
            partial(
                process_image,
                data,
                mime,
                auto_resize=self.auto_resize_images,
                resize_options=resize_options_for(model),
            )
        )
        if not processed.ok:
            # Upstream sends the note alone: no image block when it could not be made to fit.
            return {"content": [{"type": "text", "text": f"Read image file [{mime}]\n{processed.message}"}]}
        note = "\n".join([f"Read image file [{processed.mime_type}]", *processed.hints])
        result: AgentToolResult = {
            "content": [
                {"type": "text", "text": note},
                {"type": "image", "data": processed.data, "mimeType": processed.mime_type},
            ]
        }
        inputs = model.get("input") if model else None
        if model and isinstance(inputs, list) and "image" not in inputs:
            result["details"] = {"imageUnsupportedByModel": model.get("id")}
        return result

    def _read_text(self, text: str, path: str, offset: Any, limit: Any) -> AgentToolResult:
        all_lines = text.split("\n")
        total = len(all_lines)
        start = max(0, int(offset) - 1) if offset else 0
        start_display = start + 1
        if start >= total:
            raise ToolError(f"Offset {js_string(offset)} is beyond end of file ({total} lines total)")

        user_limited: int | None = None
        if limit is not None:
            end = min(start + int(limit), total)
            selected = "\n".join(all_lines[start:end])
            user_limited = end - start
        else:
            selected = "\n".join(all_lines[start:])

        truncation = truncate_head(selected)
        details: dict[str, object] | None = None
        if truncation["firstLineExceedsLimit"]:
            size = format_size(byte_len(all_lines[start]))
            out = (
                f"[Line {start_display} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
                f"Use bash: sed -n '{start_display}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
            )
            details = {"truncation": truncation}
        elif truncation["truncated"]:
            end_display = start_display + truncation["outputLines"] - 1
            out = truncation["content"]
            if truncation["truncatedBy"] == "lines":
                out += f"\n\n[Showing lines {start_display}-{end_display} of {total}. Use offset={end_display + 1} to continue.]"
            else:
                out += (
                    f"\n\n[Showing lines {start_display}-{end_display} of {total} "
                    f"({format_size(DEFAULT_MAX_BYTES)} limit). Use offset={end_display + 1} to continue.]"
                )
            details = {"truncation": truncation}
        elif user_limited is not None and start + user_limited < total:
            remaining = total - (start + user_limited)
            out = f"{truncation['content']}\n\n[{remaining} more lines in file. Use offset={start + user_limited + 1} to continue.]"
        else:
            out = truncation["content"]
        result: AgentToolResult = {"content": [{"type": "text", "text": out}]}
        if details is not None:
            result["details"] = details
        return result
