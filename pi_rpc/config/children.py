"""Registry of child processes pi must kill when it is told to stop (SIGTERM/SIGHUP, shutdown).

Tools that spawn detached children (bash runs in its own process group) register them here;
the RPC lifecycle calls ``kill_all()`` on every signal before anything else, like upstream's
"kill tracked detached children" step. Thread-safe; cheap to import.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TrackedChild:
    pid: int
    pgid: int | None  # kill the whole group when set (detached children)


_lock = threading.Lock()
_children: dict[int, TrackedChild] = {}


def register(pid: int, *, pgid: int | None = None) -> TrackedChild:
    """Track ``pid`` (and its process group ``pgid`` if it was started detached)."""
    child = TrackedChild(pid, pgid)
    with _lock:
        _children[pid] = child
    return child


def unregister(pid: int) -> None:
    with _lock:
        _children.pop(pid, None)


def tracked() -> list[TrackedChild]:
    with _lock:
        return list(_children.values())


def kill_all(sig: int = signal.SIGKILL) -> int:
    """Send ``sig`` to every tracked child (its group when known); forget them. Returns the
    number of children signalled. Never raises: a child may already be gone."""
    with _lock:
        children = list(_children.values())
        _children.clear()
    sent = 0
    for child in children:
        try:
            if child.pgid is not None and child.pgid > 0:
                os.killpg(child.pgid, sig)
            else:
                os.kill(child.pid, sig)
            sent += 1
        except (ProcessLookupError, PermissionError, OSError):
            pass
    return sent
