"""Fixtures for the extension tests: ``pi(...)`` starts the REAL ``python -m pi_rpc --mode rpc``
subprocess (``tests/runtime/rt_client.RpcProc``) in an isolated tmp dir; extension files are
written there (``files={"ext/gate.py": SOURCE}``) and loaded with ``args=("-e", ...)`` or by
discovery (``agent/extensions/``, ``cwd/.pi/extensions/``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

from rt_client import RpcProc  # noqa: E402



@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def pi(tmp_path: Path) -> Iterator[Callable[..., RpcProc]]:
    procs: list[RpcProc] = []

    def start(**kwargs: Any) -> RpcProc:
        root = tmp_path / f"p{len(procs)}"
        proc = RpcProc(root, **kwargs)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        proc.kill()
