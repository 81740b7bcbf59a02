#!/usr/bin/env python3
"""Run a ``pi --mode rpc`` command behind one of its ``--listen`` transports, speaking stdio to the
caller: the conformance runner (or any stdio client) then drives a socket connection instead of
the child's stdin/stdout.

    python protocol/conformance/run.py --cmd "{python} protocol/conformance/socket_bridge.py --transport tcp -- \\
        {python} -m pi_rpc --mode rpc --session-dir {session_dir}"

The bridge starts the command with ``--listen <address>`` (``unix``: a socket in a private temp
dir; ``tcp``/``ws``: 127.0.0.1, any free port) and ``--exit-when-idle``, reads its
``{"listening":[…]}`` stderr line, connects (authenticating with ``<agentDir>/listen-token`` on
TCP and WebSocket; that one response is not passed on), then copies stdin to the connection (on
WebSocket one message per LF-terminated line) and the connection to stdout (one line per
record). Stdin EOF half-closes the connection (the server answers what is in flight); when the
server closes it, the bridge waits for the server to exit and exits with its code. SIGTERM and
SIGHUP are passed on. Stdlib only, except ``websockets`` for ``--transport ws``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transport", choices=("unix", "tcp", "ws"), default="unix")
    parser.add_argument("--idle", default="0.5", help="--exit-when-idle seconds once the connection closed")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = [c for c in args.command if c != "--"] if args.command[:1] == ["--"] else args.command
    if args.transport == "ws":
        import websockets.sync.client  # noqa: F401 - before the server's idle clock runs
    tmp = tempfile.mkdtemp(prefix="pi-bridge-")
    os.chmod(tmp, 0o700)
    address = {
        "unix": f"unix:{tmp}/pi.sock",
        "tcp": "tcp:127.0.0.1:0",
        "ws": "ws://127.0.0.1:0/",
    }[args.transport]
    server = subprocess.Popen(
        [*command, "--listen", address, "--exit-when-idle", args.idle],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda s, f: server.send_signal(s))
    assert server.stderr is not None
    info: dict[str, Any] | None = None
    while info is None:
        line = server.stderr.readline()
        if not line:
            return server.wait()
        if line.startswith(b'{"listening"'):
            info = json.loads(line)
        else:
            sys.stderr.buffer.write(line)
            sys.stderr.buffer.flush()
    threading.Thread(target=_copy_stderr, args=(server.stderr,), daemon=True).start()
    bound = info["listening"][0]
    token = Path(info["tokenFile"]).read_text().strip() if "tokenFile" in info else None
    out = sys.stdout.buffer
    if args.transport == "ws":
        _bridge_ws(bound, token, out)
    else:
        _bridge_stream(bound, token, out)
    return server.wait()


def _copy_stderr(stream: Any) -> None:
    for line in iter(stream.readline, b""):
        sys.stderr.buffer.write(line)
        sys.stderr.buffer.flush()


def _bridge_stream(bound: str, token: str | None, out: Any) -> None:
    if bound.startswith("unix:"):
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(bound[5:])
    else:
        host, _, port = bound[4:].rpartition(":")
        sock = socket.create_connection((host, int(port)))
    skip_first = False
    if token is not None:
        sock.sendall(json.dumps({"type": "authenticate", "token": token}).encode() + b"\n")
        skip_first = True

    def pump_in() -> None:
        fd = sys.stdin.buffer.fileno()
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                break
            sock.sendall(data)
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    threading.Thread(target=pump_in, daemon=True).start()
    pending = b""
    while True:
        try:
            data = sock.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            break
        if skip_first:
            pending += data
            if b"\n" not in pending:
                continue
            data = pending[pending.index(b"\n") + 1 :]
            skip_first = False
        out.write(data)
        out.flush()


def _bridge_ws(bound: str, token: str | None, out: Any) -> None:
    from websockets.sync.client import connect

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    ws = connect(bound, additional_headers=headers, max_size=None).__enter__()
    # A WebSocket has no half-close: after stdin EOF the bridge closes once every command it
    # passed on is answered (stdio's "in-flight commands are answered first"), or after 10 s.
    waiting: dict[str, int] = {}
    lock = threading.Condition()

    def key(record: Any) -> str | None:
        if isinstance(record, dict) and "id" in record:
            return json.dumps(record["id"], sort_keys=True)
        return None

    def pump_in() -> None:
        fd = sys.stdin.buffer.fileno()
        pending = b""
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                break
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.endswith(b"\r"):
                    line = line[:-1]
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
                k = key(record) if isinstance(record, dict) and record.get("type") != "extension_ui_response" else None
                if k is not None:
                    with lock:
                        waiting[k] = waiting.get(k, 0) + 1
                _send(ws, line)  # (an empty line too: the same parse error as on a stream)
        if pending:
            _send(ws, pending)
        with lock:
            lock.wait_for(lambda: not any(waiting.values()), timeout=10)
        ws.close()

    threading.Thread(target=pump_in, daemon=True).start()
    while True:
        try:
            message = ws.recv()
        except Exception:  # noqa: BLE001 - closed
            break
        data = message.encode() if isinstance(message, str) else message
        try:
            record = json.loads(data)
        except ValueError:
            record = None
        if isinstance(record, dict) and record.get("type") == "response":
            k = key(record)
            with lock:
                if k is not None and waiting.get(k):
                    waiting[k] -= 1
                lock.notify_all()
        out.write(data + b"\n")
        out.flush()


def _send(ws: Any, line: bytes) -> None:
    try:
        ws.send(line.decode("utf-8"))
    except UnicodeDecodeError:
        ws.send(line)  # not UTF-8: as a binary message, read the same way by the server


if __name__ == "__main__":
    sys.exit(main())
