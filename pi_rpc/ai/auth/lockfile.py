"""The cross-process file lock upstream pi 1.6 puts around ``auth.json``: npm
``proper-lockfile`` 4.1.2's protocol (``proper-lockfile/lib/lockfile.js``), spoken here so that
pi_rpc and upstream ``pi`` processes sharing one ``auth.json`` exclude each other.

The protocol, as proper-lockfile implements it:

- the lock is the DIRECTORY ``<realpath(file)>.lock`` (symlinked aliases share one lock),
  created with ``mkdir`` (atomic); it is released with ``rmdir``;
- on acquiring, the directory's mtime is set to the next whole second + 5 ms (the precision
  probe of ``mtime-precision.js``: a file system that keeps only seconds then reads back a
  whole second) and remembered;
- while held, every ``update`` ms (``stale / 2`` by default, at least 1 s) the holder checks
  that the mtime is still the one it wrote and writes a new one (heartbeat); a changed mtime
  or a vanished directory means another process took the lock as stale: the lock is
  *compromised* and the holder must not write;
- a lock directory whose mtime is older than ``stale`` ms (default 10 s, at least 2 s) is
  removed and taken;
- held locks are removed when the process exits (``signal-exit`` upstream; ``atexit`` and
  the context managers' ``finally`` here).

``acquire`` is one attempt (proper-lockfile with ``retries: 0``); ``acquire_async`` is
upstream's ``FileAuthStorageBackend.acquireLockAsync`` loop (stale 30 s, a 30 s deadline,
jittered exponential delays) and ``acquire_sync`` its ``acquireLockSyncWithRetry`` (default
stale, 10 attempts 20 ms apart). The heartbeat runs on a daemon thread so that it keeps
beating whatever the event loop is doing (a long await under the lock, a blocking call).
"""

from __future__ import annotations

import atexit
import errno
import math
import os
import threading
import time
from collections.abc import Awaitable, Callable

from pi_rpc.errors import PiError

DEFAULT_STALE_MS = 10_000
MIN_STALE_MS = 2_000
MIN_UPDATE_MS = 1_000
# FileAuthStorageBackend.acquireLockAsync: the stale age it passes and the deadline it waits.
AUTH_STALE_MS = 30_000
AUTH_MAX_DELAY_MS = 2_000
SYNC_ATTEMPTS = 10
SYNC_DELAY_MS = 20


