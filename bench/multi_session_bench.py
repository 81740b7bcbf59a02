"""Many sessions in one RPC process (`open_session`, issue 24) against one process per session, in
the same run.

Two measurements, each taken on both sides in one sitting:

* idle: --sessions sessions hosted by one `pi --mode rpc` (its first session plus
  `open_session` for the others, one after another) against as many processes (started
  --batch at a time, each until its first `get_state` answer). Figures: the time until every
  session is ready (one process: spawn -> the last `open_session` answer; processes: the sum
  of the batches' spawn -> last `get_state` answer), the median time to open one more session
  (`open_session` round trip against the spawn -> first answer of a process started alone,
  --startup-samples of them), the CPU time spent,
  and memory once idle (--idle-wait seconds later): the resident set (VmRSS) and the
  proportional set (Pss, shared pages split between the processes that map them), summed over
  the processes. The processes of a batch are measured, then closed before the next batch
  starts, so the machine never holds all of them at once (each one's memory is its own).
* streaming: --concurrent answers of --deltas text deltas each, all prompts sent at once, in
  --concurrent sessions of one process against --concurrent processes. Every session has
  answered one short prompt first (warm: what a long-running service sees). Figures: wall
  time from the first prompt sent to the last `agent_settled` read, and the CPU time (user +
  system) the pi process(es) spent meanwhile. The two sides alternate order over --rounds.

The model is `bench/bench_llm.py` (its own process; every chunk encoded before the first byte
is sent), so it does not pace either side. Both sides keep no session files (`--no-session`,
`noSession: true`). "ours" is this worktree installed as `pip install .` lays it out
(`runtime_bench.install_ours`; --ours dev runs `python -m pi_rpc` instead).

    python bench/multi_session_bench.py [--sessions 100] [--batch 10] [--concurrent 20]
                                        [--deltas 2000] [--rounds 2] [--ours installed|dev]
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "protocol" / "conformance"))

from procstat import cpu_seconds  # noqa: E402 - bench/ is on sys.path (the script's directory)
from runtime_bench import ModelServer, install_ours  # noqa: E402
from scripted_llm import write_agent_config  # noqa: E402

SETTLED = b'{"type":"agent_settled"'
RESPONSE = b'"type":"response"'


def memory_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, Pss) of a live process in KiB."""
    rss = pss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
    except OSError:
        pss = rss
    return rss, pss


class Pi:
    """One `pi --mode rpc --no-session`: stdout read in blocks and split into lines."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str) -> None:
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
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.fd = self.proc.stdout.fileno()
        self.stdin = self.proc.stdin
        self.tail = b""
        self.responses: dict[str, dict[str, Any]] = {}
        self.settled = 0
        self.updates = 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, obj: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(obj).encode() + b"\n")

    def feed(self) -> None:
        """One read: count what arrived (settled runs, message updates) and keep the responses."""
        data = os.read(self.fd, 1 << 20)
        if not data:
            raise RuntimeError(f"pi {self.pid} exited ({self.proc.wait()})")
        lines = (self.tail + data).split(b"\n")
        self.tail = lines.pop()
        for line in lines:
            if line.startswith(SETTLED):
                self.settled += 1
            elif line.startswith(b'{"type":"message_update"'):
                self.updates += 1
            elif RESPONSE in line:
                rec = json.loads(line)
                self.responses[str(rec.get("id"))] = rec

    def request(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.send(obj)
        while obj["id"] not in self.responses:
            self.feed()
        rec = self.responses.pop(obj["id"])
        if not rec.get("success"):
            raise RuntimeError(f"{obj['type']} failed: {rec.get('error')}")
        return rec

    def close(self) -> None:
        self.stdin.close()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def pump(pis: list[Pi], done: Callable[[Pi], bool]) -> None:
    """Read every process's stdout until ``done`` holds for each."""
    sel = selectors.DefaultSelector()
    waiting = 0
    for p in pis:
        if not done(p):
            sel.register(p.fd, selectors.EVENT_READ, p)
            waiting += 1
    while waiting:
        for key, _ in sel.select():
            p = key.data
            p.feed()
            if done(p):
                sel.unregister(p.fd)
                waiting -= 1
    sel.close()


