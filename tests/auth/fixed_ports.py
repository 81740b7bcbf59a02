"""The sign-ins whose callback port is fixed (ChatGPT's 1455, Radius's 1456) cannot run twice at
once on one machine; the tests that start them hold this lock (a file lock, so that pytest-xdist
workers wait for each other instead of failing with "Port 1455 is in use")."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def holding_port(port: int) -> Iterator[None]:
    path = Path(tempfile.gettempdir()) / f"pi-rpc-tests-callback-port-{port}.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
