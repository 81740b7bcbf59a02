"""The RPC ``bash`` command: run a user command in the session cwd with the configured shell,
stream sanitised chunks, and build both the BashResult response data and the
``bashExecution`` message the session records."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.config.settings import Settings
from pi_rpc.tools import bash_execution_message, execute_bash


async def run_bash_command(
    command: str,
    *,
    cwd: str,
    settings: Settings,
    signal: AbortSignal,
    on_chunk: Callable[[str], Awaitable[None]] | None,
    exclude_from_context: bool | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    result = await execute_bash(
        command,
        cwd,
        on_chunk=on_chunk,
        signal=signal,
        shell_path=settings.shell_path,
        command_prefix=settings.shell_command_prefix,
    )
    data: dict[str, Any] = {"output": result.output}
    if result.exit_code is not None and not result.cancelled:
        data["exitCode"] = result.exit_code
    data["cancelled"] = result.cancelled
    data["truncated"] = result.truncated
    if result.full_output_path:
        data["fullOutputPath"] = result.full_output_path
    message = bash_execution_message(command, result, exclude_from_context=exclude_from_context)
    return data, message
