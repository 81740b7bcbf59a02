"""What `set_event_options` costs on the streaming hot path, against options off in the same run.

Two measurements:

* whole program: `pi --mode rpc --no-session` answers a prompt with --chunks text deltas from the
  local scripted OpenAI-compatible server; wall time prompt -> `agent_settled`, the CPU time pi
  spent meanwhile (/proc; steadier than wall time on a shared machine) and stdout bytes, for
  each option set (off, seq, runId, seq+runId). The option sets are interleaved round by
  round (--rounds) so machine drift hits them alike; the median per set is compared with "off".
  Against an implementation without `set_event_options` only "off" is measured (that is how
  the figure "before" the feature was taken).
* per record: the writer's encode + enqueue path (`RecordWriter.send_nowait` into an unbounded
  queue, nothing written) for a typical `message_update`, with the options off and on, in
  microseconds per record (best of five passes).

    python bench/event_options_bench.py [--chunks 20000] [--rounds 5] [--records 200000]
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
sys.path.insert(0, str(ROOT))

from procstat import cpu_seconds  # noqa: E402 - bench/ is on sys.path (the script's directory)
from scripted_llm import ScriptedLLM, write_agent_config  # noqa: E402

OPTION_SETS: dict[str, dict[str, bool] | None] = {
    "off": None,
    "seq": {"seq": True},
    "runId": {"runId": True},
    "seq+runId": {"seq": True, "runId": True},
}


class Child:
    def __init__(self, agent_dir: str, cwd: str) -> None:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": cwd,
            "PI_CODING_AGENT_DIR": agent_dir,
            "PI_OFFLINE": "1",
            "PYTHONPATH": str(ROOT),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session"],
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

    def read_until(self, pred) -> tuple[int, dict]:
        assert self.proc.stdout
        nbytes = 0
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise RuntimeError("child exited")
            nbytes += len(raw)
            record = json.loads(raw)
            if pred(record):
                return nbytes, record

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def stream_once(agent: str, cwd: str, options: dict[str, bool] | None) -> tuple[float, int, float] | None:
    child = Child(agent, cwd)
    try:
        if options is not None:
            child.send({"id": "o", "type": "set_event_options", **options})
            _, resp = child.read_until(lambda r: r.get("id") == "o")
            if not resp.get("success"):
                return None  # an implementation without the feature
        child.send({"id": "s", "type": "get_state"})
        child.read_until(lambda r: r.get("id") == "s")
        t, cpu = time.perf_counter(), cpu_seconds(child.proc.pid)
        child.send({"id": "p", "type": "prompt", "message": "stream please"})
        nbytes, _ = child.read_until(lambda r: r.get("type") == "agent_settled")
        return time.perf_counter() - t, nbytes, cpu_seconds(child.proc.pid) - cpu
    finally:
        child.close()


def whole_program(chunks: int, rounds: int) -> dict[str, dict[str, float]]:
    script = {"default": {"repeat": {"chunk": "word ", "count": chunks}}}
    samples: dict[str, list[tuple[float, int, float]]] = {name: [] for name in OPTION_SETS}
    unsupported: set[str] = set()
    with ScriptedLLM(script) as llm, tempfile.TemporaryDirectory() as tmp:
        agent = os.path.join(tmp, "agent")
        cwd = os.path.join(tmp, "cwd")
        os.makedirs(cwd)
        write_agent_config(agent, llm.base_url)
        for _ in range(rounds):
            for name, options in OPTION_SETS.items():
                if name in unsupported:
                    continue
                result = stream_once(agent, cwd, options)
                if result is None:
                    unsupported.add(name)
                    continue
                samples[name].append(result)
    out: dict[str, dict[str, float]] = {}
    for name, values in samples.items():
        if values:
            out[name] = {
                "wall_s_median": round(statistics.median(v[0] for v in values), 3),
                "cpu_s_median": round(statistics.median(v[2] for v in values), 3),
                "stdout_bytes": values[-1][1],
            }
    return out


def per_record(records: int) -> dict[str, float]:
    """Encode + enqueue cost of one message_update with the options off and on (µs)."""
    import anyio

    from pi_rpc.modes.wire.output import RecordWriter

    try:
        from pi_rpc.modes.rpc.event_options import EventOptions
    except ImportError:
        EventOptions = None  # type: ignore[assignment,misc]

    event = {
        "type": "message_update",
        "usage": {
            "input": 12,
            "output": 345,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 357,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "word "},
    }
    results: dict[str, float] = {}

    async def run(name: str, seq: bool, run_id: bool) -> None:
        read_fd, write_fd = os.pipe()
        try:
            writer = RecordWriter(write_fd)
            if EventOptions is not None and (seq or run_id):
                options = EventOptions(writer, ring_records=10_000)
                data = await options.update(seq=seq, run_id=run_id)
                # the response that switches seq on, as the dispatcher would queue it
                send_response = writer.send_nowait
                send_response(
                    {"id": "o", "type": "response", "command": "set_event_options", "success": True, "data": data}
                )
                from pi_rpc.runtime.run_context import bind_run_id

                bind_run_id("run_0190f0e2-0000-7000-8000-000000000000")
            elif seq or run_id:
                return
            send = writer.send_nowait
            queue = writer._queue  # nothing drains it here: clear it between passes
            best = float("inf")
            for _ in range(5):  # best of five passes: the least disturbed by other processes
                queue.clear()
                t = time.perf_counter()
                for _ in range(records // 5):
                    send(event)
                best = min(best, time.perf_counter() - t)
            results[name] = round(best / (records // 5) * 1e6, 3)
        finally:
            os.close(read_fd)
            os.close(write_fd)

    for name, seq, run_id in (
        ("off", False, False),
        ("seq", True, False),
        ("runId", False, True),
        ("seq+runId", True, True),
        ("off again", False, False),
    ):
        anyio.run(run, name, seq, run_id)
    return results


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--skip-micro", action="store_true")
    args = ap.parse_args()
    whole = whole_program(args.chunks, args.rounds)
    print(json.dumps({"whole_program": whole}, indent=2))
    base = whole.get("off")
    if base:
        print("whole program, ratio to options off (wall time; pi's CPU time; stdout bytes):")
        for name, fig in whole.items():
            print(
                f"  {name:10s} {fig['wall_s_median'] / base['wall_s_median']:.3f}  "
                f"{fig['cpu_s_median'] / base['cpu_s_median']:.3f}  {fig['stdout_bytes'] / base['stdout_bytes']:.3f}"
            )
    if not args.skip_micro:
        micro = per_record(args.records)
        print(json.dumps({"per_record_us": micro}, indent=2))
        if "off" in micro:
            print("per record, ratio to options off:")
            for name, value in micro.items():
                print(f"  {name:10s} {value / micro['off']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
