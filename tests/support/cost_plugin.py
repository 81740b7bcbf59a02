"""A pytest plugin that records what each test costs, for finding where the suite's time goes
(issue 32 item 7); not loaded unless asked for:

    COST_OUT=/tmp/costs.jsonl PYTHONPATH=. python -m pytest -p tests.support.cost_plugin -q

One JSON line per test, appended as it ends (setup, call and teardown together): ``wall``;
``self`` and ``children``, the CPU seconds of the test process and of the subprocesses it
reaped (``getrusage``); ``cg``, with ``COST_CGROUP=1`` when the process may create a cpuacct
cgroup (root, cgroup v1), the CPU of everything the worker started, daemons and orphans included (a tmux server, a
killed pi's children), which ``getrusage`` never sees. A ``<sessionstart>`` and an ``<end>``
line per process carry the cgroup's total. CPU seconds vary much less with the machine's load
than wall seconds do.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_OUT = Path(os.environ.get("COST_OUT", "test-costs.jsonl"))
_cgroup: Path | None = None


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, reaped.ru_utime + reaped.ru_stime


def _cgroup_cpu() -> float:
    if _cgroup is None:
        return 0.0
    return int((_cgroup / "cpuacct.usage").read_text()) / 1e9


def _write(record: dict[str, Any]) -> None:
    with _OUT.open("a") as out:
        out.write(json.dumps(record) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    """With ``COST_CGROUP=1``: move this process into a cpuacct cgroup of its own, below the
    one it is in (left, and removed when empty, at the end)."""
    global _cgroup
    try:
        if os.environ.get("COST_CGROUP") != "1":
            raise OSError("not asked for")
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        mine = next(ln.split(":", 2)[2] for ln in lines if "cpuacct" in ln.split(":", 2)[1].split(","))
        folder = Path("/sys/fs/cgroup/cpuacct" + mine.rstrip("/")) / f"{_worker()}-{os.getpid()}"
        folder.mkdir(exist_ok=True)
        (folder / "cgroup.procs").write_text(str(os.getpid()))
        _cgroup = folder
    except (OSError, StopIteration, IndexError):
        _cgroup = None  # no cgroup v1 cpuacct, or not allowed: the rusage figures only
    _write({"id": "<sessionstart>", "cg": _cgroup_cpu(), "worker": _worker(), "t": time.time()})


def pytest_unconfigure(config: pytest.Config) -> None:
    _write({"id": "<end>", "cg": _cgroup_cpu(), "worker": _worker(), "t": time.time()})
    if _cgroup is not None:
        try:
            (_cgroup.parent / "cgroup.procs").write_text(str(os.getpid()))
            _cgroup.rmdir()  # fails while a process this worker started still runs in it
        except OSError:
            pass


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    wall, (own, reaped), group = time.monotonic(), _cpu(), _cgroup_cpu()
    try:
        return (yield)
    finally:
        own_after, reaped_after = _cpu()
        _write(
            {
                "id": item.nodeid,
                "wall": round(time.monotonic() - wall, 3),
                "self": round(own_after - own, 3),
                "children": round(reaped_after - reaped, 3),
                "cg": round(_cgroup_cpu() - group, 3),
                "worker": _worker(),
                "t": round(time.time(), 1),
            }
        )
