"""The one client the tests (and the long runs in ``bench/``) use to drive the REAL ``python -m
pi_rpc`` subprocess, or upstream pi 1.6, over stdin/stdout.

- ``stream_lines``: stdout as the protocol frames it, LF-terminated lines split on
  ``b"\\n"`` only (U+2028 inside a string is content, never ``splitlines``).
- ``isolated_env`` / ``start_in``: an isolated agent dir, HOME and cwd under a tmp root, offline,
  no inherited ``PI_*``, this checkout's ``pi_rpc`` first on ``PYTHONPATH``, and the offline
  ``faux`` provider opted in through ``PI_FAUX_SCRIPT`` (see ``FAUX_OPT_IN``) unless
  ``faux=False``.
- ``PiProcess``: one running process. Threads read stdout and stderr as they come, so the child
  never blocks on a full pipe; records are parsed when the test reads them, so ``records`` (and
  ``raw``, the exact line of each) hold what the test has read so far, in order, and an
  assertion on ``since(mark)`` sees exactly what arrived up to the record it waited for.
- ``is_event`` / ``is_response`` / ``kinds``: predicates and compact labels for records.

Standard library only, so ``bench/`` scripts can import it with the repository root on
``sys.path``.
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
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parents[2]

Pred = Callable[[Any], bool]

# The offline ``faux`` provider is opt-in (with nothing configured pi has no model, as upstream).
# The isolated test environment opts in through faux's own environment variable, pointing it at
# an empty script so faux answers on its own; ``--faux-script`` or a test's own PI_FAUX_SCRIPT
# still wins. Pass ``faux=False`` for the nothing-configured (or real-provider-only) case.
FAUX_OPT_IN = {"PI_FAUX_SCRIPT": os.devnull}

# Upper bound on the stderr kept per process: a long fuzz or soak run must not grow without
# bound; past it the older half is dropped (the tail is what a failure message shows).
STDERR_KEEP = 4 << 20


# ---------------------------------------------------------------------------------------- framing


def stream_lines(stream: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
    """``(line, True)`` for each LF-terminated line until EOF, then ``(rest, False)`` when the
    stream ended inside a line. Pending bytes are kept as a list of pieces, so a line of many
    megabytes costs one join, not a copy per read."""
    pending: list[bytes] = []
    read = getattr(stream, "read1", None) or stream.read
    while True:
        chunk = read(1 << 16)
        if not chunk:
            break
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if start < len(chunk):
                    pending.append(chunk[start:])
                break
            piece = chunk[start:end]
            if pending:
                pending.append(piece)
                piece = b"".join(pending)
                pending = []
            yield piece, True
            start = end + 1
    if pending:
        yield b"".join(pending), False


# ------------------------------------------------------------------------------------ environment


def isolated_env(root: Path, extra: dict[str, str] | None = None, *, faux: bool = True) -> dict[str, str]:
    """HOME and agent dir under ``root`` (created), offline, no inherited ``PI_*``, upstream's
    version check and telemetry off, this checkout's package first, faux opted in unless
    ``faux=False``; ``extra`` last."""
    for d in ("home", "agent"):
        (root / d).mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(
        HOME=str(root / "home"),
        PI_CODING_AGENT_DIR=str(root / "agent"),
        PI_OFFLINE="1",
        PI_SKIP_VERSION_CHECK="1",
        PI_TELEMETRY="0",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(REPO_ROOT),
    )
    if faux:
        env.update(FAUX_OPT_IN)
    env.update(extra or {})
    return env


OURS = [sys.executable, "-m", "pi_rpc"]


def upstream_argv() -> list[str] | None:
    """``[node, cli.js]`` of upstream pi 1.6 (``tests/support/upstream.py`` finds and installs it)."""
    from tests.support import upstream

    return upstream.argv()


# ------------------------------------------------------------------------------------- predicates


def is_event(etype: str, **fields: Any) -> Pred:
    def pred(r: Any) -> bool:
        return isinstance(r, dict) and r.get("type") == etype and all(r.get(k) == v for k, v in fields.items())

    return pred


def is_response(cmd_id: Any) -> Pred:
    return lambda r: isinstance(r, dict) and r.get("type") == "response" and "id" in r and r["id"] == cmd_id


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


# ----------------------------------------------------------------------------------------- client


class RecordTimeout(AssertionError):
    """No (matching) stdout record arrived in time."""


class StdoutClosed(AssertionError):
    """Stdout ended before the awaited record."""


UNTERMINATED = b"<<UNTERMINATED>>"  # prefix ``read_line`` puts on a last line that had no LF


class PiProcess:
    """One running process with LF-only, line-oriented access to its stdout.

    Strict by default: a line that is not a JSON record, or a last line without its LF, fails
    the read. ``lenient=True`` (the fuzz and kill runs, which check that invariant at the end)
    keeps such lines in ``invalid_lines`` instead.
    """

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        *,
        root: Path | None = None,
        agent_dir: Path | None = None,
        stderr: Any = None,
        lenient: bool = False,
    ) -> None:
        self.argv = argv
        self.root = root
        self.cwd = cwd
        self.agent_dir = agent_dir or Path(env.get("PI_CODING_AGENT_DIR", cwd / "agent"))
        self.home = Path(env.get("HOME", cwd))
        self.lenient = lenient
        self.popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.PIPE,
        )
        self.records: list[Any] = []  # every record read so far, in order
        self.raw: list[bytes] = []  # the stdout line of each record, byte for byte
        self.raw_lines: list[bytes] = []  # every stdout line read so far (records or not)
        self.invalid_lines: list[bytes] = []  # lenient mode: lines that were not JSON records
        self._lines: queue.Queue[tuple[bytes, bool] | None] = queue.Queue()
        self._stderr = bytearray()
        self._ids = itertools.count(1)
        self._eof = False
        self._threads = [threading.Thread(target=self._pump_stdout, daemon=True)]
        if self.popen.stderr is not None:
            self._threads.append(threading.Thread(target=self._pump_stderr, daemon=True))
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    # ------------------------------------------------------------------ pumps

    def _pump_stdout(self) -> None:
        assert self.popen.stdout is not None
        for item in stream_lines(self.popen.stdout):
            self._lines.put(item)
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.popen.stderr is not None
        while True:
            chunk = self.popen.stderr.read1(1 << 16)
            if not chunk:
                return
            self._stderr += chunk
            if len(self._stderr) > STDERR_KEEP:
                del self._stderr[: STDERR_KEEP // 2]

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

    def try_write(self, data: bytes) -> bool:
        """``write`` for runs that outlive the process: False when it is gone."""
        try:
            self.write(data)
            return True
        except OSError:  # BrokenPipeError and the like: the process has exited
            return False

    def try_send(self, obj: Any) -> bool:
        return self.try_write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")

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

    def close_stdin(self) -> None:
        if self.popen.stdin is None or self.popen.stdin.closed:
            return
        try:
            self.popen.stdin.close()
        except OSError:  # the process is gone: nothing left to flush to
            pass

    # ------------------------------------------------------------------ output

    def read_line(self, timeout: float = 10.0) -> bytes | None:
        """Next raw stdout line (without LF; ``UNTERMINATED`` + rest for a last line without
        one); None at EOF. ``RecordTimeout`` when nothing comes in time."""
        if self._eof:
            return None
        try:
            item = self._lines.get(timeout=max(timeout, 0.001))
        except queue.Empty:
            raise RecordTimeout(f"no output within {timeout}s; stderr:\n{self.stderr[-3000:]}") from None
        if item is None:
            self._eof = True
            return None
        line, complete = item
        line = line if complete else UNTERMINATED + line
        self.raw_lines.append(line)
        return line

    def _read_one(self, timeout: float) -> Any:
        """Next record (appended to ``records``), or ``StdoutClosed`` at EOF."""
        while True:
            line = self.read_line(timeout)
            if line is None:
                raise StdoutClosed(f"stdout closed; stderr:\n{self.stderr[-3000:]}")
            if line.startswith(UNTERMINATED):
                if self.lenient:
                    self.invalid_lines.append(line[len(UNTERMINATED) :])
                    continue
                raise AssertionError(f"unterminated stdout record: {line!r}")
            try:
                record = json.loads(line)
            except ValueError:
                if not self.lenient:
                    raise
                self.invalid_lines.append(line)
                continue
            self.records.append(record)
            self.raw.append(line)
            return record

    def read_record(self, timeout: float = 10.0) -> Any:
        """The next record, whatever it is."""
        return self._read_one(timeout)

    def wait_for(self, pred: Pred | str, timeout: float = 10.0, start: int = 0) -> Any:
        """First record (at index >= ``start`` of ``records``, read ones included) matching
        ``pred`` (an event type or a predicate); reading stops at it."""
        if isinstance(pred, str):
            pred = is_event(pred)
        for record in self.records[start:]:
            if pred(record):
                return record
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise RecordTimeout("timeout")
                record = self._read_one(remaining)
            except (RecordTimeout, StdoutClosed) as exc:
                tail = "\n".join(json.dumps(r)[:300] for r in self.records[-15:])
                why = "timeout" if isinstance(exc, RecordTimeout) else "stdout closed"
                raise type(exc)(
                    f"{why} waiting for record; last records:\n{tail}\nstderr:\n{self.stderr[-3000:]}"
                ) from None
            if pred(record):
                return record

    def wait_for_next(self, pred: Pred | str, timeout: float = 10.0) -> Any:
        """``wait_for`` among the records not read yet."""
        return self.wait_for(pred, timeout, start=len(self.records))

    def response(self, cmd_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait_for(is_response(cmd_id), timeout)

    def settle(self, start: int = 0, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait_for("agent_settled", timeout, start)

    def read_all(self, timeout: float = 10.0) -> list[Any]:
        """Every remaining record until stdout closes."""
        out = []
        while True:
            try:
                out.append(self._read_one(timeout))
            except StdoutClosed:
                return out

    def drain(self, quiet: float = 0.05) -> None:
        """Read what is available until ``quiet`` seconds pass without output."""
        while True:
            try:
                self._read_one(quiet)
            except (RecordTimeout, StdoutClosed):
                return

    def mark(self) -> int:
        """Index where records arriving from now on start."""
        self.drain(0.0)
        return len(self.records)

    def since(self, start: int) -> list[Any]:
        return self.records[start:]

    def index_of(self, record: Any) -> int:
        return next(i for i, r in enumerate(self.records) if r is record)

    # ------------------------------------------------------------------ shutdown

    def close(self, timeout: float = 10.0) -> int:
        """EOF on stdin, read stdout to its end, then the exit status."""
        self.close_stdin()
        while not self._eof:
            try:
                self._read_one(timeout)
            except (StdoutClosed, RecordTimeout):
                break
        return self.popen.wait(timeout)

    def wait(self, timeout: float = 10.0) -> int:
        """The exit status; the readers have finished when it returns."""
        rc = self.popen.wait(timeout=timeout)
        for thread in self._threads:
            thread.join(timeout)
        return rc

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            try:
                self.popen.wait(5)
            except subprocess.TimeoutExpired:
                pass

    # ------------------------------------------------------------------ resources

    def _status_kb(self, field: str, default: int | None) -> int:
        with open(f"/proc/{self.pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        if default is None:
            raise AssertionError(f"no {field}")
        return default

    def vm_hwm_kb(self, default: int | None = None) -> int:
        """Peak RSS; ``default`` when the kernel does not report it (a zombie), else it fails."""
        return self._status_kb("VmHWM", default)

    def vm_rss_kb(self, default: int | None = None) -> int:
        return self._status_kb("VmRSS", default)


def start_in(
    root: Path,
    *,
    script: list[dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
    models: dict[str, Any] | None = None,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    faux: bool = True,
) -> PiProcess:
    """``pi --mode rpc *args`` with its agent dir, HOME and cwd under ``root``: settings.json,
    models.json, a faux ``script`` and other ``files`` (paths relative to ``root``) are written
    there before start."""
    base = prepare_root(root, script=script, settings=settings, models=models, env=env, files=files, faux=faux)
    return PiProcess([*OURS, "--mode", "rpc", *args], base, root / "cwd", root=root, agent_dir=root / "agent")


def prepare_root(
    root: Path,
    *,
    script: list[dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
    models: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    faux: bool = True,
) -> dict[str, str]:
    """The layout ``start_in`` and ``start_in_process`` share under ``root``: ``agent``, ``home``
    and ``cwd`` made, settings.json, models.json, the faux ``script`` and other ``files`` written;
    returns the environment to run with."""
    agent_dir = root / "agent"
    (root / "cwd").mkdir(parents=True, exist_ok=True)
    base = isolated_env(root, faux=faux)
    if settings is not None:
        (agent_dir / "settings.json").write_text(json.dumps(settings))
    if models is not None:
        (agent_dir / "models.json").write_text(json.dumps(models))
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if script is not None:
        script_path = root / "faux-script.json"
        script_path.write_text(json.dumps(script))
        base["PI_FAUX_SCRIPT"] = str(script_path)
    base.update(env or {})
    return base
