"""A small client for the REAL ``python -m pi_rpc --mode rpc`` subprocess.

Each process gets its own agent dir, HOME and cwd under the test's tmp_path (settings.json,
models.json, a faux script, prompt templates and skills are written there before start). Stdout
is read as bytes and split on ``b"\\n"`` only (U+2028 inside strings is content, not a line
break). Every record read is kept in ``records`` (and its exact line in ``raw``) so orders and
bytes can be asserted afterwards. The offline ``faux`` provider is opted in through
``PI_FAUX_SCRIPT`` (the given script, or an empty one) unless ``faux=False``.
"""

from __future__ import annotations

import itertools
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared line reader
from stdout_lines import stream_lines  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]

Pred = Callable[[dict[str, Any]], bool]


def is_event(etype: str, **fields: Any) -> Pred:
    def pred(r: dict[str, Any]) -> bool:
        return r.get("type") == etype and all(r.get(k) == v for k, v in fields.items())

    return pred


def is_response(cmd_id: Any) -> Pred:
    return lambda r: r.get("type") == "response" and "id" in r and r["id"] == cmd_id


def kinds(records: list[dict[str, Any]]) -> list[str]:
    """Compact labels for order assertions: ``response:<id>``, ``message_end:<role>``, or the type."""
    out = []
    for r in records:
        t = r.get("type")
        if t == "response":
            out.append(f"response:{r.get('id')}")
        elif t in ("message_start", "message_end"):
            out.append(f"{t}:{(r.get('message') or {}).get('role')}")
        elif t == "message_update":
            continue
        else:
            out.append(str(t))
    return out


class RpcProc:
    def __init__(
        self,
        root: Path,
        *,
        script: list[dict[str, Any]] | None = None,
        settings: dict[str, Any] | None = None,
        models: dict[str, Any] | None = None,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        files: dict[str, str] | None = None,
        faux: bool = True,
    ) -> None:
        self.root = root
        self.agent_dir = root / "agent"
        self.cwd = root / "cwd"
        self.home = root / "home"
        for d in (self.agent_dir, self.cwd, self.home):
            d.mkdir(parents=True, exist_ok=True)
        if settings is not None:
            (self.agent_dir / "settings.json").write_text(json.dumps(settings))
        if models is not None:
            (self.agent_dir / "models.json").write_text(json.dumps(models))
        for rel, text in (files or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
        full_env.update(
            HOME=str(self.home),
            PI_CODING_AGENT_DIR=str(self.agent_dir),
            PI_OFFLINE="1",
            PYTHONUNBUFFERED="1",
            PYTHONPATH=str(REPO_ROOT),
        )
        if script is not None:
            script_path = root / "faux-script.json"
            script_path.write_text(json.dumps(script))
            full_env["PI_FAUX_SCRIPT"] = str(script_path)
        elif faux:
            full_env["PI_FAUX_SCRIPT"] = os.devnull  # opt in to faux with no scripted turns
        full_env.update(env or {})
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "pi_rpc", "--mode", "rpc", *args],
            cwd=self.cwd,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.records: list[dict[str, Any]] = []
        self.raw: list[bytes] = []  # the stdout line of each record, byte for byte
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr = bytearray()
        self._ids = itertools.count(1)
        self._eof = False
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    # ------------------------------------------------------------------ pumps

    def _pump_stdout(self) -> None:
        assert self.popen.stdout is not None
        for line, complete in stream_lines(self.popen.stdout):
            self._lines.put(line if complete else b"\x00UNTERMINATED" + line)
        self._lines.put(None)

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

    def send(self, obj: Any) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
        self.popen.stdin.flush()

    def request(self, ctype: str, **fields: Any) -> str:
        """Send a command with a fresh id; returns the id (does not wait)."""
        cmd_id = f"{ctype}-{next(self._ids)}"
        self.send({"id": cmd_id, "type": ctype, **fields})
        return cmd_id

    def cmd(self, ctype: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        """Send a command and wait for its response."""
        return self.response(self.request(ctype, **fields), timeout)

    def ok(self, ctype: str, timeout: float = 10.0, **fields: Any) -> Any:
        """Send a command, assert success, return ``data`` (or None when absent)."""
        resp = self.cmd(ctype, timeout, **fields)
        assert resp["success"] is True, resp
        return resp.get("data")

    # ------------------------------------------------------------------ output

    def _read_one(self, timeout: float) -> dict[str, Any] | None:
        if self._eof:
            return None
        try:
            line = self._lines.get(timeout=max(timeout, 0.001))
        except queue.Empty:
            raise TimeoutError from None
        if line is None:
            self._eof = True
            return None
        assert not line.startswith(b"\x00UNTERMINATED"), f"unterminated stdout record: {line!r}"
        record = json.loads(line)
        self.records.append(record)
        self.raw.append(line)
        return record

    def wait_for(self, pred: Pred | str, timeout: float = 10.0, start: int = 0) -> dict[str, Any]:
        """First record (at index >= ``start``) matching ``pred`` (an event type or predicate)."""
        if isinstance(pred, str):
            pred = is_event(pred)
        for record in self.records[start:]:
            if pred(record):
                return record
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                record = self._read_one(remaining) if remaining > 0 else None
            except TimeoutError:
                record = None
                remaining = 0
            if record is None:
                tail = "\n".join(json.dumps(r)[:300] for r in self.records[-15:])
                why = "timeout" if remaining <= 0 else "stdout closed"
                raise AssertionError(f"{why} waiting for record; last records:\n{tail}\nstderr:\n{self.stderr[-3000:]}")
            if pred(record):
                return record

    def response(self, cmd_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait_for(is_response(cmd_id), timeout)

    def index_of(self, record: dict[str, Any]) -> int:
        return next(i for i, r in enumerate(self.records) if r is record)

    def mark(self) -> int:
        """Index where records arriving from now on start."""
        self.drain(0.0)
        return len(self.records)

    def drain(self, quiet: float = 0.05) -> None:
        """Read what is available until ``quiet`` seconds pass without output."""
        while True:
            try:
                if self._read_one(quiet) is None:
                    return
            except TimeoutError:
                return

    def settle(self, start: int = 0, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait_for("agent_settled", timeout, start)

    def since(self, start: int) -> list[dict[str, Any]]:
        return self.records[start:]

    # ------------------------------------------------------------------ shutdown

    def close(self, timeout: float = 10.0) -> int:
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            try:
                self.popen.stdin.close()
            except BrokenPipeError:
                pass
        while not self._eof:
            try:
                self._read_one(timeout)
            except TimeoutError:
                break
        return self.popen.wait(timeout)

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            try:
                self.popen.wait(5)
            except subprocess.TimeoutExpired:
                pass


@pytest.fixture
def pi(tmp_path: Path) -> Iterator[Callable[..., RpcProc]]:
    """``pi(**kwargs)`` starts an ``RpcProc`` in its own dir under ``tmp_path``; all are killed at
    teardown. Conftests re-export it (``from rt_client import pi``)."""
    procs: list[RpcProc] = []

    def start(**kwargs: Any) -> RpcProc:
        proc = RpcProc(tmp_path / f"p{len(procs)}", **kwargs)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        proc.kill()
