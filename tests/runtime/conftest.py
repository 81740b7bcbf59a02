"""The runtime tests drive a session through the RPC commands. ``pi(**kwargs)`` serves them in
this process (``tests.support.in_process``: the same server, backend and session, no
interpreter start); ``pi_process(**kwargs)`` spawns the real ``python -m pi_rpc`` for the tests
where the process is what is tested (its stdout bytes, signals, crashes, startup, stderr,
several processes on one store)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.in_process import InProcessPi, start_in_process
from tests.support.pi_process import PiProcess, start_in


@pytest.fixture
def pi(tmp_path: Path) -> Iterator[Callable[..., InProcessPi]]:
    """``pi(**kwargs)``: ``start_in_process(tmp_path / "p<n>", **kwargs)``, stopped at teardown."""
    started: list[InProcessPi] = []

    def start(**kwargs: Any) -> InProcessPi:
        proc = start_in_process(tmp_path / f"p{len(started)}", **kwargs)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()


@pytest.fixture
def pi_process(tmp_path: Path) -> Iterator[Callable[..., PiProcess]]:
    """``pi(**kwargs)`` as a real subprocess (``start_in``), killed at teardown."""
    started: list[PiProcess] = []

    def start(**kwargs: Any) -> PiProcess:
        proc = start_in(tmp_path / f"s{len(started)}", **kwargs)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
