"""Exceptions raised by the session store: the ``SessionError`` branch of the tree in
``pi_rpc.errors``. Messages are upstream's texts where upstream has one."""

from __future__ import annotations

from pi_rpc.errors import PiError, echo


class SessionError(PiError):
    """Base class; ``str(err)`` is the user-facing message (a failed command's ``error``)."""


class SessionInvalidError(SessionError):
    """A non-empty file whose first parsed line is not a session header."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Session file is not a valid pi session: {path}")
        self.path = path


class SessionLockedError(SessionError):
    """Another process holds the single-writer lock of this session file."""

    def __init__(self, path: str, pid: int | None) -> None:
        holder = f"pid {pid}" if pid is not None else "an unknown pid"
        super().__init__(f"Session file is in use by another pi process ({holder}): {path}")
        self.path = path
        self.pid = pid


class SessionNotAFileError(SessionError):
    """A session path naming a FIFO, a device, a socket or a directory: never read (a FIFO
    would block the process, a device could be read until memory runs out)."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"Session file is not a regular file ({kind}): {path}")
        self.path = path
        self.kind = kind


class SessionLockFileError(SessionError):
    """A session's lock file that is a FIFO, a device, a socket or a directory: never opened
    for locking (a FIFO would block, a device be written with a pid)."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"Session lock file is not a regular file ({kind}): {path}")
        self.path = path
        self.kind = kind


class SessionReadOnlyError(SessionError):
    def __init__(self, path: str) -> None:
        super().__init__(f"Session was opened read-only: {path}")
        self.path = path


class EntryNotFoundError(SessionError, KeyError):
    def __init__(self, message: str) -> None:
        SessionError.__init__(self, message)

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class SessionNotFoundError(SessionError):
    """``--session``/``--fork`` argument that matches nothing."""

    def __init__(self, arg: str) -> None:
        super().__init__(f"No session found matching '{echo(arg)}'")
        self.arg = arg


class MissingSessionCwdError(SessionError):
    def __init__(self, session_cwd: str, session_file: str | None, fallback_cwd: str) -> None:
        file_part = f"\nSession file: {session_file}" if session_file else ""
        super().__init__(
            f"Stored session working directory does not exist: {session_cwd}{file_part}"
            f"\nCurrent working directory: {fallback_cwd}"
        )
        self.session_cwd = session_cwd
        self.session_file = session_file
        self.fallback_cwd = fallback_cwd
