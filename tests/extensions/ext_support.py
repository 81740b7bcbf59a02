"""Paths shared by the extension tests (imported by name; ``conftest`` names are ambiguous)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "extensions"
EXAMPLES = REPO / "examples" / "extensions"


def stderr_contains(proc, text: str, timeout: float = 10.0) -> bool:
    """Whether ``text`` shows up on the process's stderr (read by a thread, so it may lag
    behind stdout)."""
    import time

    deadline = time.monotonic() + timeout
    while text not in proc.stderr:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