class LockError(PiError):
    """A lock could not be taken or was lost; ``code`` is proper-lockfile's error code
    (``ELOCKED`` held by another process, ``ECOMPROMISED`` lost while held)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def _now_ms() -> int:
    return int(time.time() * 1000)


def _mtime_ms(path: str) -> int:
    # JavaScript's ``stat.mtime.getTime()``: whole milliseconds, floored.
    return os.stat(path).st_mtime_ns // 1_000_000


def _set_mtime_ms(path: str, ms: int) -> None:
    ns = ms * 1_000_000
    os.utime(path, ns=(ns, ns))


def lock_path_for(file: str | os.PathLike[str]) -> str:
    """The lock directory proper-lockfile uses for ``file`` (``realpath: true``): the real path
    of the file plus ``.lock``. The file must exist (``realpath`` fails otherwise, as upstream)."""
    return os.path.realpath(os.fspath(file), strict=True) + ".lock"


# Precision of the file system's mtimes, probed once per process as proper-lockfile caches it
# on its ``fs`` object ("s" or "ms").
_precision: str | None = None
_held: dict[str, HeldLock] = {}
_held_guard = threading.Lock()


def _probe(lock_dir: str) -> tuple[int, str]:
    global _precision
    if _precision is not None:
        return _mtime_ms(lock_dir), _precision
    mtime = math.ceil(_now_ms() / 1000) * 1000 + 5
    _set_mtime_ms(lock_dir, mtime)
    read = _mtime_ms(lock_dir)
    _precision = "s" if read % 1000 == 0 else "ms"
    return read, _precision


def _next_mtime(precision: str) -> int:
    now = _now_ms()
    return math.ceil(now / 1000) * 1000 if precision == "s" else now


class HeldLock:
    """One lock this process holds. ``compromised`` is set (from the heartbeat thread) when
    another process took the lock; ``release`` is idempotent."""

    def __init__(
        self, lock_dir: str, mtime_ms: int, precision: str, stale_ms: int, update_ms: int, *, heartbeat: bool = True
    ) -> None:
        self.lock_dir = lock_dir
        self._mtime = mtime_ms
        self._precision = precision
        self._stale = stale_ms
        self._update = update_ms
        self._last_update = _now_ms()
        self._released = threading.Event()
        # One beat (stat + utime) and the release's rmdir never interleave: a beat landing
        # after our rmdir could touch the next holder's fresh directory.
        self._beating = threading.Lock()
        self.compromised: LockError | None = None
        if heartbeat:
            threading.Thread(target=self._beat, name="pi-auth-lock-heartbeat", daemon=True).start()

    @property
    def released(self) -> bool:
        return self._released.is_set()

    def _beat(self) -> None:
        delay = self._update
        while not self._released.wait(delay / 1000):
            with self._beating:
                if self._released.is_set():
                    return
                following = self._beat_once()
                if following is None:
                    return
                delay = following

    def _beat_once(self) -> int | None:
        """One heartbeat: the delay to the next, or None when the lock was lost."""
        over_threshold = self._last_update + self._stale < _now_ms()
        try:
            current = _mtime_ms(self.lock_dir)
        except OSError as exc:
            if exc.errno == errno.ENOENT or over_threshold:
                self._compromise(str(exc))
                return None
            return 1000  # a passing failure: try again soon (upstream's updateDelay 1000)
        if current != self._mtime:
            self._compromise("Unable to update lock within the stale threshold")
            return None
        mtime = _next_mtime(self._precision)
        try:
            _set_mtime_ms(self.lock_dir, mtime)
        except OSError as exc:
            if exc.errno == errno.ENOENT or self._last_update + self._stale < _now_ms():
                self._compromise(str(exc))
                return None
            return 1000
        # Read back what the file system kept (a coarser clock than ours would otherwise
        # look like a foreign writer on the next beat).
        try:
            self._mtime = _mtime_ms(self.lock_dir)
        except OSError:
            self._mtime = mtime
        self._last_update = _now_ms()
        return self._update

    def _compromise(self, message: str) -> None:
        self.compromised = LockError(message, "ECOMPROMISED")
        self._released.set()
        with _held_guard:
            if _held.get(self.lock_dir) is self:
                del _held[self.lock_dir]

    def check(self) -> None:
        """Raise if the lock was lost (upstream's ``throwIfCompromised``)."""
        if self.compromised is not None:
            raise self.compromised

    def release(self) -> None:
        """Stop the heartbeat and remove the lock directory (not when it was compromised:
        the directory then belongs to whoever took it)."""
        with self._beating:
            if self._released.is_set():
                return
            self._released.set()
            with _held_guard:
                if _held.get(self.lock_dir) is self:
                    del _held[self.lock_dir]
            try:
                os.rmdir(self.lock_dir)
            except FileNotFoundError:
                pass


def _options(stale_ms: int, update_ms: int | None) -> tuple[int, int]:
    stale = max(stale_ms or 0, MIN_STALE_MS)
    update = stale / 2 if update_ms is None else (update_ms or 0)
    return stale, int(max(min(update, stale / 2), MIN_UPDATE_MS))


def acquire(
    file: str | os.PathLike[str],
    *,
    stale_ms: int = DEFAULT_STALE_MS,
    update_ms: int | None = None,
    heartbeat: bool = True,
) -> HeldLock:
    """One attempt at the lock of ``file`` (proper-lockfile ``lock`` with ``retries: 0``).
    Raises ``LockError`` with code ``ELOCKED`` when another process holds a fresh lock.
    ``heartbeat=False`` is for a hold of a few microseconds (a read), far below the stale
    age: starting the heartbeat thread would cost more than the read."""
    stale, update = _options(stale_ms, update_ms)
    lock_dir = lock_path_for(file)
    check_stale = True
    while True:
        try:
            os.mkdir(lock_dir)
        except FileExistsError:
            if not check_stale:
                raise LockError("Lock file is already being held", "ELOCKED") from None
            try:
                age_limit = _now_ms() - stale
                stale_now = _mtime_ms(lock_dir) < age_limit
            except FileNotFoundError:
                # Removed meanwhile: one more attempt without the stale check (as upstream).
                check_stale = False
                continue
            if not stale_now:
                raise LockError("Lock file is already being held", "ELOCKED") from None
            try:
                os.rmdir(lock_dir)
            except FileNotFoundError:
                pass
            check_stale = False
            continue
        try:
            mtime, precision = _probe(lock_dir)
        except OSError:
            try:
                os.rmdir(lock_dir)
            except OSError:
                pass
            raise
        held = HeldLock(lock_dir, mtime, precision, stale, update, heartbeat=heartbeat)
        with _held_guard:
            _held[lock_dir] = held
        return held


def acquire_sync(file: str | os.PathLike[str], *, heartbeat: bool = True) -> HeldLock:
    """``acquireLockSyncWithRetry``: the default stale age, 10 attempts 20 ms apart."""
    for attempt in range(1, SYNC_ATTEMPTS + 1):
        try:
            return acquire(file, heartbeat=heartbeat)
        except LockError:
            if attempt == SYNC_ATTEMPTS:
                raise
            time.sleep(SYNC_DELAY_MS / 1000)
    raise AssertionError("unreachable")


async def acquire_async(
    file: str | os.PathLike[str],
    *,
    sleep: Callable[[float], Awaitable[object]] | None = None,
    stale_ms: int = AUTH_STALE_MS,
    deadline_ms: int = AUTH_STALE_MS,
) -> HeldLock:
    """``FileAuthStorageBackend.acquireLockAsync``: attempts with ``stale: 30000`` until a
    30 s deadline, waiting ``min(10·2^n, 1000) × (1 + random)`` ms between them (capped by the
    time left). ``sleep`` is the caller's (cancellable) sleep; cancelling it cancels the
    wait, never a held lock."""
    if sleep is None:
        import anyio

        sleep = anyio.sleep
    deadline = _now_ms() + deadline_ms
    retry = 0
    while True:
        try:
            return acquire(file, stale_ms=stale_ms)
        except LockError:
            remaining = deadline - _now_ms()
            if remaining <= 0:
                raise
            base = min(10 * 2**retry, AUTH_MAX_DELAY_MS / 2)
            retry += 1
            import random  # only while waiting for another holder

            delay = min(round(base * (1 + random.random())), remaining)
            await sleep(delay / 1000)


def release_all() -> None:
    """Remove every lock still held when the process exits (proper-lockfile's ``onExit``);
    ``pi_rpc.modes.exit.hard_exit`` calls it too (``os._exit`` skips ``atexit``)."""
    with _held_guard:
        held = list(_held.values())
    for lock in held:
        try:
            lock.release()
        except OSError:
            pass


atexit.register(release_all)
