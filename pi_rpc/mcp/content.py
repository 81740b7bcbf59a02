"""MCP results as the model sees them (upstream's ``pi-mcp`` content conversion and output limit
and the result conversion of its MCP tools).

- Text and images pass through; embedded text resources become text and image resources
  images; audio and unknown blocks become short placeholders. A result without content blocks
  but with ``structuredContent`` becomes its indented JSON.
- Resource links name ``read_mcp_resource`` when the server's resources are readable; binary
  resources other than images are saved to output files (text-like MIME types become text).
- Model-facing text over 20 KB keeps its first and last 10 KB around ``…N chars truncated…``;
  the full text is saved to an output file named in the result. Images follow the text.
- ``isError`` results are error results; scripts still receive the whole ``CallToolResult``
  (without ``_meta``) as ``structuredContent``, never truncated.

Blocks are plain dicts (the SDK's models dumped with the fields the server sent).
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from pi_rpc.ai.transcript import content_text
from pi_rpc.mcp.naming import READ_MCP_RESOURCE_TOOL
from pi_rpc.tools._js import js_stringify
from pi_rpc.tools.output_files import write_output_file
from pi_rpc.tools.truncate import format_size

MCP_OUTPUT_MAX_BYTES = 20 * 1024
OUTPUT_FILE_PREFIX = "pi-mcp"

SaveOutput = Callable[[str | bytes, str], str]


def save_to_temp_file(data: str | bytes, extension: str) -> str:
    return write_output_file(OUTPUT_FILE_PREFIX, extension, data)


def _block_to_llm(block: dict[str, Any]) -> dict[str, Any]:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text", "")}
    if kind == "image":
        return {"type": "image", "data": block.get("data", ""), "mimeType": block.get("mimeType", "")}
    if kind == "audio":
        return {"type": "text", "text": f"[audio {block.get('mimeType')} omitted]"}
    if kind == "resource_link":
        return {"type": "text", "text": f"{block.get('name')}: {block.get('uri')}"}
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return {"type": "text", "text": resource["text"]}
        mime = resource.get("mimeType")
        if isinstance(mime, str) and mime.startswith("image/"):
            return {"type": "image", "data": resource.get("blob", ""), "mimeType": mime}
        return {"type": "text", "text": f"[binary resource {resource.get('uri')} ({mime or 'unknown type'}) omitted]"}
    return {"type": "text", "text": f"[unsupported MCP content {kind}]"}


def to_llm_content(result: dict[str, Any]) -> list[dict[str, Any]]:
    content = [_block_to_llm(block) for block in result.get("content") or []]
    if not content and result.get("structuredContent") is not None:
        content.append({"type": "text", "text": js_stringify(result["structuredContent"], indent=2)})
    return content


def _extension_of(uri: str) -> str:
    try:
        path = urlsplit(uri).path if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri) else uri
    except ValueError:
        path = uri
    match = re.search(r"\.[A-Za-z0-9]{1,8}$", path)
    return match.group(0) if match else ".bin"


def _is_text_mime(mime: str | None) -> bool:
    if not mime:
        return False
    kind = mime.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind == "application/json" or kind.endswith("+json") or kind.endswith("+xml")


def _block_to_content(
    server: str, block: dict[str, Any], readable_resources: bool, save_output: SaveOutput
) -> list[dict[str, object]]:
    kind = block.get("type")
    if kind == "resource_link":
        size = block.get("size")
        details = [d for d in (block.get("mimeType"), None if size is None else format_size(int(size))) if d]
        read = f'. Read it with {READ_MCP_RESOURCE_TOOL} (server "{server}")' if readable_resources else ""
        description = f": {block['description']}" if block.get("description") else ""
        title = block.get("title") if block.get("title") is not None else block.get("name")
        listed = f" ({', '.join(details)})" if details else ""
        return [{"type": "text", "text": f'[Resource {block.get("uri")} "{title}"{listed}{description}{read}]'}]
    resource = block.get("resource") if kind == "resource" else None
    if (
        isinstance(resource, dict)
        and "blob" in resource
        and not str(resource.get("mimeType") or "").startswith("image/")
    ):
        uri, mime = resource.get("uri"), resource.get("mimeType")
        data = base64.b64decode(resource.get("blob") or "")
        if _is_text_mime(mime):
            return [{"type": "text", "text": data.decode("utf-8", "replace")}]
        described = f"{mime or 'unknown type'}, {format_size(len(data))}"
        try:
            path = save_output(data, _extension_of(str(uri)))
            return [{"type": "text", "text": f"[Binary resource {uri} ({described}) saved to {path}]"}]
        except OSError as exc:
            return [{"type": "text", "text": f"[Binary resource {uri} ({described}) could not be saved: {exc}]"}]
    return to_llm_content({"content": [block]})


def to_model_content(
    server: str,
    blocks: Sequence[dict[str, object]],
    readable_resources: bool = False,
    save_output: SaveOutput = save_to_temp_file,
) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for block in blocks:
        out.extend(_block_to_content(server, block, readable_resources, save_output))
    return out


def _truncate_middle(text: str, max_bytes: int) -> tuple[str, int, int] | None:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return None

    def boundary(index: int) -> bool:
        return index >= len(data) or (data[index] & 0xC0) != 0x80

    head_end = max_bytes // 2
    while head_end > 0 and not boundary(head_end):
        head_end -= 1
    tail_start = len(data) - (max_bytes - max_bytes // 2)
    while tail_start < len(data) and not boundary(tail_start):
        tail_start += 1
    head = data[:head_end].decode("utf-8", "replace")
    tail = data[tail_start:].decode("utf-8", "replace")
    removed = len(data[head_end:tail_start].decode("utf-8", "replace"))  # code points, like Array.from
    lines = len(text.split("\n")) - (1 if text.endswith("\n") else 0)
    return f"{head}…{removed} chars truncated…{tail}", len(data), lines


def limit_content(
    content: list[dict[str, object]], save_output: SaveOutput | None = save_to_temp_file
) -> tuple[list[dict[str, object]], str | None]:
    """Keep model-facing text within 20 KB; returns the content and the full-output path."""
    combined = content_text(content)
    truncated = _truncate_middle(combined, MCP_OUTPUT_MAX_BYTES)
    if truncated is None:
        return content, None
    body, total_bytes, total_lines = truncated
    full_path: str | None = None
    where = ""
    if save_output is not None:
        try:
            full_path = save_output(combined, ".txt")
            where = f"\n\n[Full output: {full_path} (read it with offset/limit)]"
        except OSError as exc:
            where = f"\n\n[Could not save the full output: {exc}]"
    tokens = math.ceil(total_bytes / 4)
    text = f"Warning: truncated output (original token count: {tokens})\nTotal output lines: {total_lines}\n\n{body}{where}"
    return [{"type": "text", "text": text}, *(block for block in content if block.get("type") == "image")], full_path


def script_result(result: dict[str, object]) -> dict[str, object]:
    """The ``CallToolResult`` scripts receive: everything but ``_meta``."""
    return {key: value for key, value in result.items() if key != "_meta"}


def convert_result(
    server: str,
    tool: str,
    result: dict[str, Any],
    readable_resources: bool = False,
    save_output: SaveOutput = save_to_temp_file,
) -> dict[str, object]:
    """An MCP ``CallToolResult`` as an agent tool result."""
    blocks = result.get("content") or []
    converted = to_model_content(server, blocks, readable_resources, save_output) if blocks else to_llm_content(result)
    if result.get("isError") and content_text(converted) == "":
        converted.append({"type": "text", "text": f"MCP tool {server}/{tool} returned an error"})
    content, full_path = limit_content(converted, save_output)
    details: dict[str, object] = {"server": server, "tool": tool}
    if full_path:
        details["fullOutputPath"] = full_path
    out: dict[str, object] = {"content": content, "details": details, "structuredContent": script_result(result)}
    if result.get("isError"):
        out["isError"] = True
    return out


def normalize_input_schema(schema: dict[str, object] | None) -> dict[str, object]:
    """Tool parameters as an object schema with ``properties`` (other keywords kept)."""
    schema = dict(schema or {})
    schema["type"] = schema.get("type") if schema.get("type") is not None else "object"
    if schema.get("properties") is None and "properties" not in schema:
        schema["properties"] = {}
    return schema
