"""What a host tool's round trip over stdio adds to a tool call, against a built-in tool in the
same run (protocol/README.md §11.11).

One `pi --mode rpc --no-session` process, the offline faux model scripted to make --calls tool
calls, one per turn, alternating between a host tool (answered by this script the moment its
`host_tool_request` arrives) and the built-in `read` of a one-line file, so both are measured in
the same minutes. For each call the client measures the wall time from the arrival of its
`tool_execution_start` to the arrival of its `tool_execution_end` (everything the call costs as
a client sees it: for the host tool the request record, this client's answer, parsing and
routing it, the result's way back through the pipeline). Printed: p50/p90/p99 of each, the
host tool's extra time over `read` at each percentile (the goal: p99 under 1 ms), the ratio, and
as calibration the round trip of a plain command (`get_protocol_info`) to the same process: the
host tool's exchange is one such round trip, so on a loaded machine the two move together.

    python bench/host_tool_bench.py [--calls 400]
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
HOST_TOOL = {"name": "echo_host", "description": "Echo.", "parameters": {"type": "object", "properties": {}}}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def run(calls: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "agent").mkdir()
        (root / "note.txt").write_text("one line\n")
        turns = []
        for i in range(calls):
            if i % 2 == 0:
                turns.append({"toolCalls": [{"name": "echo_host", "arguments": {}}], "chunkChars": 1000})
            else:
                turns.append({"toolCalls": [{"name": "read", "arguments": {"path": "note.txt"}}], "chunkChars": 1000})
        turns.append({"text": "done"})
        script = root / "script.json"
        script.write_text(json.dumps(turns))
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(root),
            "PI_CODING_AGENT_DIR": str(root / "agent"),
            "PI_OFFLINE": "1",
            "PI_FAUX_SCRIPT": str(script),
            "PYTHONPATH": str(ROOT),
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def send(record: dict) -> None:
            stdin.write(json.dumps(record).encode() + b"\n")
            stdin.flush()

        send({"id": "t", "type": "set_host_tools", "tools": [HOST_TOOL]})
        send({"id": "p", "type": "prompt", "message": "go"})
        started: dict[str, tuple[str, float]] = {}
        samples: dict[str, list[float]] = {"echo_host": [], "read": [], "command": []}
        while True:
            line = stdout.readline()
            now = time.perf_counter()
            if not line:
                raise RuntimeError("pi exited")
            kind = line[10:40]  # cheap pre-filter: most records are message_update
            if b"message_update" in kind:
                continue
            record = json.loads(line)
            rtype = record.get("type")
            if rtype == "host_tool_request":
                send({"type": "host_tool_result", "id": record["id"], "content": [{"type": "text", "text": "ok"}]})
            elif rtype == "tool_execution_start":
                started[record["toolCallId"]] = (record["toolName"], now)
            elif rtype == "tool_execution_end":
                name, t0 = started.pop(record["toolCallId"])
                if record.get("isError"):
                    raise RuntimeError(f"{name} failed: {record['result']}")
                samples[name].append((now - t0) * 1000)
            elif rtype == "agent_settled":
                break
            elif rtype == "response" and not record.get("success"):
                raise RuntimeError(record)
        # Calibration in the same process: a plain command's round trip (get_protocol_info), the
        # floor of any exchange with this process on this machine right now.
        for i in range(220):
            t0 = time.perf_counter()
            send({"id": f"c{i}", "type": "get_protocol_info"})
            while b'"response"' not in stdout.readline():
                pass
            if i >= 20:
                samples["command"].append((time.perf_counter() - t0) * 1000)
        stdin.close()
        proc.wait(timeout=30)
        return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400, help="tool calls in the run (half host, half read)")
    args = parser.parse_args()
    samples = run(args.calls)
    host, builtin = samples["echo_host"], samples["read"]
    # The first calls pay for imports (jsonschema, the validator): warm-up, not round trips.
    host, builtin = host[5:], builtin[5:]
    print(f"calls measured: host {len(host)}, read {len(builtin)} (first 5 of each dropped as warm-up)")
    print(f"{'ms (start->end, client side)':<30}{'p50':>9}{'p90':>9}{'p99':>9}{'mean':>9}")
    for label, values in (("read (built-in baseline)", builtin), ("echo_host (host tool)", host)):
        row = [percentile(values, q) for q in (0.5, 0.9, 0.99)] + [statistics.fmean(values)]
        print(f"{label:<30}" + "".join(f"{v:9.3f}" for v in row))
    extra = [percentile(host, q) - percentile(builtin, q) for q in (0.5, 0.9, 0.99)]
    print(f"{'host - read':<30}" + "".join(f"{v:9.3f}" for v in extra))
    ratios = [percentile(host, q) / percentile(builtin, q) for q in (0.5, 0.9, 0.99)]
    print(f"{'host / read':<30}" + "".join(f"{v:9.2f}" for v in ratios))
    command = samples["command"]
    row = [percentile(command, q) for q in (0.5, 0.9, 0.99)] + [statistics.fmean(command)]
    print(
        f"{'calibration: get_protocol_info':<30}" + "".join(f"{v:9.3f}" for v in row) + "  (round trip, same process)"
    )
    print(f"goal: p99 added latency < 1 ms -> {'met' if extra[2] < 1.0 else 'NOT met'} ({extra[2]:.3f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
