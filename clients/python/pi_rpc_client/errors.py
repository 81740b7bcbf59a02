"""Exceptions raised by the pi RPC client (all derive from RpcError)."""

from __future__ import annotations

from typing import Any


class RpcError(Exception):
    """Base class for every client-side failure."""


class RpcCommandError(RpcError):
    """The server answered a command with ``success: false``; ``response`` is the whole record."""

    def __init__(self, response: dict[str, Any]) -> None:
        self.response = response
        self.command: str | None = response.get("command")
        self.error: str = str(response.get("error", ""))
        super().__init__(f"{self.command or '<no command>'}: {self.error}")


class RpcTimeoutError(RpcError, TimeoutError):
    """No answer (or no awaited event) within the per-call timeout."""

    def __init__(self, what: str, timeout: float) -> None:
        self.what = what
        self.timeout = timeout
        super().__init__(f"timed out after {timeout:g}s waiting for {what}")


class RpcProcessExited(RpcError):
    """The server process is gone (or its stdout closed) while something was still expected from it."""

    def __init__(self, returncode: int | None, stderr_tail: str, context: str = "") -> None:
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        self.context = context
        msg = f"pi process exited (code {returncode})"
        if context:
            msg += f" while {context}"
        if stderr_tail.strip():
            msg += f"; stderr tail:\n{stderr_tail.rstrip()}"
        super().__init__(msg)


class RpcProtocolError(RpcError):
    """A stdout line was not a JSON object (the stream is not speaking the protocol)."""

    def __init__(self, line: bytes, reason: str) -> None:
        self.line = line
        super().__init__(f"{reason}: {line[:200]!r}")
