"""Output truncation shared by the tools: head (read, grep, find, ls) and tail (bash).

Both limits apply at once, whichever is hit first: ``DEFAULT_MAX_LINES`` lines and
``DEFAULT_MAX_BYTES`` UTF-8 bytes. A trailing newline does not count as an extra line.
Results are upstream's ``TruncationResult`` dicts (camelCase keys), which tools expose
verbatim as ``details.truncation``.
"""

from __future__ import annotations

from typing import Literal, TypedDict

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500


class TruncationResult(TypedDict):
    content: str
    truncated: bool
    truncatedBy: Literal["lines", "bytes"] | None
    totalLines: int
    totalBytes: int
    outputLines: int
    outputBytes: int
    lastLinePartial: bool
    firstLineExceedsLimit: bool
    maxLines: int
    maxBytes: int


def byte_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def split_lines_for_counting(content: str) -> list[str]:
    if not content:
        return []
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return lines


def format_size(num_bytes: int) -> str:
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{num_bytes / 1024:.1f}KB"
    return f"{num_bytes / (1024 * 1024):.1f}MB"


def _result(
    content: str,
    truncated: bool,
    truncated_by: Literal["lines", "bytes"] | None,
    total_lines: int,
    total_bytes: int,
    output_lines: int,
    output_bytes: int,
    max_lines: int,
    max_bytes: int,
    *,
    last_line_partial: bool = False,
    first_line_exceeds: bool = False,
) -> TruncationResult:
    return {
        "content": content,
        "truncated": truncated,
        "truncatedBy": truncated_by,
        "totalLines": total_lines,
        "totalBytes": total_bytes,
        "outputLines": output_lines,
        "outputBytes": output_bytes,
        "lastLinePartial": last_line_partial,
        "firstLineExceedsLimit": first_line_exceeds,
        "maxLines": max_lines,
        "maxBytes": max_bytes,
    }


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole leading lines. A first line over the byte limit yields empty content."""
    total_bytes = byte_len(content)
    lines = split_lines_for_counting(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _result(content, False, None, total_lines, total_bytes, total_lines, total_bytes, max_lines, max_bytes)

    if byte_len(lines[0]) > max_bytes:
        return _result("", True, "bytes", total_lines, total_bytes, 0, 0, max_lines, max_bytes, first_line_exceeds=True)

    kept: list[str] = []
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    for i, line in enumerate(lines):
        if i >= max_lines:
            break
        cost = byte_len(line) + (1 if i > 0 else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    out = "\n".join(kept)
    return _result(out, True, truncated_by, total_lines, total_bytes, len(kept), byte_len(out), max_lines, max_bytes)


def _tail_bytes(text: str, max_bytes: int) -> str:
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return text
    start = len(raw) - max_bytes
    # Step forward to a UTF-8 lead byte so no character is cut in half.
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:
        start += 1
    return raw[start:].decode("utf-8", "replace")


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole trailing lines; a single over-long last line keeps its trailing bytes."""
    total_bytes = byte_len(content)
    lines = split_lines_for_counting(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _result(content, False, None, total_lines, total_bytes, total_lines, total_bytes, max_lines, max_bytes)

    kept: list[str] = []
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = byte_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                cut = _tail_bytes(line, max_bytes)
                kept.insert(0, cut)
                used = byte_len(cut)
                partial = True
            break
        kept.insert(0, line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    out = "\n".join(kept)
    return _result(
        out,
        True,
        truncated_by,
        total_lines,
        total_bytes,
        len(kept),
        byte_len(out),
        max_lines,
        max_bytes,
        last_line_partial=partial,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters, marking the cut."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
