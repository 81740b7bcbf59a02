"""A scripted OpenAI-compatible chat-completions server for the whole-program benchmarks,
cheap enough that it never paces the implementation it serves.

It sends the same SSE chunks as ``protocol/conformance/scripted_llm.py`` (same JSON shape and
formatting), but every chunk of a turn is encoded before the first byte is sent, and it runs
in its own process (``python bench/bench_llm.py``: prints ``LISTENING <port>``, serves until
stdin closes), so neither its JSON encoding nor its GIL competes with the benchmark's reader.

The turn is chosen by a directive in the request body (the user's prompt text):

- ``bench:stream:N``: N text deltas ``"word "`` sent back to back (one socket write each);
- ``bench:paced:N:GAP_US:LOG``: N deltas ``"w<i> "`` one every GAP_US microseconds; the
  ``time.perf_counter_ns()`` just before each delta's write is saved to the file LOG as a JSON
  list once the turn ends (``CLOCK_MONOTONIC``: comparable with the reader's clock in another
  process), so a reader can compute the per-delta latency write -> read;
- ``bench:markdown:N:GAP_US:LOG``: a Markdown-heavy answer (headings, lists, emphasis, inline
  code, fenced code, a table) cut into N deltas of about 4 characters (a token's size), one every
  GAP_US microseconds, ending with ``END-OF-ANSWER``; LOG as for ``paced``, ``-`` for none
  (``tui_bench.py``'s realistic stream);
- anything else: a short answer of 8 deltas.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
from typing import Any

_DIRECTIVE = re.compile(rb"bench:(stream|paced|markdown):([0-9]+)(?::([0-9]+):([^\"\\\s]+))?")

MARKDOWN_SECTION = """## Section {n}: what the change does

The **parser** reads each `record` once and keeps *only* the fields it needs; see [the notes](https://example.com/{n}).
A second line of the paragraph, with `inline code` and **bold _nested_ text**.

- first point, with `a_value = {n}` and a trailing clause
- second point: **important** detail number {n}
  - a nested item with *emphasis*
- third point

```python
def handler_{n}(event: dict) -> int:
    total = sum(item["size"] for item in event["items"])
    return total * {n}
```

| column | value | note |
|--------|-------|------|
| alpha  | {n}   | *ok* |
| beta   | {n}0  | `x`  |

"""


def markdown_pieces(count: int) -> list[str]:
    """``count`` deltas of about four characters of a Markdown answer; the last ends it."""
    text, n = "", 0
    while len(text) < count * 4:
        n += 1
        text += MARKDOWN_SECTION.format(n=n)
    pieces = [text[i : i + 4] for i in range(0, (count - 1) * 4, 4)]
    return [*pieces, "\n\nEND-OF-ANSWER\n"]


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    obj = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def build_turn(model: str, texts: list[str]) -> list[bytes]:
    """Every SSE record of one answer, in order (role chunk, deltas, finish, usage, DONE)."""
    out = [_chunk(model, {"role": "assistant", "content": ""})]
    encoded: dict[str, bytes] = {}  # 20,000 equal deltas are encoded once
    for text in texts:
        chunk = encoded.get(text)
        if chunk is None:
            chunk = encoded[text] = _chunk(model, {"content": text})
        out.append(chunk)
    out.append(_chunk(model, {}, "stop"))
    usage = {"prompt_tokens": 100, "completion_tokens": max(1, len(texts)), "total_tokens": 100 + max(1, len(texts))}
    out.append(
        b"data: "
        + json.dumps(
            {
                "id": "chatcmpl-bench",
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [],
                "usage": usage,
            }
        ).encode()
        + b"\n\n"
    )
    out.append(b"data: [DONE]\n\n")
    return out


def _read_request(conn: socket.socket) -> bytes:
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = conn.recv(65536)
        if not data:
            return b""
        buf += data
    head, _, body = buf.partition(b"\r\n\r\n")
    match = re.search(rb"(?i)content-length:\s*([0-9]+)", head)
    length = int(match.group(1)) if match else 0
    while len(body) < length:
        data = conn.recv(65536)
        if not data:
            break
        body += data
    return head.split(b"\r\n", 1)[0] + b"\n" + body


def _serve(conn: socket.socket) -> None:
    with conn:
        request = _read_request(conn)
        if not request:
            return
        line, _, body = request.partition(b"\n")
        if not line.split(b" ")[1].split(b"?")[0].rstrip(b"/").endswith(b"/chat/completions"):
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            return
        try:
            model = str(json.loads(body).get("model", "bench"))
        except ValueError:
            model = "bench"
        directive = _DIRECTIVE.search(body)
        gap_ns = 0
        log_path = None
        if directive is None:
            texts = [f"hello{i} " for i in range(8)]
        elif directive.group(1) == b"stream":
            texts = ["word "] * int(directive.group(2))
        elif directive.group(1) == b"markdown":
            texts = markdown_pieces(int(directive.group(2)))
            gap_ns = int(directive.group(3) or 0) * 1000
            log = (directive.group(4) or b"-").decode()
            log_path = None if log == "-" else log
        else:
            texts = [f"w{i} " for i in range(int(directive.group(2)))]
            gap_ns = int(directive.group(3)) * 1000
            log_path = directive.group(4).decode()
        records = build_turn(model, texts)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"Connection: close\r\n\r\n"
        )
        send = conn.sendall
        if not gap_ns:
            for record in records:
                send(record)
            return
        # Paced: delta i is records[i + 1]; stamp just before its write.
        stamps: list[int] = []
        clock = time.perf_counter_ns
        send(records[0])
        next_at = clock() + gap_ns
        for record in records[1 : 1 + len(texts)]:
            remaining = next_at - clock()
            if remaining > 0:
                time.sleep(remaining / 1e9)
            stamps.append(clock())
            send(record)
            next_at += gap_ns
        for record in records[1 + len(texts) :]:
            send(record)
        if log_path is not None:
            with open(log_path, "w") as fh:
                json.dump(stamps, fh)


def main() -> int:
    server = socket.create_server(("127.0.0.1", 0))
    server.listen(64)

    def accept_loop() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=_serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    print(f"LISTENING {server.getsockname()[1]}", flush=True)
    sys.stdin.read()  # the parent closes stdin (or dies) to stop us
    server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
