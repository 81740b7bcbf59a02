"""The stdio transport of MCP servers: the server runs as a child process that speaks
newline-delimited JSON-RPC on stdin/stdout, framed into the ``mcp`` SDK's ``SessionMessage``s.

Why not the SDK's ``stdio_client``: it passes the server only a few environment variables
(upstream passes pi's whole environment plus the entry's ``env``), sends stderr to a file we
would have to manage, and does not tell us the process group pi must kill on a signal.

- The server gets pi's environment plus its ``env``, runs in its own session/process group
  (so wrappers such as ``npx``/``uvx`` are stopped with their children) and is registered in
  ``pi_rpc.config.children``, which every signal handler kills first.
- Its stderr is kept as a bounded tail, reported when it fails to connect or drops.
- On Linux the server also gets SIGKILL when pi dies without cleaning up (the parent death
  signal), so not even a ``kill -9`` of pi leaves it running.
- Stopping follows the MCP spec and upstream: close stdin, wait 0.5 s, SIGTERM to the group,
  wait 2 s, SIGKILL to the group; once the server exited, the group gets SIGTERM as well so
  children that ignored stdin closing do not outlive it.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
from anyio.abc import Process

from pi_rpc.config import children

STDIN_CLOSE_GRACE_S = 0.5
CLOSE_TIMEOUT_S = 2.0
STDOUT_END_GRACE_S = 1.0  # after the server was stopped, for its stdout to end
STDERR_TAIL_BYTES = 16 * 1024
MAX_LINE_BYTES = 64 * 1024 * 1024


class StderrTail:
    """The last bytes a server wrote to stderr."""

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self.limit = limit
        self._data = bytearray()

    def feed(self, chunk: bytes) -> None:
        self._data += chunk
        if len(self._data) > self.limit:
            del self._data[: len(self._data) - self.limit]

    @property
    def text(self) -> str:
        return self._data.decode("utf-8", "replace")


def spawn_error(command: str, exc: OSError) -> str:
    """Upstream's spawn failure text (``spawn <command> ENOENT``)."""
    code = errno.errorcode.get(exc.errno or 0)
    return f"spawn {command} {code}" if code else f"spawn {command}: {exc}"


# Linux: the server dies with pi even when pi is killed outright (SIGKILL), through the parent
# death signal, which survives exec; the check of the parent closes the race with pi dying
# before prctl ran.
_DEATH_SIGNAL_WRAPPER = (
    "import ctypes,os,signal,sys\n"
    "ctypes.CDLL(None).prctl(1,signal.SIGKILL)\n"
    "os.getppid()!=int(sys.argv[1]) and os._exit(1)\n"
    "os.execvp(sys.argv[2],sys.argv[2:])"
)


def _argv(command: str, args: list[str]) -> list[str]:
    if sys.platform.startswith("linux"):
        return [sys.executable, "-I", "-S", "-c", _DEATH_SIGNAL_WRAPPER, str(os.getpid()), command, *args]
    return [command, *args]


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        with suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(pid, sig)


async def _wait_exit(process: Process, timeout: float) -> bool:
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.02)
        return True
    return process.returncode is not None


async def stop_process(process: Process) -> None:
    """stdin closed → SIGTERM to the group → SIGKILL to the group; then the group once more."""
    if process.stdin is not None:
        with suppress(Exception):
            await process.stdin.aclose()
    if not await _wait_exit(process, STDIN_CLOSE_GRACE_S):
        _signal_group(process.pid, signal.SIGTERM)
        if not await _wait_exit(process, CLOSE_TIMEOUT_S):
            _signal_group(process.pid, signal.SIGKILL)
            await _wait_exit(process, CLOSE_TIMEOUT_S)
    # Children of the server that ignored stdin closing would otherwise outlive it.
    _signal_group(process.pid, signal.SIGTERM)


@asynccontextmanager
async def stdio_transport(
    command: str,
    args: list[str],
    env: dict[str, str],
    cwd: str,
    stderr: StderrTail,
) -> AsyncIterator[tuple[object, object, anyio.Event]]:
    """Spawn the server; yields ``(read_stream, write_stream, closed)`` where ``closed`` is set
    once the server's stdout ended (it exited or closed it)."""
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCMessage

    full_env = {**os.environ, **env}
    if shutil.which(command, path=full_env.get("PATH")) is None and not os.access(os.path.join(cwd, command), os.X_OK):
        raise ConnectionError(f"spawn {command} ENOENT")
    try:
        process = await anyio.open_process(
            _argv(command, args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as exc:
        raise ConnectionError(spawn_error(command, exc)) from None
    children.register(process.pid, pgid=process.pid)

    read_writer, read_stream = anyio.create_memory_object_stream[object](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    closed = anyio.Event()

    async def read_stdout() -> None:
        assert process.stdout is not None
        buffer = b""
        try:
            async with read_writer:
                async for chunk in process.stdout:
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    if len(buffer) > MAX_LINE_BYTES:
                        buffer = b""
                        await read_writer.send(ValueError("MCP message exceeds the size limit"))
                    for line in lines:
                        if not line.strip():
                            continue
                        try:
                            message: object = SessionMessage(JSONRPCMessage.model_validate_json(line))
                        except ValueError as exc:
                            message = exc
                        await read_writer.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass
        finally:
            closed.set()

    async def read_stderr() -> None:
        assert process.stderr is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for chunk in process.stderr:
                stderr.feed(chunk)

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for session_message in write_reader:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_none=True)
                    await process.stdin.send(data.encode("utf-8") + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            closed.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(read_stderr)
            tg.start_soon(write_stdin)
            try:
                yield read_stream, write_stream, closed
            finally:
                with anyio.CancelScope(shield=True):
                    write_stream.close()
                    await stop_process(process)
                    with anyio.move_on_after(STDOUT_END_GRACE_S):
                        await closed.wait()
                tg.cancel_scope.cancel()
    finally:
        children.unregister(process.pid)
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_TIMEOUT_S), suppress(Exception):
            await process.aclose()
