"""Single-writer lock for a session file.

The lock is ``fcntl.flock`` on a sidecar ``<session>.lock`` that holds the owner's pid.
The kernel drops a flock when its process dies, so a lock left by a crashed process is
free again by construction; its file still names the dead pid, which is reported as a
recovered stale lock. Within one process the lock is shared and reference counted, so two
managers of the same process on one file (switch to the same file, fork re-reading the
current file) do not lock each other out; writes of one process are serialised anyway.

A lock file that is not a regular file (a FIFO, a device, planted where the sidecar goes) is
never used: it is opened without blocking and refused (``SessionLockFileError``) before
anything is locked or written; asking who holds it answers nobody.
"""

from __future__ import annotations

import fcntl
import os
import stat
import threading
import time

from pi_rpc.session.errors import SessionLockedError, SessionLockFileError
from pi_rpc.session.loader import file_kind

_registry_lock = threading.Lock()
# realpath of the lock file -> [fd, refcount]
_held: dict[str, list[int]] = {}


def lock_path_for(session_path: str) -> str:
    return session_path + ".lock"


def _read_pid(fd: int) -> int | None:
    try:
        raw = os.pread(fd, 64, 0)
    except OSError:
        return None
    text = raw.decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else None


class SessionLock:
    """Advisory lock guarding appends to one session file. ``session_path`` is what a
    refusal names; ``lock_path`` is the sidecar (``<session>.lock`` unless given: a session
    in a database has no file of its own)."""

    def __init__(self, session_path: str, lock_path: str | None = None) -> None:
        self.session_path = session_path
        self.lock_path = lock_path if lock_path is not None else lock_path_for(session_path)
        self._key: str | None = None
        self.stale_pid: int | None = None

    @property
    def held(self) -> bool:
        return self._key is not None

    def acquire(self) -> None:
        """Take the lock or raise SessionLockedError naming the holder's pid."""
        if self._key is not None:
            return
        key = os.path.realpath(self.lock_path)
        with _registry_lock:
            slot = _held.get(key)
            if slot is not None:
                slot[1] += 1
                self._key = key
                return
            fd = self._acquire_fd()
            _held[key] = [fd, 1]
            self._key = key

    def _acquire_fd(self) -> int:
        while True:
            # O_NONBLOCK: a FIFO in the lock file's place must not wait for a peer (refused next).
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NONBLOCK, 0o600)
            try:
                _require_regular(fd, self.lock_path)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _read_pid(fd)
                # The holder writes its pid right after locking; give it a moment.
                for _ in range(20):
                    if pid is not None:
                        break
                    time.sleep(0.005)
                    pid = _read_pid(fd)
                os.close(fd)
                raise SessionLockedError(self.session_path, pid) from None
            except BaseException:
                os.close(fd)
                raise
            # A releasing holder unlinks the lock file while still holding it; if we
            # locked such an unlinked inode, start over on the current path.
            try:
                on_disk = os.stat(self.lock_path)
            except FileNotFoundError:
                os.close(fd)
                continue
            mine = os.fstat(fd)
            if (on_disk.st_dev, on_disk.st_ino) != (mine.st_dev, mine.st_ino):
                os.close(fd)
                continue
            previous = _read_pid(fd)
            if previous is not None and previous != os.getpid():
                self.stale_pid = previous
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            return fd

    def release(self) -> None:
        key = self._key
        if key is None:
            return
        self._key = None
        with _registry_lock:
            slot = _held.get(key)
            if slot is None:
                return
            slot[1] -= 1
            if slot[1] > 0:
                return
            del _held[key]
            fd = slot[0]
            try:
                os.unlink(self.lock_path)
            except OSError:  # gone already, or the directory became read-only: the
                pass  # kernel drops the flock at close, and a stale file is recovered later
            os.close(fd)


def _require_regular(fd: int, path: str) -> None:
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        raise SessionLockFileError(path, file_kind(mode))


def holder_pid(session_path: str, lock_path: str | None = None) -> int | None:
    """The pid of the live process holding the lock, or None when it is free."""
    path = lock_path if lock_path is not None else lock_path_for(session_path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO: no waiting for a writer
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # never a lock of ours (``acquire`` refuses it): nobody holds it
        if os.path.realpath(path) in _held:
            return os.getpid()
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_pid(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
