"""SSE-to-event throughput of the openai-completions provider.

Serves a 20,000-delta Chat Completions stream (the shape the upstream oracle's fake server sends)
from a local 127.0.0.1 server, then in the same run measures:
  1. raw: reading the same bytes with httpx (``aiter_bytes``), no parsing;
  2. sse: raw read + our SSE parser (events only);
  3. stream: ``pi_rpc.ai.stream()`` end to end (SSE, JSON, events, final message).
Prints MB/s and events/s for each. Usage: ``python bench/sse_bench.py [--deltas N] [--runs R]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_rpc.ai.sse import SSEParser  # noqa: E402
from pi_rpc.ai.stream import stream  # noqa: E402
from pi_rpc.ai.types import Context, StreamOptions  # noqa: E402


def build_body(n: int) -> bytes:
    base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "bench-model"}
    out = []

    def emit(obj: dict) -> None:
        out.append(b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n")

    emit({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})
    for i in range(n):
        emit({**base, "choices": [{"index": 0, "delta": {"content": f"tok{i % 10} "}, "finish_reason": None}]})
    emit({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    emit({**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": n, "total_tokens": n + 10}})
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def serve(body: bytes) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            view = memoryview(body)
            for i in range(0, len(body), 16384):  # network-sized writes
                self.wfile.write(view[i : i + 16384])
            self.wfile.flush()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd


async def raw_read(url: str, parse: bool) -> tuple[float, int, int]:
    async with httpx.AsyncClient() as client:
        t0 = time.perf_counter()
        nbytes = nevents = 0
        parser = SSEParser()
        async with client.stream("POST", url, content=b"{}") as resp:
            async for chunk in resp.aiter_bytes():
                nbytes += len(chunk)
                if parse:
                    nevents += len(parser.feed(chunk))
        if parse:
            nevents += len(parser.flush())
        return time.perf_counter() - t0, nbytes, nevents


async def via_stream(base_url: str) -> tuple[float, int, str]:
    model = {
        "id": "bench-model",
        "name": "Bench",
        "api": "openai-completions",
        "provider": "bench",
        "baseUrl": base_url,
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 4096,
    }
    ctx = Context(messages=[{"role": "user", "content": "go", "timestamp": 1}])
    t0 = time.perf_counter()
    n = 0
    last = ""
    async for ev in stream(model, ctx, StreamOptions(api_key="bench")):
        n += 1
        last = ev["type"]
    return time.perf_counter() - t0, n, last


async def main(deltas: int, runs: int) -> None:
    body = build_body(deltas)
    httpd = serve(body)
    port = httpd.server_address[1]
    url = f"http://127.0.0.1:{port}"
    results: dict[str, list[float]] = {"raw": [], "sse": [], "stream": []}
    counts: dict[str, int] = {}
    try:
        for _ in range(runs):
            dt, nbytes, _ = await raw_read(url + "/v1/chat/completions", parse=False)
            results["raw"].append(dt)
            dt, _, nev = await raw_read(url + "/v1/chat/completions", parse=True)
            results["sse"].append(dt)
            counts["sse"] = nev
            dt, nev, last = await via_stream(url + "/v1")
            assert last == "done", last
            results["stream"].append(dt)
            counts["stream"] = nev
    finally:
        httpd.shutdown()
    mb = len(body) / 1e6
    print(f"body: {len(body):,} bytes, {deltas:,} text deltas, best of {runs} runs")
    for name in ("raw", "sse", "stream"):
        best = min(results[name])
        med = statistics.median(results[name])
        line = f"{name:>6}: best {best * 1000:8.1f} ms  median {med * 1000:8.1f} ms  {mb / best:8.1f} MB/s"
        if name in counts:
            line += f"  {counts[name] / best:12,.0f} events/s ({counts[name]:,} events)"
        print(line)
    print(f"stream() costs {min(results['stream']) / min(results['raw']):.1f}x a raw httpx read of the same bytes")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deltas", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    anyio.run(main, args.deltas, args.runs)
