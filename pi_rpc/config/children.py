"""Registry of child processes pi must kill when it is told to stop (SIGTERM/SIGHUP, shutdown).

Tools that spawn detached children (bash runs in its own process group) register them here;
the RPC lifecycle calls ``kill_all()`` on every signal before anything else, like upstream's
"kill tracked detached children" step. Thread-safe; cheap to import.
"""

from __future__ import annotations

import contextvars
import os
import signal
import threading
from dataclasses import dataclass

# Who starts children in the current context: a session hosted beside the first one sets its
# token while its commands run, and every task started from there (its runs, its extensions'
# connections) inherits it, so closing that session kills what it started and nothing else.
# None: the process's first session (killed with everything at exit).
owner: contextvars.ContextVar[object | None] = contextvars.ContextVar("pi_rpc_child_owner", default=None)


@dataclass(frozen=True, slots=True)
class TrackedChild:
    pid: int
    pgid: int | None  # kill the whole group when set (detached children)
    owner: object | None = None  # the session that started it (``owner``)


_lock = threading.Lock()
_children: dict[int, TrackedChild] = {}


def register(pid: int, *, pgid: int | None = None) -> TrackedChild:
    """Track ``pid`` (and its process group ``pgid`` if it was started detached)."""
    child = TrackedChild(pid, pgid, owner.get())
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
    return _signal(children, sig)


def kill_owned(by: object, sig: int = signal.SIGKILL) -> int:
    """``kill_all`` for the children started under ``by`` (a closed session) only."""
    with _lock:
        children = [child for child in _children.values() if child.owner is by]
        for child in children:
            del _children[child.pid]
    return _signal(children, sig)


def _signal(children: list[TrackedChild], sig: int) -> int:
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
