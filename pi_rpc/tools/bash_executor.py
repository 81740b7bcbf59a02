"""Running one shell command: the engine behind both the LLM ``bash`` tool and the RPC
``bash`` command, plus the ``bashExecution`` message helpers.

The command runs as ``<shell> -c <command>`` in a new session (its own process group), with
stdin closed and stdout+stderr merged in arrival order. Output is decoded as UTF-8 and
sanitised (ANSI sequences, including ones split across chunks, control characters and CR are
removed) before it reaches ``on_chunk`` or the accumulator. Abort and timeout signal the whole
group at once: SIGTERM, then SIGKILL after a short grace.
"""

from __future__ import annotations

import inspect
import os
import shutil
import signal as _signal
import subprocess
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

import anyio

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.jsjson import well_formed
from pi_rpc.tools import process_registry
from pi_rpc.tools.output_accumulator import OutputAccumulator
from pi_rpc.tools.sanitize import OutputSanitizer

if TYPE_CHECKING:
    from pi_rpc.ai.types import BashExecutionMessage

# After the shell exits, a background descendant may still hold the pipe open; keep reading
# while output keeps arriving, and stop once it has been quiet this long.
EXIT_STDIO_GRACE_S = 0.1
# Between SIGTERM and SIGKILL when a command is aborted or times out.
KILL_GRACE_S = 1.0
MAX_TIMEOUT_S = 2_147_483.647

ChunkCallback = Callable[[str], Awaitable[None] | None]


class BashExecutionError(Exception):
    """The command could not be started (bad shell path, missing cwd, bad timeout)."""


class BashRunner(Protocol):
    """Where the ``bash`` tool runs a command instead of a local process (ACP: the editor's
    terminal). Same contract as ``execute_bash``, plus the id of the tool call it serves."""

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
    ) -> BashExecutionResult: ...


@dataclass
class BashExecutionResult:
    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None
    timed_out: bool = False

    def to_dict(self) -> dict[str, object]:
        """Upstream's ``BashResult`` wire shape (RPC ``bash`` response data)."""
        data: dict[str, object] = {"output": self.output}
        if self.exit_code is not None:
            data["exitCode"] = self.exit_code
        data["cancelled"] = self.cancelled
        data["truncated"] = self.truncated
        if self.full_output_path is not None:
            data["fullOutputPath"] = self.full_output_path
        return data


def get_shell_config(shell_path: str | None = None) -> tuple[str, list[str]]:
    """Resolve the shell: the ``shellPath`` setting, /bin/bash, bash on PATH, then sh."""
    if shell_path:
        if os.path.exists(shell_path):
            return shell_path, ["-c"]
        raise BashExecutionError(f"Custom shell path not found: {shell_path}")
    if os.path.exists("/bin/bash"):
        return "/bin/bash", ["-c"]
    found = shutil.which("bash")
    if found:
        return found, ["-c"]
    return "sh", ["-c"]


