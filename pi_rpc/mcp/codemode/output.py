"""A codemode script's result as the model sees it (upstream's layout).

``Script completed`` or ``Script failed``, the wall time and ``Output:``, then the items in
order: with more than one text item each starts with ``==> text N/M <==``; ``console`` lines
follow in one ``<console_output>`` block; a failure adds ``Script error:`` with the error and
the tool calls made before it. Text over ``max_output_tokens × 4`` characters keeps its start
and end (the full text goes to an output file); each image is saved to an output file whose
path precedes it.
"""

from __future__ import annotations

import base64
import math
from typing import Any

from pi_rpc.tools.output_files import write_output_file
from pi_rpc.tools.truncate import format_size

DEFAULT_MAX_OUTPUT_TOKENS = 10_000
CHARS_PER_TOKEN = 4
OUTPUT_PREFIX = "pi-codemode"
IMAGE_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


def format_items(output: list[dict[str, object]]) -> list[dict[str, object]]:
    total = sum(1 for item in output if item.get("type") == "text")
    items: list[dict[str, object]] = []
    console: list[str] = []
    index = 0
    for item in output:
        kind = item.get("type")
        if kind == "image":
            items.append({"type": "image", "data": item["data"], "mimeType": item["mimeType"]})
        elif kind == "console":
            console.append(str(item.get("text", "")))
        else:
            index += 1
            text = str(item.get("text", ""))
            items.append({"type": "text", "text": f"==> text {index}/{total} <==\n{text}" if total > 1 else text})
    if console:
        items.append({"type": "text", "text": "<console_output>\n" + "\n".join(console) + "\n</console_output>"})
    return items


def join_adjacent_text(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    joined: list[dict[str, object]] = []
    parts: list[str] = []
    last = ""

    def flush() -> None:
        nonlocal parts, last
        if parts:
            joined.append({"type": "text", "text": "".join(parts)})
        parts = []
        last = ""

    for item in items:
        if item.get("type") != "text":
            flush()
            joined.append(item)
            continue
        if last and not last.endswith("\n"):
            parts.append("\n")
            last = "\n"
        parts.append(item["text"])
        if item["text"]:
            last = item["text"]
    flush()
    return joined


def truncate_output(items: list[dict[str, Any]], max_tokens: int) -> tuple[list[dict[str, Any]], str | None]:
    texts = [item["text"] for item in items if item.get("type") == "text"]
    combined = "\n".join(texts)
    budget = max_tokens * CHARS_PER_TOKEN
    if not texts or len(combined) <= budget:
        return items, None
    head_chars = budget // 2
    tail_chars = budget - head_chars
    removed = len(combined) - head_chars - tail_chars
    head = combined[:head_chars]
    tail = combined[len(combined) - tail_chars :] if tail_chars else ""
    text = (
        f"Warning: truncated output (original token count: {math.ceil(len(combined) / CHARS_PER_TOKEN)})\n"
        f"Total output lines: {len(combined.split(chr(10)))}\n\n"
        f"{head}…{math.ceil(removed / CHARS_PER_TOKEN)} tokens truncated…{tail}"
    )
    path: str | None = None
    try:
        path = write_output_file(OUTPUT_PREFIX, ".txt", combined)
        text += f"\n\n[Full output: {path} (read with offset/limit)]"
    except OSError as exc:
        text += f"\n\n[Could not save the full output: {exc}]"
    return [{"type": "text", "text": text}, *(item for item in items if item.get("type") == "image")], path


def save_images(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    labels: dict[str, str] = {}
    out: list[dict[str, object]] = []
    for item in items:
        if item.get("type") != "image":
            out.append(item)
            continue
        data = item["data"]
        if data not in labels:
            raw = base64.b64decode(data)
            kind = f"{item['mimeType']}, {format_size(len(raw))}"
            extension = IMAGE_EXTENSIONS.get(item["mimeType"])
            if extension is None:
                labels[data] = (
                    f"[Image ({kind}) could not be saved: no file extension for image type {item['mimeType']}]"
                )
            else:
                try:
                    labels[data] = f"[Image saved to {write_output_file(OUTPUT_PREFIX, extension, raw)} ({kind})]"
                except OSError as exc:
                    labels[data] = f"[Image ({kind}) could not be saved: {exc}]"
        out.append({"type": "text", "text": labels[data]})
        out.append(item)
    return out


def call_summary(calls: list[dict[str, object]]) -> str:
    if not calls:
        return "No tool calls were made."
    listed = ", ".join(f"{call['name']} ({call['status']})" for call in calls)
    return f"Tool calls made before the failure (they are not undone): {listed}"


def build_result(
    *,
    ok: bool,
    output: list[dict[str, object]],
    error: str | None,
    calls: list[dict[str, object]],
    wall_seconds: float,
    max_output_tokens: int | None,
) -> dict[str, object]:
    items = format_items(output)
    if not ok:
        items.append({"type": "text", "text": f"Script error:\n{error}\n\n{call_summary(calls)}"})
    truncated, full_path = truncate_output(
        join_adjacent_text(items), max_output_tokens if max_output_tokens is not None else DEFAULT_MAX_OUTPUT_TOKENS
    )
    body = join_adjacent_text(save_images(truncated))
    header = f"{'Script completed' if ok else 'Script failed'}\nWall time {wall_seconds:.1f} seconds\nOutput:\n"
    details: dict[str, object] = {"calls": [dict(call) for call in calls]}
    if full_path:
        details["fullOutputPath"] = full_path
    result: dict[str, object] = {"content": [{"type": "text", "text": header}, *body], "details": details}
    if not ok:
        result["isError"] = True
    return result
