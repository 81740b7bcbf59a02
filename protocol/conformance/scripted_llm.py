"""Scripted OpenAI-compatible chat-completions server (stdlib only) for conformance runs and client tests.

It owns nothing but the HTTP side of a fake model: each POST to a path ending in
``/chat/completions`` is answered with the next scripted *turn* as an SSE stream
(``data: {...}\\n\\n`` chunks, a final usage chunk, ``data: [DONE]``). Every request body is
recorded so scenarios can assert on what the agent sent.

Script shape (a dict, or a bare list meaning ``{"turns": [...]}``)::

    {"turns": [turn, ...],                 # served in order, one per request
     "rules": [{"contains": "text", "turn": turn, "once": false},
               {"no_tools": true, "turn": turn}],   # checked first (summaries offer no tools)
     "default": turn}                      # when turns run out

A turn::

    {"text": "whole answer"} | {"chunks": ["a", "b"]} | {"repeat": {"chunk": "x", "count": 100}}
    {"tool_calls": [{"name": "bash", "arguments": {...}, "id": "call_1", "pieces": 3}]}
    {"thinking": "reasoning text"}
    {"error": {"status": 503, "body": {...} | "text", "headers": {...}}}
    common: "delay_ms" (before each chunk), "initial_delay_ms", "finish_reason", "usage",
            "drop_after" (close after N chunks), "no_done"
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return [""]
    pieces = max(1, min(pieces, len(text)))
    size = -(-len(text) // pieces)
    return [text[i : i + size] for i in range(0, len(text), size)]


class Script:
    """Thread-safe turn dispenser."""

    def __init__(self, script: Any) -> None:
        if isinstance(script, list):
            script = {"turns": script}
        script = script or {}
        self._lock = threading.Lock()
        self._turns: list[dict] = list(script.get("turns", []))
        self._rules: list[dict] = [dict(r) for r in script.get("rules", [])]
        self._default: dict = script.get("default", {"text": "(scripted model: script exhausted)"})
        self._next = 0

    def pick(self, body_text: str, body: Any) -> tuple[str, dict]:
        with self._lock:
            for i, rule in enumerate(self._rules):
                if rule.get("_used"):
                    continue
                if rule.get("no_tools"):
                    hit = isinstance(body, dict) and not body.get("tools")
                else:
                    hit = rule.get("contains", "\0") in body_text
                if hit:
                    if rule.get("once"):
                        rule["_used"] = True
                    return f"rule{i}", rule["turn"]
            if self._next < len(self._turns):
                self._next += 1
                return f"turn{self._next - 1}", self._turns[self._next - 1]
            return "default", self._default


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "ScriptedLLM"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr logging
        pass

    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            self._plain(200, json.dumps({"object": "list", "data": []}).encode(), "application/json")
        else:
            self._plain(404, b'{"error":"not found"}', "application/json")

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        text = raw.decode("utf-8", errors="replace")
        try:
            body = json.loads(text) if text else None
        except ValueError:
            body = None
        label, turn = self.server.script.pick(text, body)
        self.server.record(
            {
                "path": self.path,
                "served": label,
                "body": body,
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
        )
        try:
            if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
                self._plain(404, b'{"error":{"message":"only /chat/completions is scripted"}}', "application/json")
                return
            self._serve(turn, body if isinstance(body, dict) else {})
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True

    def _plain(self, status: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _serve(self, turn: dict, req: dict) -> None:
        time.sleep(float(turn.get("initial_delay_ms", 0)) / 1000)
        err = turn.get("error")
        if err:
            status = int(err.get("status", 500))
            payload = err.get("body", {"error": {"message": f"scripted error {status}", "type": "scripted_error"}})
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            self._plain(status, data, "application/json", err.get("headers"))
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        delay = float(turn.get("delay_ms", 0)) / 1000
        drop_after = turn.get("drop_after")
        cid = f"chatcmpl-scripted-{int(time.time() * 1000)}"
        model = req.get("model", "scripted")
        sent = 0

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        def emit(obj: Any) -> None:
            nonlocal sent
            if delay:
                time.sleep(delay)
            if drop_after is not None and sent >= int(drop_after):
                raise ConnectionAbortedError("scripted drop")
            data = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
            try:
                raw = f"data: {data}\n\n".encode()
            except UnicodeEncodeError:  # a lone surrogate in the script: send it escaped, as JS would
                raw = f"data: {json.dumps(obj)}\n\n".encode()
            self.wfile.write(raw)
            self.wfile.flush()
            sent += 1

        emit(chunk({"role": "assistant", "content": ""}))
        if turn.get("thinking"):
            for piece in _split(turn["thinking"], 2):
                emit(chunk({"reasoning_content": piece}))
        if "chunks" in turn:
            texts = list(turn["chunks"])
        elif "repeat" in turn:
            texts = [turn["repeat"].get("chunk", "x")] * int(turn["repeat"].get("count", 1))
        elif "text" in turn:
            texts = [turn["text"]]
        else:
            texts = []
        for piece in texts:
            emit(chunk({"content": piece}))
        calls = list(turn.get("tool_calls", []))
        if "tool_call" in turn:
            calls.insert(0, turn["tool_call"])
        for idx, call in enumerate(calls):
            args = call.get("arguments", {})
            args_text = args if isinstance(args, str) else json.dumps(args)
            emit(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": idx,
                                "id": call.get("id", f"call_{idx}"),
                                "type": "function",
                                "function": {"name": call["name"], "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for piece in _split(args_text, int(call.get("pieces", 2))):
                emit(chunk({"tool_calls": [{"index": idx, "function": {"arguments": piece}}]}))
        finish = turn.get("finish_reason") or ("tool_calls" if calls else "stop")
        emit(chunk({}, finish))
        usage = {"prompt_tokens": 100, "completion_tokens": max(1, len(texts) + len(calls))}
        usage.update(turn.get("usage") or {})
        usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
        emit(
            {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [],
                "usage": usage,
            }
        )
        if not turn.get("no_done"):
            emit("[DONE]")


class ScriptedLLM(ThreadingHTTPServer):
    """``with ScriptedLLM(script) as llm: llm.base_url`` — serves on 127.0.0.1 in a daemon thread."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, script: Any = None, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__((host, port), _Handler)
        self.script = Script(script)
        self.requests: list[dict] = []
        self._req_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def record(self, rec: dict) -> None:
        with self._req_lock:
            self.requests.append(rec)

    def start(self) -> "ScriptedLLM":
        self._thread = threading.Thread(target=self.serve_forever, name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def __enter__(self) -> "ScriptedLLM":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def write_agent_config(agent_dir: str, base_url: str, settings: dict | None = None, provider: str = "conf") -> None:
    """Write models.json + settings.json so pi's default model is the scripted one."""
    import os

    os.makedirs(agent_dir, exist_ok=True)
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    models = {
        "providers": {
            provider: {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "conf-key",
                "models": [
                    {
                        "id": "conf-model",
                        "name": "Conformance Model",
                        "contextWindow": 128000,
                        "maxTokens": 4096,
                        "cost": zero,
                    },
                    {
                        "id": "conf-reasoner",
                        "name": "Conformance Reasoner",
                        "reasoning": True,
                        "contextWindow": 128000,
                        "maxTokens": 4096,
                        "cost": zero,
                    },
                ],
            }
        }
    }
    merged: dict = {"defaultProvider": provider, "defaultModel": "conf-model"}
    _deep_merge(merged, settings or {})
    with open(os.path.join(agent_dir, "models.json"), "w", encoding="utf-8") as f:
        json.dump(models, f, indent=2)
    with open(os.path.join(agent_dir, "settings.json"), "w", encoding="utf-8") as f:
        json.dump(merged, f, indent=2)


def _deep_merge(dst: dict, src: dict) -> None:
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _deep_merge(dst[k], v)
        else:
            dst[k] = v


def main(argv: list[str] | None = None) -> int:
    """``python scripted_llm.py --script JSON_OR_PATH [--agent-dir D]``: serve until stdin closes.

    Prints ``LISTENING <port>`` once ready (for test harnesses in other languages).
    """
    import argparse
    import os
    import sys

    ap = argparse.ArgumentParser(description="scripted OpenAI-compatible SSE model")
    ap.add_argument("--script", default="[]", help="JSON text, or a path to a JSON file")
    ap.add_argument("--agent-dir", help="also write models.json/settings.json for provider 'conf' here")
    ap.add_argument("--settings", default="{}", help="JSON merged into settings.json")
    a = ap.parse_args(argv)
    text = a.script
    if os.path.exists(text):
        with open(text, encoding="utf-8") as f:
            text = f.read()
    with ScriptedLLM(json.loads(text)) as llm:
        if a.agent_dir:
            write_agent_config(a.agent_dir, llm.base_url, json.loads(a.settings))
        print(f"LISTENING {llm.port}", flush=True)
        sys.stdin.read()  # parent closes stdin (or dies) to stop us
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
