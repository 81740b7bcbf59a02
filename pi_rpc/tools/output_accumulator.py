"""Bounded accumulation of streamed command output with a full-output temp file.

Keeps a rolling tail of the (already sanitised) text for display snapshots, counts lines and
bytes of everything seen, and once the output exceeds the truncation limits copies all of it
(earlier chunks included) to ``$TMPDIR/<prefix>-<16 hex>.log`` (mode 0600).
"""

from __future__ import annotations

import os
from typing import IO

from pi_rpc.tools.output_files import open_output_file
from pi_rpc.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    byte_len,
    truncate_tail,
)


class OutputSnapshot:
    __slots__ = ("content", "truncation", "full_output_path")

    def __init__(self, content: str, truncation: TruncationResult, full_output_path: str | None) -> None:
        self.content = content
        self.truncation = truncation
        self.full_output_path = full_output_path


class OutputAccumulator:
    def __init__(
        self,
        *,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_file_prefix: str = "pi-bash",
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._rolling_limit = max(max_bytes * 2, 1)
        self._prefix = temp_file_prefix
        self._pending: list[str] = []  # text not yet in the temp file (until one exists)
        self._tail = ""
        self._tail_bytes = 0
        self._tail_at_line_start = True
        self.total_bytes = 0
        self._completed_lines = 0
        self._open_line = False
        self.last_line_bytes = 0
        self.full_output_path: str | None = None
        self._file: IO[str] | None = None

    @property
    def total_lines(self) -> int:
        return self._completed_lines + (1 if self._open_line else 0)

    def append(self, text: str) -> None:
        if not text:
            return
        nbytes = byte_len(text)
        self.total_bytes += nbytes
        self._tail += text
        self._tail_bytes += nbytes
        if self._tail_bytes > self._rolling_limit * 2:
            self._trim_tail()
        newlines = text.count("\n")
        if newlines == 0:
            self.last_line_bytes += nbytes
            self._open_line = True
        else:
            self._completed_lines += newlines
            rest = text[text.rfind("\n") + 1 :]
            self.last_line_bytes = byte_len(rest)
            self._open_line = bool(rest)
        if self._file is not None or self._needs_file():
            self._ensure_file()
            assert self._file is not None
            self._file.write(text)
        else:
            self._pending.append(text)

    def _needs_file(self) -> bool:
        return self.total_bytes > self.max_bytes or self.total_lines > self.max_lines

    def _trim_tail(self) -> None:
        raw = self._tail.encode("utf-8", "surrogatepass")
        if len(raw) <= self._rolling_limit:
            self._tail_bytes = len(raw)
            return
        start = len(raw) - self._rolling_limit
        while start < len(raw) and (raw[start] & 0xC0) == 0x80:
            start += 1
        self._tail_at_line_start = raw[start - 1] == 0x0A if start > 0 else self._tail_at_line_start
        self._tail = raw[start:].decode("utf-8", "replace")
        self._tail_bytes = byte_len(self._tail)

    def _snapshot_text(self) -> str:
        if self._tail_at_line_start:
            return self._tail
        nl = self._tail.find("\n")
        return self._tail if nl == -1 else self._tail[nl + 1 :]

    def _ensure_file(self) -> None:
        if self.full_output_path is not None:
            return
        path, fd = open_output_file(self._prefix, ".log")
        self._file = os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass")
        self.full_output_path = path
        for chunk in self._pending:
            self._file.write(chunk)
        self._pending = []

    def snapshot(self, *, persist_if_truncated: bool = True) -> OutputSnapshot:
        tail = truncate_tail(self._snapshot_text(), max_lines=self.max_lines, max_bytes=self.max_bytes)
        truncated = self.total_lines > self.max_lines or self.total_bytes > self.max_bytes
        truncated_by = None
        if truncated:
            truncated_by = tail["truncatedBy"] or ("bytes" if self.total_bytes > self.max_bytes else "lines")
        truncation: TruncationResult = {
            **tail,
            "truncated": truncated,
            "truncatedBy": truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }
        if persist_if_truncated and truncated:
            self._ensure_file()
        if self._file is not None:
            self._file.flush()
        return OutputSnapshot(truncation["content"], truncation, self.full_output_path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
