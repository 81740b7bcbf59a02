"""``bash`` in the editor's terminal (``terminal/*``), when the client offers terminals and the
``acp.terminal`` setting is ``true``.

A command runs as ``terminal/create`` with pi's shell (``<shell> -c <command>``, the
``shellPath`` and ``shellCommandPrefix`` settings apply), the tool's working directory, the
environment variables pi's bash would set on top of its own (``PI_SESSION_ID``, …, a changed
``PATH``) and an output cap of ``OUTPUT_BYTE_LIMIT`` (the client drops the oldest output
beyond it). The terminal is embedded in the tool call (``{"type":"terminal","terminalId"}``),
so the editor shows the live output; the agent waits with ``terminal/wait_for_exit``, then
reads ``terminal/output`` and releases the terminal. An abort (``session/cancel``) or the
call's ``timeout`` sends ``terminal/kill`` first. The output the model gets is what a local
run gives: sanitised (ANSI sequences and control characters removed), tail-truncated, with the
full text in a temp file when cut, and the same exit-code / aborted / timed-out results.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping

import anyio

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.modes.acp.jsonrpc import JsonRpcPeer, PeerClosed, RpcError
from pi_rpc.tools.bash_executor import (
    BashExecutionError,
    BashExecutionResult,
    ChunkCallback,
    prepare_command,
)
from pi_rpc.tools.output_accumulator import OutputAccumulator
from pi_rpc.tools.sanitize import sanitize_text

OUTPUT_BYTE_LIMIT = 4 * 1024 * 1024
OnTerminal = Callable[[str, str], Awaitable[None]]


def _changed_env(env: Mapping[str, str]) -> list[dict[str, str]]:
    """The variables pi's bash sets beyond the environment pi itself got from the editor."""
    return [{"name": key, "value": value} for key, value in env.items() if os.environ.get(key) != value]


class ClientTerminals:
    """A ``BashRunner`` over the client's terminals; ``on_terminal(tool_call_id, terminal_id)``
    lets the session embed the terminal in the tool call."""

    def __init__(self, peer: JsonRpcPeer, session_id: str, on_terminal: OnTerminal) -> None:
        self.peer = peer
        self.session_id = session_id
        self.on_terminal = on_terminal

    async def _call(self, method: str, terminal_id: str) -> object:
        return await self.peer.request(method, {"sessionId": self.session_id, "terminalId": terminal_id})

    async def __call__(
        self,
        command: str,
        cwd: str,
        *,
        tool_call_id: str,
        on_chunk: ChunkCallback | None,
        signal: AbortSignal | None,
        timeout_s: float | None,
        shell_path: str | None,
        command_prefix: str | None,
        env: Mapping[str, str],
        accumulator: OutputAccumulator,
    ) -> BashExecutionResult:
        if signal is not None and signal.aborted:
            return BashExecutionResult(output="", exit_code=None, cancelled=True, truncated=False)
        timeout, shell, shell_args, full_command = prepare_command(command, cwd, timeout_s, shell_path, command_prefix)
        params: dict[str, object] = {
            "sessionId": self.session_id,
            "command": shell,
            "args": [*shell_args, full_command],
            "cwd": cwd,
            "outputByteLimit": OUTPUT_BYTE_LIMIT,
        }
        variables = _changed_env(env)
        if variables:
            params["env"] = variables
        try:
            created = await self.peer.request("terminal/create", params)
        except (RpcError, PeerClosed) as exc:
            raise BashExecutionError(f"The editor could not start the command: {exc}") from exc
        terminal_id = created.get("terminalId") if isinstance(created, dict) else None
        if not isinstance(terminal_id, str):
            raise BashExecutionError("The editor did not return a terminal id")

        reason: str | None = None
        exit_status: object = None
        try:
            await self.on_terminal(tool_call_id, terminal_id)
            with anyio.CancelScope() as scope:
                if timeout is not None:
                    scope.deadline = anyio.current_time() + timeout

                def aborted() -> None:
                    nonlocal reason
                    reason = reason or "abort"
                    scope.cancel()

                remove = signal.add_callback(aborted) if signal is not None else None
                try:
                    exit_status = await self._call("terminal/wait_for_exit", terminal_id)
                except PeerClosed:
                    reason = reason or "abort"
                except RpcError:
                    exit_status = None  # read the status from terminal/output below
                finally:
                    if remove is not None:
                        remove()
            if scope.cancelled_caught and reason is None:
                reason = "timeout"
            with anyio.CancelScope(shield=True):
                if reason is not None:
                    try:
                        await self._call("terminal/kill", terminal_id)
                    except (RpcError, PeerClosed):
                        pass
                try:
                    output = await self._call("terminal/output", terminal_id)
                except (RpcError, PeerClosed):
                    output = None
        finally:
            with anyio.CancelScope(shield=True):
                try:
                    await self._call("terminal/release", terminal_id)
                except (RpcError, PeerClosed):
                    pass

        text = output.get("output") if isinstance(output, dict) else None
        clean = sanitize_text(text) if isinstance(text, str) else ""
        if clean:
            accumulator.append(clean)
            if on_chunk is not None:
                delivered = on_chunk(clean)
                if delivered is not None:
                    await delivered
        if exit_status is None and isinstance(output, dict):
            exit_status = output.get("exitStatus")
        code = exit_status.get("exitCode") if isinstance(exit_status, dict) else None
        snapshot = accumulator.snapshot(persist_if_truncated=True)
        accumulator.close()
        return BashExecutionResult(
            output=snapshot.content,
            exit_code=code if isinstance(code, int) and reason is None else None,
            cancelled=reason == "abort",
            truncated=snapshot.truncation["truncated"],
            full_output_path=snapshot.full_output_path,
            timed_out=reason == "timeout",
        )