class Side:
    """How both sides start pi: the command, its environment, an agent dir pointing at the model server."""

    def __init__(self, argv: list[str], base_url: str, tmp: str, extra_env: dict[str, str]) -> None:
        self.argv = argv
        agent = os.path.join(tmp, "agent")
        self.cwd = os.path.join(tmp, "cwd")
        os.makedirs(self.cwd, exist_ok=True)
        write_agent_config(agent, base_url)
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": self.cwd,
            "PI_CODING_AGENT_DIR": agent,
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            "PI_SKIP_VERSION_CHECK": "1",
            **extra_env,
        }

    def spawn(self, *extra: str) -> Pi:
        return Pi([*self.argv, *extra], self.env, self.cwd)

    def host(
        self, sessions: int, before_opens: Callable[[Pi], None] | None = None
    ) -> tuple[Pi, list[str | None], list[float]]:
        """One process hosting ``sessions`` sessions: it, their handles (None = the first session's,
        addressed without a handle) and each open_session round trip in ms. ``before_opens`` runs
        once the first session answered."""
        pi = self.spawn("--max-sessions", str(max(sessions, 1)))
        pi.request({"id": "s", "type": "get_state"})
        if before_opens is not None:
            before_opens(pi)
        handles: list[str | None] = [None]
        opens: list[float] = []
        for i in range(sessions - 1):
            start = time.perf_counter()
            data = pi.request({"id": f"o{i}", "type": "open_session", "noSession": True})["data"]
            opens.append((time.perf_counter() - start) * 1000)
            handles.append(data["handle"])
        return pi, handles, opens


def idle_one(side: Side, sessions: int, idle_wait: float) -> dict[str, Any]:
    first: dict[str, float] = {}

    def first_session(pi: Pi) -> None:
        # Its memory with one session, once the work that follows startup is done; the pause is
        # left out of the time to open.
        first["ready_s"] = time.perf_counter() - pi.t0
        time.sleep(idle_wait)
        first["rss_kb"] = memory_kb(pi.pid)[0]
        first["paused"] = time.perf_counter()

    pi, _handles, opens = side.host(sessions, first_session)
    ready_s = first["ready_s"] + time.perf_counter() - first["paused"]
    cpu = cpu_seconds(pi.pid)
    time.sleep(idle_wait)
    rss, pss = memory_kb(pi.pid)
    pi.close()
    return {
        "ready_s": round(ready_s, 3),
        "open_ms_median": round(statistics.median(opens), 1) if opens else None,
        "cpu_s": round(cpu, 2),
        "rss_mb": round(rss / 1024, 1),
        "pss_mb": round(pss / 1024, 1),
        "rss_mb_first_session_only": round(first["rss_kb"] / 1024, 1),
        "rss_kb_per_extra_session": round((rss - first["rss_kb"]) / max(1, sessions - 1), 1),
    }


def startup_alone(side: Side, samples: int) -> list[float]:
    """Spawn -> first get_state answer of processes started one at a time (ms)."""
    out = []
    for _ in range(samples):
        p = side.spawn()
        p.request({"id": "s", "type": "get_state"})
        out.append((time.perf_counter() - p.t0) * 1000)
        p.close()
    return out


def idle_many(side: Side, sessions: int, batch: int, idle_wait: float, samples: int) -> dict[str, Any]:
    ready_s = cpu = 0.0
    rss = pss = 0
    startups = startup_alone(side, samples)
    left = sessions
    while left:
        n = min(batch, left)
        left -= n
        start = time.perf_counter()
        pis = [side.spawn() for _ in range(n)]
        for p in pis:
            p.send({"id": "s", "type": "get_state"})
        ready: dict[int, float] = {}

        def answered(p: Pi) -> bool:
            if "s" in p.responses and p.pid not in ready:
                ready[p.pid] = time.perf_counter()
            return "s" in p.responses

        pump(pis, answered)
        ready_s += max(ready.values()) - start
        cpu += sum(cpu_seconds(p.pid) for p in pis)
        time.sleep(idle_wait)
        for p in pis:
            r, s = memory_kb(p.pid)
            rss += r
            pss += s
        for p in pis:
            p.close()
    return {
        "ready_s": round(ready_s, 3),
        "open_ms_median": round(statistics.median(startups), 1),
        "cpu_s": round(cpu, 2),
        "rss_mb": round(rss / 1024, 1),
        "pss_mb": round(pss / 1024, 1),
    }


def _prompt_all(pis: list[Pi], targets: list[tuple[Pi, str | None]], message: str, tag: str) -> None:
    for i, (p, handle) in enumerate(targets):
        cmd: dict[str, Any] = {"id": f"{tag}{i}", "type": "prompt", "message": message}
        if handle is not None:
            cmd["handle"] = handle
        p.send(cmd)
    want = {id(p): p.settled + sum(1 for q, _ in targets if q is p) for p in pis}
    pump(pis, lambda p: p.settled >= want[id(p)])