def shell_env(bin_dir: str | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment with ``bin_dir`` (``<agentDir>/bin``) first on PATH."""
    env = dict(os.environ)
    if bin_dir:
        current = env.get("PATH", "")
        entries = [p for p in current.split(os.pathsep) if p]
        if bin_dir not in entries:
            env["PATH"] = os.pathsep.join([bin_dir, current]) if current else bin_dir
    if extra:
        env.update(extra)
    return env


def validate_timeout(timeout_s: float | None) -> float | None:
    if timeout_s is None:
        return None
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)):
        raise BashExecutionError("Invalid timeout: must be a finite number of seconds")
    if timeout_s != timeout_s or timeout_s in (float("inf"), float("-inf")) or timeout_s <= 0:
        raise BashExecutionError("Invalid timeout: must be a finite number of seconds")
    if timeout_s > MAX_TIMEOUT_S:
        raise BashExecutionError(f"Invalid timeout: maximum is {MAX_TIMEOUT_S} seconds")
    return float(timeout_s)


def prepare_command(
    command: str, cwd: str, timeout_s: float | None, shell_path: str | None, command_prefix: str | None
) -> tuple[float | None, str, list[str], str]:
    """What every runner checks and builds before starting a command (here or in the editor's
    terminal): the validated timeout, the shell and its arguments, and the command with the
    ``shellCommandPrefix`` setting applied. Raises ``BashExecutionError`` as a run would."""
    timeout = validate_timeout(timeout_s)
    shell, shell_args = get_shell_config(shell_path)
    if not os.path.exists(cwd):
        raise BashExecutionError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
    return timeout, shell, shell_args, f"{command_prefix}\n{command}" if command_prefix else command


async def _call(callback: ChunkCallback | None, text: str) -> None:
    if callback is None:
        return
    result = callback(text)
    if inspect.isawaitable(result):
        await result


def _close_transport(proc: object) -> None:
    # A background descendant may keep the pipe open after the shell exits. On asyncio the
    # subprocess transport would then outlive the call (and warn at interpreter exit), so
    # close it explicitly; the process itself has already been reaped at this point.
    transport = getattr(getattr(proc, "_process", None), "_transport", None)
    if transport is not None:
        try:
            transport.close()
        except Exception:  # noqa: BLE001 - best-effort close of a transport that is going away
            pass


class _GroupKiller:
    """Signals the command's process group once, on abort or timeout."""

    def __init__(self, pgid: int) -> None:
        self.pgid = pgid
        self.reason: str | None = None
        self.requested = anyio.Event()

    def request(self, reason: str) -> None:
        if self.reason is not None:
            return
        self.reason = reason
        process_registry.kill_group(self.pgid, _signal.SIGTERM)
        self.requested.set()


async def execute_bash(
    command: str,
    cwd: str,
    *,
    on_chunk: ChunkCallback | None = None,
    signal: AbortSignal | None = None,
    timeout_s: float | None = None,
    shell_path: str | None = None,
    command_prefix: str | None = None,
    env: Mapping[str, str] | None = None,
    accumulator: OutputAccumulator | None = None,
) -> BashExecutionResult:
    """Run ``command`` and collect its sanitised output.

    ``on_chunk`` receives each sanitised delta (possibly empty chunks are skipped).
    ``accumulator`` lets a caller watch the accumulated, tail-truncated output while it runs.
    Raises ``BashExecutionError`` when the command cannot start.
    """
    if signal is not None and signal.aborted:
        return BashExecutionResult(output="", exit_code=None, cancelled=True, truncated=False)
    timeout, shell, shell_args, full_command = prepare_command(command, cwd, timeout_s, shell_path, command_prefix)

    acc = accumulator if accumulator is not None else OutputAccumulator()
    sanitizer = OutputSanitizer()
    try:
        proc = await anyio.open_process(
            # A lone surrogate cannot be an argv byte: node passes U+FFFD, and so do we.
            [shell, *shell_args, well_formed(full_command)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=dict(env) if env is not None else shell_env(),
            start_new_session=True,
        )
    except OSError as exc:
        raise BashExecutionError(str(exc)) from exc

    pgid = proc.pid
    process_registry.register(pgid)
    killer = _GroupKiller(pgid)
    unsubscribe = signal.add_callback(lambda: killer.request("abort")) if signal is not None else None
    exit_status: list[int] = []
    exited = anyio.Event()
    reader_scope: list[anyio.CancelScope] = []
    stdout = proc.stdout
    assert stdout is not None

    async def deliver(text: str) -> None:
        if text:
            acc.append(text)
            await _call(on_chunk, text)

    async def pump() -> None:
        while True:
            after_exit = exited.is_set()
            scope = anyio.CancelScope()
            if after_exit:
                scope.deadline = anyio.current_time() + EXIT_STDIO_GRACE_S
            reader_scope[:] = [scope]
            chunk: bytes | None = None
            with scope:
                try:
                    chunk = await stdout.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
            if chunk is None:
                if after_exit:
                    return  # quiet for the whole grace period
                continue  # woken because the shell exited: re-arm with the grace deadline
            await deliver(sanitizer.feed(chunk))

    async def wait_exit() -> None:
        exit_status.append(await proc.wait())
        exited.set()
        for scope in reader_scope:
            scope.cancel()

    async def escalate() -> None:
        await killer.requested.wait()
        await anyio.sleep(KILL_GRACE_S)
        process_registry.kill_group(pgid, _signal.SIGKILL)

    async def time_out() -> None:
        assert timeout is not None
        await anyio.sleep(timeout)
        killer.request("timeout")

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait_exit)
            tg.start_soon(escalate)
            if timeout is not None:
                tg.start_soon(time_out)
            await pump()
            await exited.wait()
            tg.cancel_scope.cancel()
        await deliver(sanitizer.finish())
    finally:
        with anyio.CancelScope(shield=True):
            if proc.returncode is None:
                process_registry.kill_group(pgid, _signal.SIGKILL)
                await proc.wait()
            process_registry.unregister(pgid)
            if unsubscribe is not None:
                unsubscribe()
            await stdout.aclose()
            _close_transport(proc)

    snapshot = acc.snapshot(persist_if_truncated=True)
    acc.close()
    cancelled = killer.reason == "abort"
    timed_out = killer.reason == "timeout"
    code = exit_status[0] if exit_status else proc.returncode
    # A negative code means "killed by a signal": upstream reports no exit code then.
    exit_code = code if (code is not None and code >= 0 and not cancelled and not timed_out) else None
    return BashExecutionResult(
        output=snapshot.content,
        exit_code=exit_code,
        cancelled=cancelled,
        truncated=snapshot.truncation["truncated"],
        full_output_path=snapshot.full_output_path,
        timed_out=timed_out,
    )


def bash_execution_message(
    command: str,
    result: BashExecutionResult,
    *,
    exclude_from_context: bool | None = None,
    timestamp: int | None = None,
) -> BashExecutionMessage:
    """The ``bashExecution`` message recorded for an RPC ``bash`` command (protocol §4.2)."""
    msg: dict[str, object] = {"role": "bashExecution", "command": command, "output": result.output}
    if result.exit_code is not None:
        msg["exitCode"] = result.exit_code
    msg["cancelled"] = result.cancelled
    msg["truncated"] = result.truncated
    if result.full_output_path is not None:
        msg["fullOutputPath"] = result.full_output_path
    if exclude_from_context is not None:
        msg["excludeFromContext"] = exclude_from_context
    msg["timestamp"] = timestamp if timestamp is not None else int(time.time() * 1000)
    return cast("BashExecutionMessage", msg)  # built key by key in upstream's order


def bash_execution_to_text(msg: Mapping[str, object]) -> str:
    """How a ``bashExecution`` message reaches the model (as user text)."""
    text = f"Ran `{msg.get('command', '')}`\n"
    output = msg.get("output") or ""
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = msg.get("exitCode")
    if msg.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if msg.get("truncated") and msg.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {msg['fullOutputPath']}]"
    return text


def bash_execution_to_user_message(msg: Mapping[str, object]) -> dict[str, object]:
    """``{role:"user", content:[{type:"text", text}], timestamp}`` for the LLM context."""
    return {
        "role": "user",
        "content": [{"type": "text", "text": bash_execution_to_text(msg)}],
        "timestamp": msg.get("timestamp", int(time.time() * 1000)),
    }
