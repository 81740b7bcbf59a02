"""The ``find`` tool (off by default): list paths matching a glob, with fd or a Python fallback.

Paths are relative to the search directory with ``/`` separators; directories end in ``/``.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

import anyio

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
from pi_rpc.tools.walk import glob_matches, walk

DEFAULT_FIND_LIMIT = 1000

FIND_PARAMETERS = object_schema(
    {
        "pattern": string_prop("Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"),
        "path": string_prop("Directory to search in (default: current directory)"),
        "limit": number_prop("Maximum number of results (default: 1000)"),
    },
    ["pattern"],
)


def relativize(result_path: str, search_path: str) -> str:
    trailing = result_path.endswith(os.sep)
    rel = os.path.relpath(result_path, search_path) if os.path.isabs(result_path) else result_path
    rel = rel.replace(os.sep, "/")
    return f"{rel}/" if trailing and not rel.endswith("/") else rel


class FindTool(BuiltinTool):
    name = "find"
    label = "find"
    description = (
        "Locate files whose paths match a glob pattern; results are relative to the search directory "
        f"and .gitignore rules are honoured. At most {DEFAULT_FIND_LIMIT} results or "
        f"{DEFAULT_MAX_BYTES // 1024}KB of output are returned, whichever comes first."
    )
    parameters = FIND_PARAMETERS
    prompt_snippet = "Find files by glob pattern (respects .gitignore)"

    def __init__(self, cwd: str, *, fd_path: str | None = None, use_fd: bool = True) -> None:
        super().__init__(cwd)
        if fd_path is None and use_fd:
            import shutil  # (shutil and its compression modules: not at startup)

            fd_path = shutil.which("fd") or shutil.which("fdfind")
        self.fd_path = fd_path

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        pattern: str = args["pattern"]
        search_path = resolve_to_cwd(args.get("path") or ".", self.cwd)
        limit = int(args["limit"]) if args.get("limit") is not None else DEFAULT_FIND_LIMIT
        if not os.path.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        if self.fd_path:
            found = await self._run_fd(pattern, search_path, limit)
        else:
            found = []
            for _abs, rel, is_dir in walk(search_path):
                check_aborted(signal)
                if len(found) >= limit:
                    break
                if glob_matches(pattern, rel):
                    found.append(f"{rel}/" if is_dir else rel)
        check_aborted(signal)
        if not found:
            return {"content": [{"type": "text", "text": "No files found matching pattern"}]}

        before: list[Notice] = []
        if len(found) >= limit:
            before.append(
                (
                    f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern",
                    "resultLimitReached",
                    limit,
                )
            )
        return listing_result(found, before)

    async def _run_fd(self, pattern: str, search_path: str, limit: int) -> list[str]:
        assert self.fd_path is not None
        cmd = [self.fd_path, "--glob", "--color=never", "--hidden", "--no-require-git", "--max-results", str(limit)]
        effective = pattern
        if "/" in pattern:
            cmd.append("--full-path")
            if not pattern.startswith("/") and not pattern.startswith("**/") and pattern != "**":
                effective = f"**/{pattern}"
        cmd += ["--", effective, search_path]
        result = await anyio.run_process(cmd, check=False, stdin=subprocess.DEVNULL)
        output = result.stdout.decode("utf-8", "replace")
        lines = [ln.rstrip("\r").strip() for ln in output.split("\n")]
        lines = [ln for ln in lines if ln]
        if result.returncode != 0 and not lines:
            message = result.stderr.decode("utf-8", "replace").strip()
            raise ToolError(message or f"fd exited with code {result.returncode}")
        return [relativize(line, search_path) for line in lines]
