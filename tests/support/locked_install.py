"""An install that holds a file lock while it runs in a thread of this process (upstream pi and
the package tests' npm registry, both started by ``tests/conftest.py`` before the workers): a
process that takes the same lock afterwards waits for the install's end.

Standard library only (``bench/`` imports ``tests.support.upstream``, which uses it)."""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO


def lock_exclusively(path: Path) -> IO[str]:
    """Take ``path``'s lock (waiting for whoever holds it); closing the file releases it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = open(path, "w")  # noqa: SIM115 - the caller closes it, releasing the lock
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def run_holding(lock: IO[str], work: Callable[[], object], name: str) -> threading.Thread:
    """Run ``work`` in a daemon thread that releases ``lock`` when it ends, however it ends."""

    def run() -> None:
        try:
            work()
        finally:
            lock.close()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
