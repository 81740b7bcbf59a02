"""What MCP costs at startup: ``pi --mode rpc`` without and with MCP servers configured.

    python bench/mcp_startup_bench.py [-n 9]

For each configuration (no ``mcp.json``; one stdio server with the default ``codemode``
exposure; the same with ``direct`` exposure), with an isolated agent dir and a scripted local
model, it measures from spawn to:

- the first ``get_state`` response (the session runtime is not built yet),
- the first ``get_commands`` response (runtime and extensions loaded),
- the first request reaching the model after a prompt sent at once (with ``direct`` tools the
  prompt waits for the server: its tools must be declared in that request),

and prints medians in ms with the ratio to the run without MCP measured in the same sitting,
plus peak RSS at the ``get_commands`` response. The MCP server is the test suite's demo server
(``tests/mcp/servers/demo_server.py``, the ``mcp`` SDK).
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

from procstat import vmhwm_kb  # noqa: E402 - bench/ is on sys.path (the script's directory)
from scripted_llm import ScriptedLLM, write_agent_config  # noqa: E402

DEMO = str(ROOT / "tests" / "mcp" / "servers" / "demo_server.py")


def _measure(
    env: dict[str, str], cwd: str, command: dict[str, object], until: str, llm: ScriptedLLM | None = None
) -> tuple[float, int | None]:
    argv = [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session"]
    before = len(llm.requests) if llm is not None else 0
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write((json.dumps(command) + "\n").encode())
    proc.stdin.flush()
    hwm = None
    if until == "request":
        assert llm is not None
        while len(llm.requests) == before:
            time.sleep(0.001)
    else:
        while True:
            line = proc.stdout.readline()
            if not line or json.loads(line).get("id") == "x":
                break
    elapsed = (time.perf_counter() - start) * 1000
    hwm = vmhwm_kb(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed, hwm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=9, help="runs per measurement (median reported)")
    opts = parser.parse_args()
    configs = {
        "no mcp.json": None,
        "1 server, codemode": {"demo": {"command": sys.executable, "args": [DEMO]}},
        "1 server, direct": {"demo": {"command": sys.executable, "args": [DEMO], "exposure": "direct"}},
    }
    samples: dict[str, dict[str, list[float]]] = {
        label: {"get_state": [], "get_commands": [], "first request": [], "rss": []} for label in configs
    }
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM({"default": {"text": "ok"}}) as llm:
        envs: dict[str, tuple[dict[str, str], str]] = {}
        for label, servers in configs.items():
            agent = Path(tmp) / label.replace(" ", "_").replace(",", "")
            cwd = agent / "cwd"
            cwd.mkdir(parents=True)
            write_agent_config(str(agent), llm.base_url)
            if servers is not None:
                (agent / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
            envs[label] = (dict(os.environ, PI_CODING_AGENT_DIR=str(agent), HOME=str(agent), PI_OFFLINE="1"), str(cwd))
        # Interleaved, so a change in machine load affects every configuration alike.
        for _ in range(opts.n):
            for label, (env, cwd) in envs.items():
                figures = samples[label]
                figures["get_state"].append(_measure(env, cwd, {"id": "x", "type": "get_state"}, "response")[0])
                ms, hwm = _measure(env, cwd, {"id": "x", "type": "get_commands"}, "response")
                figures["get_commands"].append(ms)
                if hwm:
                    figures["rss"].append(hwm / 1024)
                figures["first request"].append(
                    _measure(env, cwd, {"id": "x", "type": "prompt", "message": "hi"}, "request", llm)[0]
                )
    results = {
        label: {key: statistics.median(values) for key, values in figures.items()} for label, figures in samples.items()
    }
    base = results["no mcp.json"]
    print(f"runs per figure: {opts.n} (medians; ratio to 'no mcp.json' in this run)")
    for label, figures in results.items():
        cells = [
            f"{key} {figures[key]:7.1f} ms ({figures[key] / base[key]:.2f}x)"
            for key in ("get_state", "get_commands", "first request")
        ]
        print(f"{label:20s} " + "  ".join(cells) + f"  RSS {figures['rss']:.1f} MB")


if __name__ == "__main__":
    main()
