"""Running a mode's event loop to its exit code (shared by rpc, json and print modes)."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable


def run_to_exit_code(main: Callable[[], Awaitable[int]]) -> int:
    """``anyio.run(main)``, then flush stderr. A non-zero code exits at once: worker threads
    stuck in a blocked write must not delay the exit with interpreter teardown."""
    import anyio

    code = anyio.run(main)
    try:
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stderr may already be gone
        pass
    if code != 0:
        os._exit(code)
    return code
