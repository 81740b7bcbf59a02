"""Process groups spawned by tools, tracked in the process-wide child registry
(``pi_rpc.config.children``) so that a signal or shutdown kills them all, whoever started them.

Each bash command runs in its own session (``start_new_session=True``), whose process group
id equals the shell's pid.
"""

from __future__ import annotations

import os
import signal

from pi_rpc.config import children


def register(pgid: int) -> None:
    children.register(pgid, pgid=pgid)


def unregister(pgid: int) -> None:
    children.unregister(pgid)


def registered() -> frozenset[int]:
    return frozenset(child.pgid for child in children.tracked() if child.pgid is not None)


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> bool:
    """Signal a whole process group; False when it no longer exists."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def kill_all() -> None:
    children.kill_all(signal.SIGKILL)
