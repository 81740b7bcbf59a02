"""The ``grep`` tool (off by default): search file contents with ripgrep or a Python fallback.

ripgrep is used when ``rg`` is on PATH; otherwise a Python search over a .gitignore-aware walk
produces the same output shape: ``path:line: text`` for matches, ``path-line- text`` for
context lines, at most ``limit`` matches, 500 characters per line, 50 KB in total.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import anyio

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.tools.base import (
    BuiltinTool,
    Notice,
    boolean_prop,
    check_aborted,
    listing_result,
    number_prop,
    object_schema,
    string_prop,
)
from pi_rpc.tools.paths import resolve_to_cwd
from pi_rpc.tools.truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, truncate_line
from pi_rpc.tools.walk import glob_matches, walk

DEFAULT_GREP_LIMIT = 100
_BINARY_PROBE = 8192

GREP_PARAMETERS = object_schema(
    {
        "pattern": string_prop("Search pattern (regex or literal string)"),
        "path": string_prop("Directory or file to search (default: current directory)"),
        "glob": string_prop("Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"),
        "ignoreCase": boolean_prop("Case-insensitive search (default: false)"),
        "literal": boolean_prop("Treat pattern as literal string instead of regex (default: false)"),
        "context": number_prop("Number of lines to show before and after each match (default: 0)"),
        "limit": number_prop("Maximum number of matches to return (default: 100)"),
    },
    ["pattern"],
)


class GrepTool(BuiltinTool):
    name = "grep"
    label = "grep"
    description = (
        "Look for a pattern inside files and list each matching line with its file path and line number. "
        f".gitignore rules are honoured. At most {DEFAULT_GREP_LIMIT} matches or "
        f"{DEFAULT_MAX_BYTES // 1024}KB of output are returned, whichever comes first, and lines longer "
        f"than {GREP_MAX_LINE_LENGTH} characters are shortened."
    )
    parameters = GREP_PARAMETERS
    prompt_snippet = "Search file contents for patterns (respects .gitignore)"

    def __init__(self, cwd: str, *, rg_path: str | None = None, use_ripgrep: bool = True) -> None:
        super().__init__(cwd)
        if rg_path is None and use_ripgrep:
            import shutil  # (shutil and its compression modules: not at startup)

            rg_path = shutil.which("rg")
        self.rg_path = rg_path

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        search_path = resolve_to_cwd(args.get("path") or ".", self.cwd)
        if not os.path.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        is_dir = os.path.isdir(search_path)
        context_value = args.get("context")
        context = int(context_value) if context_value and context_value > 0 else 0
        limit = max(1, int(args["limit"])) if args.get("limit") is not None else DEFAULT_GREP_LIMIT

        if self.rg_path:
            matches, limit_reached = await self._search_rg(args, search_path, limit)
        else:
            matches, limit_reached = self._search_python(args, search_path, is_dir, limit, signal)
        check_aborted(signal)
        if not matches:
            return {"content": [{"type": "text", "text": "No matches found"}]}

        def rel(file_path: str) -> str:
            if is_dir:
                r = os.path.relpath(file_path, search_path)
                if r and not r.startswith(".."):
                    return r.replace(os.sep, "/")
            return os.path.basename(file_path)

        cache: dict[str, list[str]] = {}

        def file_lines(file_path: str) -> list[str]:
            if file_path not in cache:
                try:
                    with open(file_path, encoding="utf-8", errors="replace", newline="") as fh:
                        cache[file_path] = fh.read().replace("\r\n", "\n").replace("\r", "\n").split("\n")
                except OSError:
                    cache[file_path] = []
            return cache[file_path]

        lines_truncated = False
        out_lines: list[str] = []
        for file_path, line_no, line_text in matches:
            rp = rel(file_path)
            if context == 0 and line_text is not None:
                clean = line_text.replace("\r\n", "\n").replace("\r", "")
                if clean.endswith("\n"):
                    clean = clean[:-1]
                text, cut = truncate_line(clean)
                lines_truncated |= cut
                out_lines.append(f"{rp}:{line_no}: {text}")
                continue
            lines = file_lines(file_path)
            if not lines:
                out_lines.append(f"{rp}:{line_no}: (unable to read file)")
                continue
            start = max(1, line_no - context) if context else line_no
            end = min(len(lines), line_no + context) if context else line_no
            for current in range(start, end + 1):
                text, cut = truncate_line((lines[current - 1] if current - 1 < len(lines) else "").replace("\r", ""))
                lines_truncated |= cut
                sep = ":" if current == line_no else "-"
                out_lines.append(f"{rp}{sep}{current}{sep} {text}")

        before: list[Notice] = []
        if limit_reached:
            before.append(
                (
                    f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern",
                    "matchLimitReached",
                    limit,
                )
            )
        after: list[Notice] = []
        if lines_truncated:
            after.append(
                (
                    f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines",
                    "linesTruncated",
                    True,
                )
            )
        return listing_result(out_lines, before, after)

    def _search_python(
        self, args: dict[str, Any], search_path: str, is_dir: bool, limit: int, signal: AbortSignal | None
    ) -> tuple[list[tuple[str, int, str | None]], bool]:
        flags = re.IGNORECASE if args.get("ignoreCase") else 0
        source = re.escape(args["pattern"]) if args.get("literal") else args["pattern"]
        try:
            regex = re.compile(source, flags)
        except re.error as exc:
            raise ToolError(f"regex parse error:\n    {args['pattern']}\nerror: {exc}") from exc
        glob = args.get("glob")
        files: Iterator[str]
        if is_dir:
            files = (p for p, r, d in walk(search_path) if not d and (not glob or glob_matches(glob, r, anchored=True)))
        else:
            files = iter([search_path])
        matches: list[tuple[str, int, str | None]] = []
        for file_path in files:
            check_aborted(signal)
            try:
                with open(file_path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if b"\x00" in data[:_BINARY_PROBE]:
                continue
            text = data.decode("utf-8", "replace")
            for idx, line in enumerate(text.split("\n")):
                if regex.search(line.rstrip("\r")):
                    matches.append((file_path, idx + 1, line))
                    if len(matches) >= limit:
                        return matches, True
        return matches, False

    async def _search_rg(
        self, args: dict[str, Any], search_path: str, limit: int
    ) -> tuple[list[tuple[str, int, str | None]], bool]:
        assert self.rg_path is not None
        cmd = [self.rg_path, "--json", "--line-number", "--color=never", "--hidden"]
        if args.get("ignoreCase"):
            cmd.append("--ignore-case")
        if args.get("literal"):
            cmd.append("--fixed-strings")
        if args.get("glob"):
            cmd += ["--glob", args["glob"]]
        cmd += ["--", args["pattern"], search_path]
        matches: list[tuple[str, int, str | None]] = []
        limit_reached = False
        proc = await anyio.open_process(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        stderr_chunks: list[bytes] = []
        try:
            async with anyio.create_task_group() as tg:

                async def read_stderr() -> None:
                    assert proc.stderr is not None
                    async for chunk in proc.stderr:
                        stderr_chunks.append(chunk)

                tg.start_soon(read_stderr)
                buffer = b""
                assert proc.stdout is not None
                async for chunk in proc.stdout:
                    buffer += chunk
                    *complete, buffer = buffer.split(b"\n")
                    for raw in complete:
                        if not raw.strip():
                            continue
                        try:
                            event = json.loads(raw)
                        except ValueError:
                            continue
                        if event.get("type") != "match":
                            continue
                        data = event.get("data") or {}
                        path = (data.get("path") or {}).get("text")
                        line_no = data.get("line_number")
                        if path and isinstance(line_no, int):
                            matches.append((path, line_no, (data.get("lines") or {}).get("text")))
                        if len(matches) >= limit:
                            limit_reached = True
                            break
                    if limit_reached:
                        proc.kill()
                        break
            code = await proc.wait()
        finally:
            with anyio.CancelScope(shield=True):
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
        if not limit_reached and code not in (0, 1):
            message = b"".join(stderr_chunks).decode("utf-8", "replace").strip()
            raise ToolError(message or f"ripgrep exited with code {code}")
        return matches, limit_reached