def stream(side: Side, concurrent: int, deltas: int, one_process: bool) -> dict[str, Any]:
    if one_process:
        pi, handles, _ = side.host(concurrent)
        pis = [pi]
        targets = [(pi, h) for h in handles]
    else:
        pis = [side.spawn() for _ in range(concurrent)]
        for p in pis:
            p.send({"id": "s", "type": "get_state"})
        pump(pis, lambda p: "s" in p.responses)
        targets = [(p, None) for p in pis]
    _prompt_all(pis, targets, "warm up", "w")
    for p in pis:
        p.updates = 0
    cpu0 = sum(cpu_seconds(p.pid) for p in pis)
    start = time.perf_counter()
    _prompt_all(pis, targets, f"bench:stream:{deltas}", "p")
    wall = time.perf_counter() - start
    cpu = sum(cpu_seconds(p.pid) for p in pis) - cpu0
    updates = sum(p.updates for p in pis)
    for p in pis:
        p.close()
    if updates < concurrent * deltas:
        raise RuntimeError(f"only {updates} message_update records for {concurrent} x {deltas} deltas")
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 2)}


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.3f}" if a is not None and b else "n/a"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=100, help="idle sessions (one process) / processes")
    ap.add_argument("--batch", type=int, default=10, help="processes started (and measured) at a time")
    ap.add_argument("--startup-samples", type=int, default=5, help="processes started alone for the time to open one")
    ap.add_argument("--idle-wait", type=float, default=1.0, help="seconds between ready and the memory reading")
    ap.add_argument("--concurrent", type=int, default=20, help="concurrent answers (sessions / processes)")
    ap.add_argument("--deltas", type=int, default=2000, help="text deltas per answer")
    ap.add_argument("--rounds", type=int, default=2, help="streaming samples per side (order alternates)")
    ap.add_argument("--ours", choices=("installed", "dev"), default="installed")
    ap.add_argument("--skip-idle", action="store_true")
    ap.add_argument("--skip-stream", action="store_true")
    args = ap.parse_args()
    load_before = os.getloadavg()
    server = ModelServer()
    results: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            extra_env: dict[str, str] = {}
            if args.ours == "installed":
                argv = install_ours(Path(tmp) / "venv")
            else:
                argv = [sys.executable, "-m", "pi_rpc"]
                extra_env["PYTHONPATH"] = str(ROOT)
            side = Side(argv, server.base_url, tmp, extra_env)
            if not args.skip_idle:
                results["idle"] = {
                    "one_process": idle_one(side, args.sessions, args.idle_wait),
                    "processes": idle_many(side, args.sessions, args.batch, args.idle_wait, args.startup_samples),
                }
            if not args.skip_stream:
                walls: dict[str, list[dict[str, Any]]] = {"one_process": [], "processes": []}
                for r in range(args.rounds):
                    for one in (True, False) if r % 2 == 0 else (False, True):
                        sample = stream(side, args.concurrent, args.deltas, one)
                        walls["one_process" if one else "processes"].append(sample)
                results["stream"] = {
                    name: {
                        "wall_s": round(statistics.median(s["wall_s"] for s in samples), 3),
                        "cpu_s": round(statistics.median(s["cpu_s"] for s in samples), 2),
                        "samples": samples,
                    }
                    for name, samples in walls.items()
                }
    finally:
        server.close()
    results["params"] = {k: v for k, v in vars(args).items() if not k.startswith("skip")}
    results["loadavg_before_after"] = [round(load_before[0], 2), round(os.getloadavg()[0], 2)]
    print(json.dumps(results, indent=2))
    print("ratios one process / one process per session (lower is better):")
    for part, keys in (
        ("idle", ("rss_mb", "pss_mb", "ready_s", "open_ms_median", "cpu_s")),
        ("stream", ("wall_s", "cpu_s")),
    ):
        if part not in results:
            continue
        one, many = results[part]["one_process"], results[part]["processes"]
        for key in keys:
            print(f"  {part:6s} {key:15s} {one[key]!s:>10} / {many[key]!s:>10} = {_ratio(one[key], many[key])}")
    if "idle" in results:
        one = results["idle"]["one_process"]
        print(
            f"  one process: {one['rss_mb_first_session_only']} MB with its first session, "
            f"+{one['rss_kb_per_extra_session']} KB per extra idle session"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
