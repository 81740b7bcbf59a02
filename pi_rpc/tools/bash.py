"""The ``bash`` tool: run a shell command for the model, streaming its output.

Each update carries the whole accumulated (tail-truncated, sanitised) output so far; the first
update is ``{"content": []}``. The final result adds upstream 1.6's ``structuredContent``
``{output, truncated, exit_code, wall_time_seconds}``; a non-zero exit returns ``isError: true``
(not an exception), while abort, timeout and start failures raise ``ToolError``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.tools._js import js_number
from pi_rpc.tools.base import BuiltinTool, emit_update, number_prop, object_schema, string_prop

if TYPE_CHECKING:
    from pi_rpc.tools.bash_executor import BashRunner
    from pi_rpc.tools.output_accumulator import OutputAccumulator, OutputSnapshot
from pi_rpc.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size

BASH_PARAMETERS = object_schema(
    {
        "command": string_prop("Shell command to execute"),
        "timeout": number_prop("Timeout in seconds (optional, no default timeout)"),
    },
    ["command"],
)

SESSION_ENV_KEYS = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")

SessionEnv = Mapping[str, str] | Callable[[], Mapping[str, str] | None] | None


def _wall_time(seconds: float) -> float | int:
    rounded = round(seconds, 1)
    return int(rounded) if float(rounded).is_integer() else rounded


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


class BashTool(BuiltinTool):
    name = "bash"
    label = "bash"
    description = (
        "Run a bash command in the current working directory and get back its combined stdout and "
        f"stderr. Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are "
        "returned (whichever limit is reached first); when output is cut, the complete output is written "
        "to a temp file. You may pass a timeout in seconds."
    )
    parameters = BASH_PARAMETERS
    prompt_snippet = "Execute bash commands (ls, grep, find, etc.)"
    prompt_guidelines = ("You can inspect PI_* environment variables for current model and session details.",)

    def __init__(
        self,
        cwd: str,
        *,
        shell_path: str | None = None,
        command_prefix: str | None = None,
        session_env: SessionEnv = None,
        bin_dir: str | None = None,
        update_throttle_s: float = 0.1,
        runner: BashRunner | None = None,
    ) -> None:
        super().__init__(cwd)
        self.runner = runner  # None: a local process (execute_bash)
        self.shell_path = shell_path
        self.command_prefix = command_prefix
        self.session_env = session_env
        self.bin_dir = bin_dir
        self.update_throttle_s = update_throttle_s

    def build_env(self) -> dict[str, str]:
        from pi_rpc.tools.bash_executor import shell_env

        env = shell_env(self.bin_dir)
        for key in SESSION_ENV_KEYS:
            env.pop(key, None)
        extra = self.session_env() if callable(self.session_env) else self.session_env
        if extra:
            env.update({k: str(v) for k, v in extra.items() if v is not None})
        return env

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, object],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        # No cancel scope here: the executor turns an abort into killing the process group,
        # so the output gathered so far can still be reported.
        return await self.run(args, signal, on_update, tool_call_id)

    async def run(
        self,
        args: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
        tool_call_id: str = "",
    ) -> AgentToolResult:
        # The executor (process groups, shutil, the process registry) loads at the first
        # command, not with the tool's definition.
        from pi_rpc.tools.bash_executor import BashExecutionError, execute_bash
        from pi_rpc.tools.output_accumulator import OutputAccumulator

        command: str = args["command"]
        timeout = args.get("timeout")
        acc = OutputAccumulator(temp_file_prefix="pi-bash")
        started = time.monotonic()
        dirty = anyio.Event()
        state = {"last": 0.0, "dirty": False, "accepting": True}

        async def push() -> None:
            if on_update is None or not state["dirty"]:
                return
            state["dirty"] = False
            state["last"] = time.monotonic()
            snap = acc.snapshot(persist_if_truncated=True)
            details: dict[str, Any] = {}
            if snap.truncation["truncated"]:
                details["truncation"] = snap.truncation
            if snap.full_output_path is not None:
                details["fullOutputPath"] = snap.full_output_path
            await emit_update(on_update, {"content": [{"type": "text", "text": snap.content}], "details": details})

        async def on_chunk(_delta: str) -> None:
            if on_update is None or not state["accepting"]:
                return
            state["dirty"] = True
            if time.monotonic() - state["last"] >= self.update_throttle_s:
                await push()
            else:
                dirty.set()

        async def flusher() -> None:
            nonlocal dirty
            while True:
                await dirty.wait()
                dirty = anyio.Event()
                wait = self.update_throttle_s - (time.monotonic() - state["last"])
                if wait > 0:
                    await anyio.sleep(wait)
                await push()

        if on_update is not None:
            await emit_update(on_update, {"content": []})

        start_error: BashExecutionError | None = None
        async with anyio.create_task_group() as tg:
            tg.start_soon(flusher)
            try:
                options: dict[str, Any] = {
                    "on_chunk": on_chunk,
                    "signal": signal,
                    "timeout_s": timeout,
                    "shell_path": self.shell_path,
                    "command_prefix": self.command_prefix,
                    "env": self.build_env(),
                    "accumulator": acc,
                }
                if self.runner is not None:  # e.g. the editor's terminal (ACP)
                    result = await self.runner(command, self.cwd, tool_call_id=tool_call_id, **options)
                else:
                    result = await execute_bash(command, self.cwd, **options)
            except BashExecutionError as exc:
                start_error = exc
            finally:
                tg.cancel_scope.cancel()
        if start_error is not None:
            raise ToolError(str(start_error)) from start_error
        state["accepting"] = False
        await push()

        snap = acc.snapshot(persist_if_truncated=True)
        if result.cancelled:
            raise ToolError(_with_status(self._format(snap, acc, "")[0], "Command aborted"))
        if result.timed_out:
            seconds = cast(float, timeout)  # execute_bash times out only after validating a numeric timeout
            raise ToolError(
                _with_status(self._format(snap, acc, "")[0], f"Command timed out after {js_number(seconds)} seconds")
            )

        text, details = self._format(snap, acc, "(no output)")
        structured = {
            "output": snap.content,
            "truncated": snap.truncation["truncated"],
            "exit_code": result.exit_code,
            "wall_time_seconds": _wall_time(time.monotonic() - started),
        }
        out: AgentToolResult = {"content": [{"type": "text", "text": text}]}
        if details is not None:
            out["details"] = details
        out["structuredContent"] = structured
        if result.exit_code is not None and result.exit_code != 0:
            out["content"] = [
                {"type": "text", "text": _with_status(text, f"Command exited with code {result.exit_code}")}
            ]
            out["isError"] = True
        return out

    @staticmethod
    def _format(snap: OutputSnapshot, acc: OutputAccumulator, empty_text: str) -> tuple[str, dict[str, object] | None]:
        trunc = snap.truncation
        text = snap.content or empty_text
        if not trunc["truncated"]:
            return text, None
        details: dict[str, object] = {"truncation": trunc}
        if snap.full_output_path is not None:
            details["fullOutputPath"] = snap.full_output_path
        start = trunc["totalLines"] - trunc["outputLines"] + 1
        end = trunc["totalLines"]
        path = snap.full_output_path
        if trunc["lastLinePartial"]:
            text += (
                f"\n\n[Showing last {format_size(trunc['outputBytes'])} of line {end} "
                f"(line is {format_size(acc.last_line_bytes)}). Full output: {path}]"
            )
        elif trunc["truncatedBy"] == "lines":
            text += f"\n\n[Showing lines {start}-{end} of {trunc['totalLines']}. Full output: {path}]"
        else:
            text += (
                f"\n\n[Showing lines {start}-{end} of {trunc['totalLines']} "
                f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {path}]"
            )
        return text, details
