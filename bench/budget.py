"""Where the time of `pi --mode rpc` goes: the startup budget by phase and the streaming budget
per delta by stage (the figures of ``bench/README.md``).

Startup (``--startup-runs`` fresh processes, medians): a child interpreter of the installed
copy (``runtime_bench.install_ours``) runs the steps of ``pi_rpc.modes.rpc.main.run_rpc_mode``
one after the other and stamps each with ``time.perf_counter_ns()`` (CLOCK_MONOTONIC, so the
parent's stamp taken just before the spawn is on the same clock):

  * interpreter: spawn -> the first statement (CPython, site, the .pth of the install);
  * entry imports: the modules the console script and the early answer import at module level;
  * settings, model registry, session creation: ``Settings.load``, ``ModelRegistry(...)``,
    the factory's ``_open_session`` (each with the lazy imports it triggers);
  * other options: the rest of ``build_runtime_options`` (model resolution, extension
    discovery);
  * first response: ``answer_first_commands`` reading one waiting ``get_state`` and writing
    its answer;
  * after the answer (not on the first response's path, but before the first prompt is
    served): malloc settings (ctypes), runtime imports (with asyncio and anyio's backend),
    ``AgentSession`` construction, server imports, and the first request's preparation
    (``ai.warmup.warm_up``: provider module, HTTP stack, client transport).

Per delta (``--deltas``, default 100,000): a process answers a short prompt, then a prompt of N
text deltas from ``bench/bench_llm.py``; its CPU time (utime + stime from /proc) over that
answer / N is the per-delta cost. A second process does the same under ``py-spy`` (``--py-spy``,
or ``py-spy`` on PATH; ``pip install py-spy``), a sampling profiler outside the process: unlike
cProfile it adds nothing to each call, so the shares are those of the real code. Each sample of
the serving process (startup and imports left out) goes to the stage of its innermost frame
that belongs to one (``STAGES``); a stage's figure is its share of the samples times the
per-delta CPU time.

    python bench/budget.py [--startup-runs 15] [--deltas 100000] [--rate 1000] [--py-spy PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import runtime_bench  # noqa: E402
from procstat import cpu_seconds  # noqa: E402 - bench/ is on sys.path (the script's directory)

# The child: run_rpc_mode's steps with stamps (stdout is left alone: the answer goes to a pipe).
STARTUP_CHILD = r"""
import time
T = [("start", time.perf_counter_ns())]
def stamp(name):
    T.append((name, time.perf_counter_ns()))
import json, os, sys
from pi_rpc.cli import main  # what the console script imports
from pi_rpc.config.cli_args import parse_args
import pi_rpc.modes.rpc.main as rpc_main
import pi_rpc.modes.wire.output
import pi_rpc.runtime.factory as factory
import pi_rpc.modes.rpc.early as early
stamp("entry imports")
args = parse_args(["--mode", "rpc", "--no-session"])
spent = {}
def timed(name, fn):
    def wrapper(*a, **k):
        t = time.perf_counter_ns()
        try:
            return fn(*a, **k)
        finally:
            spent[name] = spent.get(name, 0) + time.perf_counter_ns() - t
    return wrapper
factory.Settings.load = timed("settings", factory.Settings.load)
factory.ModelRegistry = timed("model registry", factory.ModelRegistry)
factory._open_session = timed("session creation", factory._open_session)
early.answer_first_commands = timed("first response", early.answer_first_commands)
stdin_r, stdin_w = os.pipe()
out_r, out_w = os.pipe()
os.write(stdin_w, b'{"id":"s","type":"get_state"}\n')
t = time.perf_counter_ns()
options, so_far = rpc_main.start_early(args, out_w, input_fd=stdin_r)
early_ns = time.perf_counter_ns() - t
assert b'"success":true' in os.read(out_r, 1 << 20) and so_far is not None and not so_far.frames
stamp("answered")
from pi_rpc.modes.heap import limit_heap_retention
limit_heap_retention()
stamp("heap limit (ctypes)")
import pi_rpc.modes.rpc.runtime_backend, pi_rpc.runtime.session
import asyncio, anyio.lowlevel, anyio._backends._asyncio  # (the first anyio.Event() imports them)
stamp("runtime imports")
backend = rpc_main.create_backend(args, options)
stamp("runtime construction")
import pi_rpc.modes.rpc.server
stamp("server imports")
from pi_rpc.ai.warmup import warm_up
warm_up(str(options.model["api"]), str(options.model["baseUrl"]))
stamp("first request preparation")
phases = {}
prev = T[0][1]
for name, at in T[1:]:
    phases[name] = (at - prev) / 1e6
    prev = at
