"""A client that stops reading stdout for a while (default 60 s) during (a) a 20,000-delta
answer and (b) a ``bash`` command printing ~69 MB, then reads everything.

Prints, per case: RSS before and at the end of the stall (VmRSS) and the peak (VmHWM), how
far the process got while nobody read (bytes it wrote / read), and whether every delta then
arrived, complete and in order. The baseline is the same process's RSS before the stall.

    python bench/slow_reader_bench.py [--stall 60]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _status(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def _io(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/io") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def _case(
    work: Path, name: str, command: dict[str, Any], until: str, stall: float, env_extra: dict[str, str]
) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    for d in ("home", "agent"):
        (work / d).mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(work / "home"),
        PI_CODING_AGENT_DIR=str(work / "agent"),
        PI_OFFLINE="1",
        PYTHONPATH=str(ROOT),
        **env_extra,
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session"],
        cwd=work,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin and proc.stdout
    try:
        proc.stdin.write(b'{"id":"ready","type":"get_state"}\n')
        proc.stdin.flush()
        proc.stdout.readline()
        rss0 = _status(proc.pid, "VmRSS")
        w0, r0 = _io(proc.pid, "wchar"), _io(proc.pid, "rchar")
        proc.stdin.write(json.dumps(command).encode() + b"\n")
        proc.stdin.flush()
        time.sleep(stall)  # the client reads nothing
        rss_stalled = _status(proc.pid, "VmRSS")
        written, read = _io(proc.pid, "wchar") - w0, _io(proc.pid, "rchar") - r0
        records = []
        for line in proc.stdout:
            records.append(json.loads(line))
            if records[-1].get("type") == until:
                break
        peak = _status(proc.pid, "VmHWM")
        proc.stdin.close()
        rc = proc.wait(60)
        return {
            "case": name,
            "stall_s": stall,
            "rss_before_mb": round(rss0 / 1024, 1),
            "rss_end_of_stall_mb": round(rss_stalled / 1024, 1),
            "peak_rss_mb": round(peak / 1024, 1),
            "bytes_written_while_stalled": written,
            "bytes_read_while_stalled": read,
            "records_after_resume": len(records),
            "exit_code": rc,
            "records": records,
        }
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stall", type=float, default=60.0)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pi-slow-"))
    try:
        text = "".join(chr(0x61 + i % 26) for i in range(20_000))
        script = work / "script.json"
        script.write_text(json.dumps([{"text": text, "chunkChars": 1}]))
        answer = _case(
            work / "a",
            "20000-delta answer",
            {"id": "p", "type": "prompt", "message": "go"},
            "agent_settled",
            a.stall,
            {"PI_FAUX_SCRIPT": str(script)},
        )
        deltas = [
            r["assistantMessageEvent"]["delta"]
            for r in answer.pop("records")
            if r.get("type") == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta"
        ]
        answer["deltas"] = len(deltas)
        answer["complete_and_in_order"] = "".join(deltas) == text
        count = 8_000_000
        bash = _case(
            work / "b",
            "bash seq 1..8,000,000 (~69 MB)",
            {"id": "b", "type": "bash", "command": f"seq 1 {count}"},
            "response",
            a.stall,
            {},
        )
        out = "".join(r["delta"] for r in bash.pop("records") if r.get("type") == "bash_execution_update")
        bash["output_bytes"] = len(out)
        bash["complete_and_in_order"] = out == "".join(f"{i}\n" for i in range(1, count + 1))
        print(json.dumps([answer, bash], indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
