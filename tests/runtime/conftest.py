"""Fixtures for the session-runtime tests: ``pi(...)`` starts a real RPC subprocess in an
isolated tmp dir (see ``rt_client.RpcProc``) and kills it at teardown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rt_client import RpcProc


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