inner = {k: v / 1e6 for k, v in spent.items()}
phases["other options"] = (early_ns / 1e6) - sum(inner.values())
phases.pop("answered")
phases.update(inner)
print(json.dumps({"t0_ns": T[0][1], "phases": phases}))
"""

ORDER = [
    "interpreter",
    "entry imports",
    "settings",
    "model registry",
    "session creation",
    "other options",
    "first response",
    "heap limit (ctypes)",
    "runtime imports",
    "runtime construction",
    "server imports",
    "first request preparation",
]
AFTER_ANSWER = ORDER.index("heap limit (ctypes)")

# (stage, [(file suffix, function name or "*")]); the innermost frame that matches decides.
STAGES: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "write (writer task, os.write)",
        [
            ("pi_rpc/modes/wire/output.py", "RecordWriter.run"),
            ("pi_rpc/modes/wire/output.py", "RecordWriter._write_all"),
        ],
    ),
    (
        "serialisation (orjson + checks)",
        [("pi_rpc/modes/wire/jsonout.py", "*"), ("pi_rpc/ai/jsjson.py", "dumps_normalized")],
    ),
    ("wire transform", [("pi_rpc/modes/wire/event_transform.py", "*")]),
    (
        "enqueue + rpc event",
        [
            ("pi_rpc/modes/wire/output.py", "*"),
            ("pi_rpc/modes/rpc/events.py", "*"),
            ("pi_rpc/modes/rpc/runtime_backend.py", "*"),
        ],
    ),
    ("session event", [("pi_rpc/runtime/session.py", "*"), ("pi_rpc/runtime/store_faults.py", "*")]),
    ("agent event", [("pi_rpc/agent/", "*")]),
    ("provider parse (SSE, JSON, event)", [("pi_rpc/ai/", "*")]),
    ("socket read (httpx, httpcore, h11)", [("httpx/", "*"), ("httpcore/", "*"), ("h11/", "*")]),
    ("event loop (asyncio, anyio)", [("asyncio/", "*"), ("anyio/", "*"), ("selectors.py", "*")]),
]


def _frame_stage(frame: str) -> str | None:
    # py-spy raw frames look like "func (path/to/file.py:123)"
    func, _, where = frame.rpartition(" (")
    path = where.rsplit(":", 1)[0]
    for stage, rules in STAGES:
        for suffix, name in rules:
            if (suffix in path) and (name == "*" or func == name):
                return stage
    return None


def startup_budget(argv_python: str, runs: int, env: dict[str, str], cwd: str) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in ORDER}
    for _ in range(runs):
        t_spawn = time.perf_counter_ns()
        out = subprocess.run([argv_python, "-c", STARTUP_CHILD], capture_output=True, env=env, cwd=cwd, check=True)
        result = json.loads(out.stdout)
        samples["interpreter"].append((result["t0_ns"] - t_spawn) / 1e6)
        for name, ms in result["phases"].items():
            samples[name].append(ms)
    return {name: round(statistics.median(values), 2) for name, values in samples.items()}


def delta_budget(pi: list[str], spy: str, deltas: int, rate: int, base_url: str, tmp: str) -> dict[str, object]:
    agent, cwd = os.path.join(tmp, "agent"), os.path.join(tmp, "cwd")
    raw = os.path.join(tmp, "spy.txt")

    def answer(argv: list[str]) -> tuple[float, float]:
        child = runtime_bench.Child(argv, agent, cwd, {})
        child.get_state()
        child.send({"id": "w", "type": "prompt", "message": "warm up"})
        child.read_until(lambda line: line.startswith(runtime_bench.SETTLED))
        cpu = cpu_seconds(child.proc.pid)
        t = time.perf_counter()
        child.send({"id": "p", "type": "prompt", "message": f"bench:stream:{deltas}"})
        child.read_until(lambda line: line.startswith(runtime_bench.SETTLED))
        wall = time.perf_counter() - t
        cpu = cpu_seconds(child.proc.pid) - cpu
        child.close()
        return wall, cpu

    wall, cpu = answer(pi)
    # py-spy in its default (blocking) mode: it pauses the process for each sample, so the
    # stacks are whole; the process runs slower, but the shares of the stages hold.
    answer([spy, "record", "--rate", str(rate), "--format", "raw", "--output", raw, "--", *pi])
    per_stage: Counter[str] = Counter()
    total = 0
    with open(raw) as fh:
        for line in fh:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            # The server at work (not startup, not an import); the warm-up prompt's samples are few.
            if any("run_to_exit_code" in f for f in frames) and not any("_find_and_load" in f for f in frames):
                stage = next((s for s in map(_frame_stage, reversed(frames)) if s), "other")
                per_stage[stage] += int(count)
                total += int(count)
    cpu_us = cpu / deltas * 1e6
    return {
        "wall_s": round(wall, 3),
        "wall_us_per_delta": round(wall / deltas * 1e6, 2),
        "cpu_us_per_delta": round(cpu_us, 2),
        "stage_us_per_delta": {stage: round(n / total * cpu_us, 2) for stage, n in per_stage.most_common()},
        "samples": total,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--startup-runs", type=int, default=15)
    ap.add_argument("--deltas", type=int, default=100_000)
    ap.add_argument("--rate", type=int, default=1000, help="py-spy samples per second")
    ap.add_argument("--py-spy", default=shutil.which("py-spy"))
    args = ap.parse_args()
    report: dict[str, object] = {"loadavg_before": round(os.getloadavg()[0], 2)}
    server = runtime_bench.ModelServer()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            pi = runtime_bench.install_ours(Path(tmp) / "venv")
            python = str(Path(tmp) / "venv" / "bin" / "python")
            agent, cwd = os.path.join(tmp, "agent"), os.path.join(tmp, "cwd")
            os.makedirs(cwd)
            runtime_bench.write_agent_config(agent, server.base_url)
            env = {"PATH": os.environ.get("PATH", ""), "HOME": cwd, "PI_CODING_AGENT_DIR": agent, "PI_OFFLINE": "1"}
            bare = []
            for _ in range(args.startup_runs):
                t = time.perf_counter()
                subprocess.run([python, "-c", "pass"], env=env, cwd=cwd, check=True)
                bare.append((time.perf_counter() - t) * 1000)
            startup = startup_budget(python, args.startup_runs, env, cwd)
            report["startup_ms"] = startup
            report["startup_ms_to_first_response"] = round(sum(startup[k] for k in ORDER[:AFTER_ANSWER]), 2)
            report["startup_ms_after_first_response"] = round(sum(startup[k] for k in ORDER[AFTER_ANSWER:]), 2)
            report["bare_interpreter_run_ms"] = round(statistics.median(bare), 2)
            if args.py_spy:
                report["per_delta"] = delta_budget(pi, args.py_spy, args.deltas, args.rate, server.base_url, tmp)
            else:
                report["per_delta"] = "skipped: py-spy not found (pip install py-spy, or --py-spy PATH)"
    finally:
        server.close()
    report["loadavg_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
