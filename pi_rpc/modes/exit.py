"""Exit codes and the way out, shared by the rpc, json and print modes: upstream's signal codes,
the grace period for an orderly shutdown, the immediate exit, and running the event loop to
its exit code."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Awaitable, Callable

from pi_rpc.runtime.grace import SHUTDOWN_GRACE_SECONDS

__all__ = ["SHUTDOWN_GRACE_SECONDS", "SIGNAL_EXIT_CODES", "hard_exit", "run_to_exit_code", "signal_exit_code"]

SIGNAL_EXIT_CODES = {signal.SIGTERM: 143, signal.SIGHUP: 129}

# Print and JSON mode: a run limit (--max-turns, --max-cost, --timeout) ended the last run.
EXIT_LIMIT_REACHED = 3
# Print and JSON mode: no final answer matched --output-schema (after the retries).
EXIT_OUTPUT_INVALID = 4


def signal_exit_code(signum: int) -> int:
    return SIGNAL_EXIT_CODES.get(signal.Signals(signum), 128 + int(signum))


def hard_exit(code: int) -> None:
    """Exit now (a repeated signal, a fatal write error): flush stderr, skip teardown; the
    auth.json locks still held are removed first (upstream's ``signal-exit`` does so)."""
    lockfile = sys.modules.get("pi_rpc.ai.auth.lockfile")
    if lockfile is not None:
        lockfile.release_all()
    try:
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stderr may already be gone
        pass
    os._exit(code)


def run_to_exit_code(main: Callable[[], Awaitable[int]]) -> int:
    """``anyio.run(main)``, then flush stderr. A non-zero code exits at once: worker threads
    stuck in a blocked write must not delay the exit with interpreter teardown."""
    import anyio

    code = anyio.run(main)
    if code != 0:
        hard_exit(code)
    try:
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stderr may already be gone
        pass
    return code
