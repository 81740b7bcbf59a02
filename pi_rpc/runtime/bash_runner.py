"""The RPC ``bash`` command: run a user command in the session cwd with the configured shell,
stream sanitised chunks, and build both the BashResult response data and the
``bashExecution`` message the session records."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import BashExecutionMessage
from pi_rpc.config.settings import Settings
from pi_rpc.tools import bash_execution_message, execute_bash
from pi_rpc.tools.bash_executor import BashExecutionResult


async def run_bash_command(
    command: str,
    *,
    cwd: str,
    settings: Settings,
    signal: AbortSignal,
    on_chunk: Callable[[str], Awaitable[None]] | None,
    exclude_from_context: bool | None,
    operations: object = None,
) -> tuple[dict[str, object], BashExecutionMessage]:
    if operations is not None:
        result = await _run_with_operations(operations, command, cwd, signal, on_chunk)
    else:
        result = await execute_bash(
            command,
            cwd,
            on_chunk=on_chunk,
            signal=signal,
            shell_path=settings.shell_path,
            command_prefix=settings.shell_command_prefix,
        )
    data: dict[str, object] = {"output": result.output}
    if result.exit_code is not None and not result.cancelled:
        data["exitCode"] = result.exit_code
    data["cancelled"] = result.cancelled
    data["truncated"] = result.truncated
    if result.full_output_path:
        data["fullOutputPath"] = result.full_output_path
    message = bash_execution_message(command, result, exclude_from_context=exclude_from_context)
    return data, message


async def _run_with_operations(
    operations: Any,
    command: str,
    cwd: str,
    signal: AbortSignal,
    on_chunk: Callable[[str], Awaitable[None]] | None,
) -> BashExecutionResult:
    """Run through an extension's backend (``user_bash`` returning ``{"operations"}``):
    ``operations.exec(command, cwd, {"on_data", "signal"})`` returns ``{"exitCode"}`` and
    streams output through ``on_data``."""
    import inspect

    chunks: list[str] = []

    async def on_data(data: object) -> None:
        text = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else str(data)
        chunks.append(text)
        if on_chunk is not None:
            await on_chunk(text)

    run = operations["exec"] if isinstance(operations, dict) else operations.exec
    outcome: object = run(command, cwd, {"on_data": on_data, "signal": signal})
    if inspect.isawaitable(outcome):
        outcome = await outcome
    exit_code = outcome.get("exitCode") if isinstance(outcome, dict) else None
    return BashExecutionResult(
        output="".join(chunks),
        exit_code=exit_code if isinstance(exit_code, int) else None,
        cancelled=signal.aborted,
        truncated=False,
    )


def record_external_result(
    command: str, result: dict[str, Any], exclude_from_context: bool | None
) -> tuple[dict[str, object], BashExecutionMessage]:
    """The response data and ``bashExecution`` message for a result an extension reported."""
    executed = BashExecutionResult(
        output=str(result.get("output", "")),
        exit_code=result.get("exitCode"),
        cancelled=bool(result.get("cancelled")),
        truncated=bool(result.get("truncated")),
        full_output_path=result.get("fullOutputPath"),
    )
    return executed.to_dict(), bash_execution_message(command, executed, exclude_from_context=exclude_from_context)
