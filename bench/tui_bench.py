"""The interactive terminal (``pi`` with no mode), ours against upstream pi 1.6 in one run.

    python bench/tui_bench.py [--rounds 2] [--size 100x30] [--deltas 500] [--gap-ms 20]
                              [--tui-mode fullscreen|regular] [--ours dev|installed] [--no-upstream]

Each program runs in its own detached tmux session (a real terminal), with its own agent dir
configured for the same local model server (``bench_llm.py``: ``bench:markdown`` streams a
Markdown-heavy answer of ``--deltas`` pieces of about 4 characters, one every ``--gap-ms``, 10 s
by default, a realistic pace). Figures, per program (medians over the rounds; the rounds
alternate which program goes first, so both see the same minutes of the machine):

- ``launch_ms``: spawn -> the editor is ready (the footer shows the model, read with
  ``tmux capture-pane`` every 20 ms);
- ``idle_cpu_s``: CPU seconds (user + system, all threads, ``/proc``) used in 10 s of idling
  with the editor ready, after 2 s to settle (upstream: 0.00);
- ``stream_cpu_s``: CPU seconds from the prompt's Enter until 0.5 s after the answer's last line
  (``END-OF-ANSWER``) is on the screen (the answer's whole rendering);
- ``end_lag_ms``: from the model server's last delta to that last line on the screen (how far
  the drawing runs behind the stream);
- ``rss_mb``: peak RSS (VmHWM) at the end.

Then ours/upstream ratios (lower is better). Upstream is found as the tests find it
(``tests/support/upstream.py``: ``PI_UPSTREAM_NODE_DIR`` or the test cache); without it, only
our figures. Nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "protocol" / "conformance"))

from procstat import cpu_seconds, vmhwm_kb  # noqa: E402 - bench/ is on sys.path (the script's directory)
from runtime_bench import ModelServer, install_ours, upstream_cmd  # noqa: E402
from scripted_llm import write_agent_config  # noqa: E402

READY_MARK = "conf-model"  # the footer names the model once the editor is ready
END_MARK = "END-OF-ANSWER"


class Pane:
    """One program in a detached tmux session; ``pid`` is the program itself (``exec``)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, size: tuple[int, int]) -> None:
        self.name = f"tui-bench-{uuid.uuid4().hex[:8]}"
        # Each pane gets its own tmux server: killing the last session of a shared server races
        # the next pane's new-session ("server exited unexpectedly").
        self.tmux = ["tmux", "-L", self.name, "-f", "/dev/null"]
        env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        command = "exec " + " ".join(_quote(a) for a in argv)
        self.t0 = time.perf_counter()
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-s", self.name, "-x", str(size[0]), "-y", str(size[1]), "-c", cwd]
            + env_args
            + [command],
            check=True,
        )
        out = subprocess.run(
            [*self.tmux, "display-message", "-p", "-t", self.name, "#{pane_pid}"], capture_output=True, text=True
        )
        self.pid = int(out.stdout.strip())

    def screen(self) -> str:
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        ).stdout

    def wait_for(self, text: str, timeout: float = 60.0, poll: float = 0.02) -> float:
        """Seconds since spawn when ``text`` was first seen on the screen."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if text in self.screen():
                return time.perf_counter() - self.t0
            time.sleep(poll)
        raise RuntimeError(f"{text!r} never shown:\n{self.screen()}")

    def type(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "-l", text], check=True)
        time.sleep(0.3)
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "Enter"], check=True)

    def kill(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


def sample(name: str, argv: list[str], base_url: str, tmp: str, args: argparse.Namespace) -> dict[str, float]:
    root = Path(tmp) / f"{name}-{uuid.uuid4().hex[:6]}"
    agent, cwd, home = root / "agent", root / "cwd", root / "home"
    for folder in (cwd, home):
        folder.mkdir(parents=True)
    write_agent_config(str(agent), base_url, settings={"tuiMode": args.tui_mode, "quietStartup": False})
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "PI_TELEMETRY": "0",
        "PI_SKIP_VERSION_CHECK": "1",
    }
    if args.ours == "dev":
        env["PYTHONPATH"] = str(ROOT)  # this worktree's code, whatever the venv has installed
    size = tuple(int(x) for x in args.size.split("x"))
    pane = Pane([*argv, "--no-session"], env, str(cwd), (size[0], size[1]))
    try:
        launch = pane.wait_for(READY_MARK)
        time.sleep(2.0)  # startup work that follows the first frame
        before = cpu_seconds(pane.pid)
        time.sleep(args.idle_seconds)
        idle = cpu_seconds(pane.pid) - before
        log = root / "stamps.json"
        before = cpu_seconds(pane.pid)
        pane.type(f"bench:markdown:{args.deltas}:{int(args.gap_ms * 1000)}:{log}")
        deadline = time.perf_counter() + args.deltas * args.gap_ms / 1000 * 4 + 30
        while not log.exists():
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{name}: the answer never finished:\n{pane.screen()}")
            time.sleep(0.05)
        sent = time.perf_counter() - pane.t0
        # the rendering's tail: until the answer's last line is on the screen, then 0.5 s more
        lag = pane.wait_for(END_MARK, timeout=120) - sent
        time.sleep(0.5)
        stream = cpu_seconds(pane.pid) - before
        rss = (vmhwm_kb(pane.pid) or 0) / 1024
    finally:
        pane.kill()
    return {
        "launch_ms": launch * 1000,
        "idle_cpu_s": idle,
        "stream_cpu_s": stream,
        "end_lag_ms": max(0.0, lag) * 1000,
        "rss_mb": rss,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--size", default="100x30")
    ap.add_argument("--deltas", type=int, default=500)
    ap.add_argument("--gap-ms", type=float, default=20.0)
    ap.add_argument("--idle-seconds", type=float, default=10.0)
    ap.add_argument("--tui-mode", choices=("fullscreen", "regular"), default="fullscreen")
    ap.add_argument("--ours", choices=("dev", "installed"), default="dev", help="python -m pi_rpc, or a pip-style copy")
    ap.add_argument("--no-upstream", action="store_true")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is needed", file=sys.stderr)
        return 2
    server = ModelServer()
    results: dict[str, list[dict[str, float]]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ours = [sys.executable, "-m", "pi_rpc"] if args.ours == "dev" else install_ours(Path(tmp) / "venv-ours")
            targets: list[tuple[str, list[str]]] = [("ours", ours)]
            up = None if args.no_upstream else upstream_cmd()
            if up:
                targets.append(("upstream", up))
            for round_no in range(args.rounds):
                order = targets if round_no % 2 == 0 else list(reversed(targets))
                for name, argv in order:
                    figures = sample(name, argv, server.base_url, tmp, args)
                    results.setdefault(name, []).append(figures)
                    shown = "  ".join(f"{k}={v:.2f}" for k, v in figures.items())
                    print(f"round {round_no + 1} {name:8s} {shown}", flush=True)
    finally:
        server.close()
    print(
        f"\n{args.size}, tuiMode {args.tui_mode}, {args.deltas} deltas every {args.gap_ms:g} ms, "
        f"medians of {args.rounds}:"
    )
    medians: dict[str, dict[str, float]] = {
        name: {key: statistics.median(r[key] for r in runs) for key in runs[0]} for name, runs in results.items()
    }
    keys = list(next(iter(medians.values())))
    print(f"{'':10s}" + "".join(f"{k:>14s}" for k in keys))
    for name, figures in medians.items():
        print(f"{name:10s}" + "".join(f"{figures[k]:14.3f}" for k in keys))
    if "upstream" in medians:
        ratio: dict[str, Any] = {}
        for key in keys:
            base = medians["upstream"][key]
            ratio[key] = medians["ours"][key] / base if base else None
        print(
            f"{'ours/up':10s}" + "".join(f"{v:14.2f}" if v is not None else f"{'(up 0)':>14s}" for v in ratio.values())
        )
    else:
        print("upstream not measured (set PI_UPSTREAM_NODE_DIR): only our figures")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
