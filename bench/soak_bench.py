"""Soak: many prompts with tool calls in one ``pi --mode rpc`` process, against a local
OpenAI-compatible model on 127.0.0.1 (each prompt: a bash tool call, its result, an answer).

Measured after a warm-up (the baseline of this same run):
  * RSS growth from the end of warm-up to the end (VmRSS, idle, after a GC-friendly pause);
  * open file descriptors and child processes at idle, at the baseline and at the end;
  * per-prompt latency (prompt written -> agent_settled): median of the first and of the last
    window of prompts after warm-up, and their ratio (drift; 1.0 = none), plus the median of
    each tenth of the run; and the server's own CPU time per prompt (first vs last window),
    which other load on the machine disturbs much less than wall time.
``--rotate N`` (default 100) starts a new session every N prompts, as a harness running many
tasks does; ``--rotate 0`` keeps one session, whose context (sent whole with every request)
and entries grow with each prompt, so latency and RSS grow with it by design.

    python bench/soak_bench.py [--prompts 2000] [--warmup 100] [--rotate 100] [--window 200]

Prints one JSON object; the issue-11 acceptance bounds are RSS growth < 20 MB, fds and
children back to baseline, no latency drift.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository root: the tests' process client and the scripted model

from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config  # noqa: E402
from tests.support.pi_process import OURS, PiProcess, isolated_env  # noqa: E402


def children(pid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            count += 1
    return count


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process (less sensitive to machine load than wall time)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def idle_figures(pi: PiProcess) -> dict[str, int]:
    time.sleep(0.3)  # let finished tool processes be reaped
    return {"rss_kb": pi.vm_rss_kb(), "fds": fds(pi.pid), "children": children(pi.pid)}


def soak(prompts: int, warmup: int, rotate: int, window: int, work: Path) -> dict[str, Any]:
    turn_pair = [
        {"text": "Checking.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo soak; ls >/dev/null"}}]},
        {"text": "All good."},
    ]
    (work / "cwd").mkdir(parents=True)
    with ScriptedLLM({"turns": turn_pair * (prompts + warmup + 10)}) as llm:
        write_agent_config(str(work / "agent"), llm.base_url)
        pi = PiProcess(
            [*OURS, "--mode", "rpc", "--session-dir", str(work / "sessions")],
            isolated_env(work, faux=False),
            work / "cwd",
            stderr=open(os.devnull, "wb"),
        )
        latencies: list[float] = []
        cpu: list[float] = []
        baseline: dict[str, int] = {}
        try:
            for i in range(warmup + prompts):
                if i == warmup:
                    baseline = idle_figures(pi)
                if rotate and i and i % rotate == 0:
                    pi.send({"id": f"n{i}", "type": "new_session"})
                    pi.response(f"n{i}", timeout=60)
                t0 = time.perf_counter()
                c0 = cpu_seconds(pi.pid)
                pi.send({"id": f"p{i}", "type": "prompt", "message": f"soak prompt {i}"})
                response = pi.response(f"p{i}", timeout=60)
                if not response.get("success"):
                    raise RuntimeError(response)
                pi.wait_for("agent_settled", timeout=60)
                if i >= warmup:
                    latencies.append(time.perf_counter() - t0)
                    cpu.append(cpu_seconds(pi.pid) - c0)
                # The client keeps nothing: only the server's memory counts.
                for kept in (pi.records, pi.raw, pi.raw_lines):
                    del kept[:]
            end = idle_figures(pi)
            peak_kb = pi.vm_hwm_kb()
            rc = pi.close(timeout=60)
        finally:
            pi.kill()
    first, last = latencies[:window], latencies[-window:]
    cpu_first, cpu_last = sum(cpu[:window]) / window, sum(cpu[-window:]) / window
    return {
        "prompts": prompts,
        "warmup": warmup,
        "rotate_every": rotate,
        "model_requests": len(llm.requests),
        "rss_baseline_mb": round(baseline["rss_kb"] / 1024, 1),
        "rss_end_mb": round(end["rss_kb"] / 1024, 1),
        "rss_growth_mb": round((end["rss_kb"] - baseline["rss_kb"]) / 1024, 1),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "fds_baseline": baseline["fds"],
        "fds_end": end["fds"],
        "children_baseline": baseline["children"],
        "children_end": end["children"],
        "latency_first_ms": round(statistics.median(first) * 1000, 1),
        "latency_last_ms": round(statistics.median(last) * 1000, 1),
        "latency_drift_ratio": round(statistics.median(last) / statistics.median(first), 2),
        "cpu_ms_per_prompt_first": round(cpu_first * 1000, 1),
        "cpu_ms_per_prompt_last": round(cpu_last * 1000, 1),
        "cpu_drift_ratio": round(cpu_last / cpu_first, 2) if cpu_first else None,
        "latency_ms_by_decile": [
            round(statistics.median(latencies[k * len(latencies) // 10 : (k + 1) * len(latencies) // 10]) * 1000, 1)
            for k in range(10)
        ],
        "exit_code": rc,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompts", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--rotate", type=int, default=100)
    ap.add_argument("--window", type=int, default=200)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pi-soak-"))
    try:
        figures = soak(a.prompts, a.warmup, a.rotate, min(a.window, a.prompts), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
