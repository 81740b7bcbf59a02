"""A client that stops reading stdout: the process applies backpressure instead of queueing
without bound (RSS stays bounded, it stops consuming its own inputs), and once the client
reads again every record arrives, in order.

Each test stalls until the process has visibly stopped making progress (its read or write
byte counters in ``/proc/<pid>/io`` stand still), then checks that it stopped well before
the end — an unbounded queue would have consumed everything instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/<pid>/io")


def _env(tmp: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    for d in ("home", "agent"):
        (tmp / d).mkdir(exist_ok=True)
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"), PI_OFFLINE="1")
    env.update(extra or {})
    return env


def _io(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/io") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise AssertionError(key)


def _hwm_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("VmHWM")


def _stall_until_idle(pid: int, key: str, limit: int) -> int:
    """Do not read; return the counter once it stood still for a second (or passed limit)."""
    last, still_since = -1, time.monotonic()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        value = _io(pid, key)
        if value >= limit:
            return value
        if value != last:
            last, still_since = value, time.monotonic()
        elif time.monotonic() - still_since > 1.0:
            return value
        time.sleep(0.1)
    return last


def _read_records(proc: subprocess.Popen[bytes], until: Any) -> list[dict[str, Any]]:
    assert proc.stdout is not None
    records = []
    for line in proc.stdout:
        records.append(json.loads(line))
        if until(records[-1]):
            break
    return records


def _start(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session", *args],
        cwd=tmp,
        env=_env(tmp, env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(b'{"id":"ready","type":"get_state"}\n')
    proc.stdin.flush()
    _read_records(proc, lambda r: r.get("id") == "ready")
    return proc


def test_bash_output_while_the_client_does_not_read(tmp_path: Path) -> None:
    count = 8_000_000  # `seq` prints ~69 MB
    total = sum(len(str(i)) + 1 for i in range(1, count + 1))
    proc = _start(tmp_path)
    try:
        base_kb = _hwm_kb(proc.pid)
        read_before = _io(proc.pid, "rchar")
        assert proc.stdin is not None
        proc.stdin.write(f'{{"id":"b","type":"bash","command":"seq 1 {count}"}}\n'.encode())
        proc.stdin.flush()
        consumed = _stall_until_idle(proc.pid, "rchar", read_before + total) - read_before
        grown_mb = (_hwm_kb(proc.pid) - base_kb) / 1024
        assert consumed < total // 2, "the process kept reading the command's output: no backpressure"
        # The writer's queue takes at most 16 MB of records (4 × its 4 MB bound) before the
        # command's output waits; the interpreter's copies and heap make RSS grow by about
        # twice that (32 MB measured alone, 46 once under the full suite's load). Queuing
        # without bound would hold the whole ~69 MB output several times over.
        assert grown_mb < 64, f"RSS grew by {grown_mb:.0f} MB while the client was not reading ({consumed} bytes read)"
        records = _read_records(proc, lambda r: r.get("type") == "response")
        text = "".join(r["delta"] for r in records if r.get("type") == "bash_execution_update")
        assert text == "".join(f"{i}\n" for i in range(1, count + 1))  # all of it, in order
        assert records[-1]["success"] is True
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()


def test_20000_delta_answer_while_the_client_does_not_read(tmp_path: Path) -> None:
    text = "".join(chr(0x61 + i % 26) for i in range(20_000))
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": text, "chunkChars": 1}]))
    proc = _start(tmp_path, env={"PI_FAUX_SCRIPT": str(script)})
    try:
        base_kb = _hwm_kb(proc.pid)
        written_before = _io(proc.pid, "wchar")
        assert proc.stdin is not None
        proc.stdin.write(b'{"id":"p","type":"prompt","message":"go"}\n')
        proc.stdin.flush()
        # Each delta is a ~130-byte record: 20,000 of them are ~2.6 MB, far beyond the pipe.
        written = _stall_until_idle(proc.pid, "wchar", written_before + 2_000_000) - written_before
        assert written < 2_000_000, "the whole answer was written: the run did not wait for the reader"
        assert (_hwm_kb(proc.pid) - base_kb) / 1024 < 40
        records = _read_records(proc, lambda r: r.get("type") == "agent_settled")
        deltas = [
            r["assistantMessageEvent"]["delta"]
            for r in records
            if r.get("type") == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta"
        ]
        assert len(deltas) == 20_000 and "".join(deltas) == text
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()
