"""Shared test helpers (use them through fixtures: ``from conftest import`` is ambiguous when
several test directories have a conftest.py).

- ``split_lf(data)``: split bytes on LF only (never ``splitlines``: U+2028 is content).
- ``PiProcess`` / the ``spawn_pi`` fixture (and ``pi_environ``): run the REAL ``python -m pi_rpc`` subprocess with
  an isolated ``PI_CODING_AGENT_DIR``/HOME/cwd under tmp (the offline ``faux`` provider opted in
  through ``PI_FAUX_SCRIPT``, see ``FAUX_OPT_IN``), write raw bytes to its stdin and read
  protocol records from its stdout.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from stdout_lines import stream_lines

REPO_ROOT = Path(__file__).resolve().parent.parent


def split_lf(data: bytes) -> list[bytes]:
    """Records in ``data`` split on ``b"\\n"`` only; a trailing partial record is kept."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


class PiProcess:
    """A running ``pi --mode rpc`` with line-oriented (LF-only) access to its stdout."""

    def __init__(self, popen: subprocess.Popen[bytes], agent_dir: Path, cwd: Path) -> None:
        self.popen = popen
        self.agent_dir = agent_dir
        self.cwd = cwd
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.raw_lines: list[bytes] = []
        self._stderr = bytearray()
        self._stdout_thread = threading.Thread(target=self._pump_stdout, daemon=True)
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stdout_thread.start()
        self._stderr_thread.start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def _pump_stdout(self) -> None:
        assert self.popen.stdout is not None
        for line, complete in stream_lines(self.popen.stdout):
            self.lines.put(line if complete else b"<<UNTERMINATED>>" + line)
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.popen.stderr is not None
        while True:
            chunk = self.popen.stderr.read1(1 << 16)
            if not chunk:
                break
            self._stderr += chunk

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", "replace")

    # ------------------------------------------------------------------ input

    def write(self, data: bytes) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(data)
        self.popen.stdin.flush()

    def send(self, obj: Any) -> None:
        self.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")

    def close_stdin(self) -> None:
        assert self.popen.stdin is not None
        try:
            self.popen.stdin.close()
        except BrokenPipeError:
            pass

    # ------------------------------------------------------------------ output

    def read_line(self, timeout: float = 10.0) -> bytes | None:
        """Next raw stdout line (without LF); None at EOF. Fails on timeout."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout}s; stderr:\n{self.stderr}") from None
        if line is not None:
            self.raw_lines.append(line)
        return line

    def read_record(self, timeout: float = 10.0) -> dict[str, Any]:
        line = self.read_line(timeout)
        assert line is not None, f"stdout closed; stderr:\n{self.stderr}"
        assert not line.startswith(b"<<UNTERMINATED>>"), f"unterminated output line: {line!r}"
        record = json.loads(line)
        self.seen.append(record)
        return record

    def read_until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        for record in self.seen:
            if predicate(record):
                return record
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"record not seen; got {self.seen!r}; stderr:\n{self.stderr}")
            record = self.read_record(remaining)
            if predicate(record):
                return record

    def response(self, cmd_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        return self.read_until(
            lambda r: r.get("type") == "response" and "id" in r and r["id"] == cmd_id, timeout
        )

    def read_all(self, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Every remaining record until stdout closes."""
        out = []
        while True:
            line = self.read_line(timeout)
            if line is None:
                return out
            assert not line.startswith(b"<<UNTERMINATED>>"), f"unterminated output line: {line!r}"
            record = json.loads(line)
            self.seen.append(record)
            out.append(record)

    def wait(self, timeout: float = 10.0) -> int:
        rc = self.popen.wait(timeout=timeout)
        self._stdout_thread.join(timeout)
        self._stderr_thread.join(timeout)
        return rc

    def vm_hwm_kb(self) -> int:
        with open(f"/proc/{self.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        raise AssertionError("no VmHWM")

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            try:
                self.popen.wait(5)
            except subprocess.TimeoutExpired:
                pass


# The offline ``faux`` provider is opt-in (with nothing configured pi has no model, as upstream).
# The isolated test environment opts in through faux's own environment variable, pointing it at
# an empty script so faux answers on its own; ``--faux-script`` or a test's own PI_FAUX_SCRIPT
# still wins. Pass ``faux=False`` for the nothing-configured (or real-provider-only) case.
FAUX_OPT_IN = {"PI_FAUX_SCRIPT": os.devnull}


def pi_env(tmp: Path, extra: dict[str, str] | None = None, *, faux: bool = True) -> dict[str, str]:
    """Environment with an isolated agent dir and HOME, offline, no inherited pi settings, and
    the offline ``faux`` provider opted in unless ``faux=False``."""
    home = tmp / "home"
    agent = tmp / "agent"
    home.mkdir(parents=True, exist_ok=True)
    agent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(agent),
        PI_OFFLINE="1",
        PYTHONUNBUFFERED="1",
    )
    if faux:
        env.update(FAUX_OPT_IN)
    if extra:
        env.update(extra)
    return env


@pytest.fixture
def pi_environ(tmp_path: Path) -> Callable[[dict[str, str] | None], dict[str, str]]:
    """``pi_environ(extra=None, faux=True)`` -> the isolated environment ``spawn_pi`` uses."""
    return lambda extra=None, faux=True: pi_env(tmp_path, extra, faux=faux)


@pytest.fixture
def spawn_pi(tmp_path: Path) -> Iterator[Callable[..., PiProcess]]:
    """``spawn_pi(*args, env=None, mode="rpc", faux=True)`` -> ``PiProcess`` (killed at teardown)."""
    procs: list[PiProcess] = []

    def spawn(*args: str, env: dict[str, str] | None = None, mode: str | None = "rpc", faux: bool = True) -> PiProcess:
        cwd = tmp_path / "cwd"
        cwd.mkdir(exist_ok=True)
        argv = [sys.executable, "-m", "pi_rpc"]
        if mode is not None:
            argv += ["--mode", mode]
        argv += list(args)
        popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=pi_env(tmp_path, env, faux=faux),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        proc = PiProcess(popen, tmp_path / "agent", cwd)
        procs.append(proc)
        return proc

    yield spawn
    for proc in procs:
        proc.kill()


@pytest.fixture
def anyio_backend() -> str:
    """Every anyio test runs on asyncio (the backend pi_rpc runs on)."""
    return "asyncio"
