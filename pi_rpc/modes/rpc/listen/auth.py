"""Who may connect to TCP and WebSocket listeners: a bearer token.

- ``--listen-token-file <path>``: read once at startup; refused when the file is group- or
  world-readable (or empty);
- otherwise ``<agentDir>/listen-token``: kept when it exists, is the user's own and no one else
  can read it (so several servers and restarts share it), else a fresh random token written 0600.

Tokens are compared in constant time (``hmac.compare_digest``). ``FailureThrottle`` slows down a
peer after repeated failures (the delay doubles, up to ``MAX_DELAY_S``; forgotten after a
quiet minute). The token is never logged, echoed or written anywhere else.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
import time
from pathlib import Path

from pi_rpc.errors import StartupError

TOKEN_FILE_NAME = "listen-token"
FREE_FAILURES = 3  # failures from one peer answered at once; later ones wait
FIRST_DELAY_S = 0.25
MAX_DELAY_S = 5.0
FORGET_AFTER_S = 60.0


class TokenError(StartupError):
    """The token file cannot be used (startup refused, exit 1)."""


def _read_private(path: Path, flag: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise TokenError(f"Error: {flag} {path}: cannot read it ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TokenError(f"Error: {flag} {path}: not a regular file")
        if info.st_mode & 0o077:
            raise TokenError(
                f"Error: {flag} {path}: the file is readable by others (mode {stat.S_IMODE(info.st_mode):04o}); "
                f"chmod 600 it"
            )
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    token = data.decode("utf-8", "replace").strip()
    if not token:
        raise TokenError(f"Error: {flag} {path}: the file is empty")
    return token


def load_token(token_file: str | None, agent_dir: Path) -> tuple[str, Path]:
    """The token and the file it is in (``--listen-token-file``, or the agent dir's)."""
    if token_file is not None:
        path = Path(os.path.abspath(os.path.expanduser(token_file)))
        return _read_private(path, "--listen-token-file"), path
    path = agent_dir / TOKEN_FILE_NAME
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077:
        try:
            return _read_private(path, "listen token file"), path
        except TokenError:
            pass  # empty or unreadable: replaced below
    token = secrets.token_urlsafe(32)
    agent_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{TOKEN_FILE_NAME}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, (token + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return token, path


def token_matches(expected: str, given: object) -> bool:
    """Constant-time comparison (a non-string never matches)."""
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8", "surrogatepass"))


class FailureThrottle:
    """Per-peer failure counts: how long to wait before answering the next failure."""

    def __init__(self) -> None:
        self._failures: dict[str, tuple[int, float]] = {}

    def failed(self, peer: str) -> float:
        """Record a failure from ``peer``; the delay before answering it (seconds)."""
        now = time.monotonic()
        count, last = self._failures.get(peer, (0, now))
        if now - last > FORGET_AFTER_S:
            count = 0
        count += 1
        self._failures[peer] = (count, now)
        if len(self._failures) > 4096:  # many peers: forget the quiet ones
            self._failures = {p: v for p, v in self._failures.items() if now - v[1] <= FORGET_AFTER_S}
        if count <= FREE_FAILURES:
            return 0.0
        return min(MAX_DELAY_S, FIRST_DELAY_S * 2.0 ** (count - FREE_FAILURES - 1))

    def succeeded(self, peer: str) -> None:
        self._failures.pop(peer, None)
