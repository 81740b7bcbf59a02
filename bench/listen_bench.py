"""``pi --mode rpc --listen`` (issue 34): what serving clients over sockets costs, each figure next
to a baseline measured in the same run.

* throughput: one streamed answer of --deltas deltas (the offline faux model, no pacing) read by
  1 and by --clients Unix-socket connections attached to the session, against the same answer
  read over plain stdio (``pi --mode rpc``, no --listen). Figure: events per second delivered to
  each client (prompt sent -> its ``agent_settled``), ratio to stdio.
* latency: a paced answer (--paced-deltas deltas, --gap-ms apart) on ``--listen … --stdio`` with
  --clients socket connections: for every event, its arrival on each socket minus its arrival on
  stdio (same seq, same process, read by one selector loop in this process). Figures: p50/p99 of
  that added latency (ms).
* idle connections: VmRSS of the server before and after --idle authenticated TCP connections
  that do nothing: KiB per connection.
* accepts: --accepts connections opened one after another, each answering one ``get_state``
  (Unix socket, then TCP with the token): connections per second, against the same loop against
  a minimal asyncio JSONL server run by this script (the floor for connect + one round trip).

    python bench/listen_bench.py [--deltas 20000] [--clients 20] [--paced-deltas 400] [--gap-ms 2]
                                 [--idle 200] [--accepts 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.pi_process import isolated_env  # noqa: E402

SETTLED = b'"type":"agent_settled"'


def _script(path: Path, deltas: int, gap_ms: int) -> None:
    text = "x" * deltas
    path.write_text(json.dumps([{"text": text, "chunkChars": 1, "delayMs": gap_ms}]))


def _env(root: Path, script: Path) -> dict[str, str]:
    env = isolated_env(root)
    env["PI_FAUX_SCRIPT"] = str(script)
    return env


def _spawn(root: Path, script: Path, *args: str) -> subprocess.Popen[bytes]:
    (root / "cwd").mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session", *args],
        cwd=root / "cwd",
        env=_env(root, script),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _listening(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit("server exited before listening")
        if line.startswith(b'{"listening"'):
            threading.Thread(target=lambda: proc.stderr.read(), daemon=True).start()  # type: ignore[union-attr]
            return dict(json.loads(line))


class Reader:
    """Many byte streams read by one selector loop; each line timestamped on arrival."""

    def __init__(self) -> None:
        self.sel = selectors.DefaultSelector()
        self.lines: dict[int, list[tuple[float, bytes]]] = {}
        self._pending: dict[int, bytes] = {}

    def add(self, key: int, fileobj: Any) -> None:
        self.lines[key] = []
        self._pending[key] = b""
        self.sel.register(fileobj, selectors.EVENT_READ, key)

    def run_until(self, done: Any, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not done() and time.monotonic() < deadline:
            ready = self.sel.select(0.5)
            now = time.perf_counter()  # (one stamp for everything that was ready together)
            for sk, _ in ready:
                key = sk.data
                fd = sk.fileobj if isinstance(sk.fileobj, int) else sk.fileobj.fileno()  # type: ignore[union-attr]
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    self.sel.unregister(sk.fileobj)
                    continue
                data = self._pending[key] + chunk
                *complete, self._pending[key] = data.split(b"\n")
                self.lines[key].extend((now, line) for line in complete)

    def settled(self, key: int) -> bool:
        return any(SETTLED in line for _, line in self.lines[key][-3:])


def _unix(path: str) -> socket.socket:
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s


def throughput(root: Path, deltas: int, clients: int) -> dict[str, float]:
    script = root / "script.json"
    _script(script, deltas, 0)
    out: dict[str, float] = {}
    # stdio baseline
    proc = _spawn(root / "stdio", script)
    assert proc.stdin is not None and proc.stdout is not None
    reader = Reader()
    reader.add(0, proc.stdout)
    proc.stdin.write(b'{"id":"w","type":"get_state"}\n')
    proc.stdin.flush()
    reader.run_until(lambda: bool(reader.lines[0]))
    start = time.perf_counter()
    proc.stdin.write(b'{"id":"p","type":"prompt","message":"go"}\n')
    proc.stdin.flush()
    reader.run_until(lambda: reader.settled(0))
    events = sum(1 for _, line in reader.lines[0] if b'"type":"response"' not in line)
    out["stdio_events_per_s"] = events / (reader.lines[0][-1][0] - start)
    proc.kill()
    for count in (1, clients):
        sock_path = str(root / f"l{count}.sock")
        proc = _spawn(root / f"listen{count}", script, "--listen", f"unix:{sock_path}")
        _listening(proc)
        reader = Reader()
        socks = [_unix(sock_path) for _ in range(count)]
        for i, s in enumerate(socks):
            reader.add(i, s)
        for s in socks:  # every client attached (its first answer) before the run starts
            s.sendall(b'{"id":"w","type":"get_state"}\n')
        reader.run_until(lambda: all(reader.lines[i] for i in range(count)))
        start = time.perf_counter()
        socks[0].sendall(b'{"id":"p","type":"prompt","message":"go"}\n')
        reader.run_until(lambda: all(reader.settled(i) for i in range(count)))
        rates = []
        for i in range(count):
            events = sum(1 for _, line in reader.lines[i] if b'"type":"response"' not in line)
            rates.append(events / (reader.lines[i][-1][0] - start))
        out[f"listen_{count}_events_per_s_per_client"] = statistics.median(rates)
        out[f"listen_{count}_ratio_to_stdio"] = statistics.median(rates) / out["stdio_events_per_s"]
        for s in socks:
            s.close()
        proc.kill()
    return out


def latency(root: Path, deltas: int, gap_ms: int, clients: int) -> dict[str, float]:
    script = root / "paced.json"
    _script(script, deltas, gap_ms)
    sock_path = str(root / f"lat{clients}.sock")
    proc = _spawn(root / f"latency{clients}", script, "--listen", f"unix:{sock_path}", "--stdio")
    _listening(proc)
    assert proc.stdin is not None and proc.stdout is not None
    reader = Reader()
    reader.add(0, proc.stdout)
    socks = [_unix(sock_path) for _ in range(clients)]
    for i, s in enumerate(socks, start=1):
        reader.add(i, s)
        s.sendall(b'{"id":"s","type":"set_event_options","seq":true}\n')
    reader.run_until(lambda: all(reader.lines[i] for i in range(1, clients + 1)))
    proc.stdin.write(b'{"id":"s","type":"set_event_options","seq":true}\n{"id":"p","type":"prompt","message":"go"}\n')
    proc.stdin.flush()
    reader.run_until(lambda: all(reader.settled(i) for i in range(clients + 1)))
    arrivals: list[dict[int, float]] = []
    for i in range(clients + 1):
        by_seq: dict[int, float] = {}
        for t, line in reader.lines[i]:
            if b'"type":"response"' in line:
                continue
            by_seq[json.loads(line)["seq"]] = t
        arrivals.append(by_seq)
    added = [(arrivals[i][seq] - t0) * 1000 for seq, t0 in arrivals[0].items() for i in range(1, clients + 1)]
    added.sort()
    proc.kill()
    return {
        f"latency_{clients}_events": len(arrivals[0]),
        f"added_latency_{clients}_p50_ms": added[len(added) // 2],
        f"added_latency_{clients}_p90_ms": added[int(len(added) * 0.90)],
        f"added_latency_{clients}_p99_ms": added[int(len(added) * 0.99)],
    }


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _round_trip(s: socket.socket) -> None:
    s.sendall(b'{"id":1,"type":"get_state"}\n')
    data = b""
    while b"\n" not in data:
        data += s.recv(65536)


def idle_and_accepts(root: Path, idle: int, accepts: int) -> dict[str, float]:
    script = root / "empty.json"
    script.write_text("[]")
    sock_path = str(root / "idle.sock")
    proc = _spawn(root / "idle", script, "--listen", f"unix:{sock_path}", "--listen", "tcp:127.0.0.1:0",
                  "--max-connections", str(idle + 10))  # fmt: skip
    info = _listening(proc)
    token = Path(info["tokenFile"]).read_text().strip()
    host, _, port = info["listening"][1][4:].rpartition(":")
    warm = _unix(sock_path)
    _round_trip(warm)
    time.sleep(0.5)
    before = _rss_kb(proc.pid)
    held = []
    for _ in range(idle):
        s = socket.create_connection((host, int(port)))
        s.sendall(json.dumps({"type": "authenticate", "token": token}).encode() + b"\n")
        s.recv(4096)
        held.append(s)
    time.sleep(0.5)
    after = _rss_kb(proc.pid)
    for s in held:
        s.close()
    out: dict[str, float] = {"rss_kib_per_idle_connection": (after - before) / idle}

    def loop(connect: Any) -> float:
        start = time.perf_counter()
        for _ in range(accepts):
            s = connect()
            _round_trip(s)
            s.close()
        return accepts / (time.perf_counter() - start)

    out["accepts_per_s_unix"] = loop(lambda: _unix(sock_path))

    def tcp() -> socket.socket:
        s = socket.create_connection((host, int(port)))
        s.sendall(json.dumps({"type": "authenticate", "token": token}).encode() + b"\n")
        return s

    out["accepts_per_s_tcp_with_token"] = loop(tcp)
    proc.kill()
    # The floor: a minimal asyncio JSONL server in a thread of this process.
    ready = threading.Event()
    floor_path = str(root / "floor.sock")

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.readline():
            writer.write(b'{"type":"response","command":"get_state","success":true}\n')
            await writer.drain()
        writer.close()

    def serve() -> None:
        async def main() -> None:
            server = await asyncio.start_unix_server(handle, floor_path)
            ready.set()
            async with server:
                await server.serve_forever()

        asyncio.run(main())

    threading.Thread(target=serve, daemon=True).start()
    ready.wait(10)
    out["accepts_per_s_floor_asyncio"] = loop(lambda: _unix(floor_path))
    out["accepts_ratio_unix_to_floor"] = out["accepts_per_s_unix"] / out["accepts_per_s_floor_asyncio"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deltas", type=int, default=20000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--paced-deltas", type=int, default=400)
    parser.add_argument("--gap-ms", type=int, default=2)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--accepts", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="listen-bench-") as tmp:
        root = Path(tmp)
        os.chmod(root, 0o700)
        figures: dict[str, float] = {}
        figures.update(throughput(root, args.deltas, args.clients))
        figures.update(latency(root, args.paced_deltas, args.gap_ms, 1))
        figures.update(latency(root, args.paced_deltas, args.gap_ms, args.clients))
        figures.update(idle_and_accepts(root, args.idle, args.accepts))
    for key, value in figures.items():
        print(f"{key:42s} {value:12.2f}")


if __name__ == "__main__":
    main()
