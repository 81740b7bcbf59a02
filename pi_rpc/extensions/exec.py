"""``pi.exec(command, args, options)``: run a program without a shell (upstream ``execCommand``).

Options: ``cwd``, ``timeout`` (ms), ``signal`` (an ``AbortSignal``), ``maxBuffer`` (bytes of
stdout and stderr together, default 256 MiB). Termination (timeout, abort, buffer overflow)
sends SIGTERM to the child's process group, then SIGKILL after 5 seconds, and sets ``killed``.
A signal-killed command reports ``128 + signal`` as ``code``; a program that cannot start
reports ``code`` 1 with the reason in ``stderr``; a truncated result never reports 0.
"""

from __future__ import annotations

import codecs
import signal as _signal
import subprocess
from typing import Any

import anyio

from pi_rpc.config import children

DEFAULT_MAX_BUFFER = 256 * 1024 * 1024
FORCE_KILL_DELAY_S = 5.0


def _kill_group(pgid: int, sig: int) -> None:
    try:
        import os

        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        pass


async def exec_command(command: str, args: list[str], cwd: str | None, options: dict[str, Any]) -> dict[str, Any]:
    max_buffer = options.get("maxBuffer", DEFAULT_MAX_BUFFER)
    if not isinstance(max_buffer, int) or isinstance(max_buffer, bool) or max_buffer < 0:
        raise ValueError(f"maxBuffer must be a non-negative integer number of bytes, got {max_buffer!r}")
    timeout_ms = options.get("timeout")
    abort = options.get("signal")
    try:
        proc = await anyio.open_process(
            [command, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return {"stdout": "", "stderr": str(exc), "code": 1, "killed": False, "truncated": False}

    pgid = proc.pid
    children.register(pgid, pgid=pgid)
    state = {"killed": False, "truncated": False, "bytes": 0}
    kill_requested = anyio.Event()
    out = {"stdout": "", "stderr": ""}

    def request_kill() -> None:
        if state["killed"]:
            return
        state["killed"] = True
        _kill_group(pgid, _signal.SIGTERM)
        kill_requested.set()

    unsubscribe = abort.add_callback(request_kill) if abort is not None and hasattr(abort, "add_callback") else None

    async def pump(stream: Any, key: str) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        try:
            async for chunk in stream:
                if state["truncated"]:
                    continue
                remaining = max_buffer - int(state["bytes"])
                if len(chunk) > remaining:
                    chunk = chunk[: max(remaining, 0)]
                    state["truncated"] = True
                    request_kill()
                state["bytes"] = int(state["bytes"]) + len(chunk)
                out[key] += decoder.decode(chunk)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        if not state["truncated"]:
            out[key] += decoder.decode(b"", final=True)

    async def escalate() -> None:
        await kill_requested.wait()
        await anyio.sleep(FORCE_KILL_DELAY_S)
        _kill_group(pgid, _signal.SIGKILL)

    async def time_out(seconds: float) -> None:
        await anyio.sleep(seconds)
        request_kill()

    code: int | None = None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(escalate)
            if isinstance(timeout_ms, (int, float)) and timeout_ms > 0:
                tg.start_soon(time_out, timeout_ms / 1000)
            async with anyio.create_task_group() as readers:
                readers.start_soon(pump, proc.stdout, "stdout")
                readers.start_soon(pump, proc.stderr, "stderr")
            code = await proc.wait()
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if proc.returncode is None:
                _kill_group(pgid, _signal.SIGKILL)
                await proc.wait()
            children.unregister(pgid)
            if unsubscribe is not None:
                unsubscribe()
            await proc.aclose()
    if code is None:
        code = 1
    elif code < 0:
        code = 128 + (-code)
    if state["truncated"] and code == 0:
        code = 1
    return {
        "stdout": out["stdout"],
        "stderr": out["stderr"],
        "code": code,
        "killed": bool(state["killed"]),
        "truncated": bool(state["truncated"]),
    }
