"""Process groups spawned by tools, so the process can kill them all when it shuts down.

Each bash command runs in its own session (``start_new_session=True``), whose process group
id equals the shell's pid. ``kill_all`` sends SIGKILL to every registered group.
"""

from __future__ import annotations

import os
import signal
import threading

_lock = threading.Lock()
_groups: set[int] = set()


def register(pgid: int) -> None:
    with _lock:
        _groups.add(pgid)


def unregister(pgid: int) -> None:
    with _lock:
        _groups.discard(pgid)


def registered() -> frozenset[int]:
    with _lock:
        return frozenset(_groups)


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> bool:
    """Signal a whole process group; False when it no longer exists."""
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return False


def kill_all() -> None:
    with _lock:
        groups = list(_groups)
        _groups.clear()
    for pgid in groups:
        kill_group(pgid, signal.SIGKILL)
