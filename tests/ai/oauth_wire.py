"""Run ``pi --mode rpc`` (ours or upstream pi 1.6) with a stored OAuth credential: the token
endpoints (fixed HTTPS hosts) answered through ``tls_intercept``'s TLS-terminating proxy, the
model API either at a models.json ``baseUrl`` on a loopback stub or, where the credential names
the host (GitHub Copilot's token), through the same proxy. What happened is reduced to what the
two programs must agree on: the token requests, the API requests' auth headers and system/tool
shapes, the turn's outcome, and the rewritten ``auth.json`` with its clock-dependent ``expires``
masked (checked against the clock separately)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from tests.ai.stub_server import ReplayServer, Reply
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import PiProcess, isolated_env

HOSTS = [
    "platform.claude.com",
    "auth.openai.com",
    "api.github.com",
    "api.individual.githubcopilot.com",
    "api.business.githubcopilot.com",
    "auth.x.ai",
    "auth.kimi.com",
    "api.meta.ai",
    "radius.pi.dev",
    "chatgpt.com",
    "api.ghe.example.com",
    "copilot-api.ghe.example.com",
]

# Token-endpoint headers both programs must send alike (undici's defaults included).
TOKEN_HEADERS = ("content-type", "accept", "authorization", "user-agent", "editor-version",
                 "editor-plugin-version", "copilot-integration-id", "x-github-api-version",
                 "x-api-version", "accept-language", "sec-fetch-mode")  # fmt: skip
API_HEADERS = ("authorization", "x-api-key", "anthropic-beta", "user-agent", "x-app", "anthropic-version",
               "anthropic-dangerous-direct-browser-access", "x-initiator", "openai-intent",
               "editor-version", "editor-plugin-version", "copilot-integration-id",
               "chatgpt-account-id")  # fmt: skip

_EXPIRES = re.compile(r'("expires": )(\d+(?:\.\d+)?)')


def anthropic_sse(text: str = "Hi.") -> bytes:
    events = [
        ("message_start", {"type": "message_start", "message": {"id": "msg_1", "model": "claude-sonnet-4-5",
                                                                 "usage": {"input_tokens": 5, "output_tokens": 0}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


def anthropic_tool_sse(name: str) -> bytes:
    """An answer calling tool ``name`` (as Claude Code's casing would come back)."""
    events = [
        ("message_start", {"type": "message_start", "message": {"id": "msg_2", "model": "claude-sonnet-4-5",
                                                                 "usage": {"input_tokens": 5, "output_tokens": 0}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "input_json_delta", "partial_json": '{"path": "note.txt"}'}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 2}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


def completions_sse(text: str = "Hi.") -> bytes:
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}},
    ]  # fmt: skip
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def json_reply(value: Any, status: int = 200, delay_s: float = 0.0) -> Reply:
    return Reply(json.dumps(value).encode(), status, content_type="application/json", delay_s=delay_s)


@dataclass
class Run:
    token_requests: list[dict[str, Any]]
    api_requests: list[dict[str, Any]]
    outcome: list[dict[str, Any]]  # per prompt: stopReason, errorMessage, content kinds/names
    auth_text: str  # auth.json afterwards, ``expires`` masked
    auth: dict[str, Any]  # auth.json afterwards, parsed
    stdout: bytes
    stderr: str
    started_ms: int
    ended_ms: int


def _token_view(request: dict[str, Any]) -> dict[str, Any]:
    headers = {k: v for k, v in request["headers"].items() if k in TOKEN_HEADERS}
    body: Any = request["body"]
    ctype = request["headers"].get("content-type", "")
    if "x-www-form-urlencoded" in ctype:
        body = ["form", body, parse_qsl(body)]
    elif body:
        body = ["raw", body]
    return {
        "method": request["method"],
        "host": request["host"],
        "path": request["path"],
        "headers": headers,
        "body": body,
    }


def _api_view(path: str, headers: dict[str, str], body: Any) -> dict[str, Any]:
    kept = {k: v for k, v in headers.items() if k in API_HEADERS}
    if kept.get("user-agent", "").startswith(("pi/", "pi-rpc", "OpenAI/", "Anthropic/")):
        kept["user-agent"] = "<program>"  # each program's own identity (not compared)
    shape: dict[str, Any] = {"path": path, "headers": kept}
    if isinstance(body, dict):
        system = body.get("system")
        if isinstance(system, list):
            # Claude Code's identity block is compared; pi's own prompt is each program's wording.
            shape["system"] = [
                b.get("text") if str(b.get("text", "")).startswith("You are Claude Code") else "<system prompt>"
                for b in system
            ]
        tools = body.get("tools")
        if isinstance(tools, list):
            shape["tools"] = sorted(str(t.get("name") or (t.get("function") or {}).get("name")) for t in tools)
        messages = body.get("messages")
        if isinstance(messages, list):
            names = []
            for m in messages:
                for block in m.get("content") if isinstance(m.get("content"), list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        names.append(block.get("name"))
            shape["tool_use_names"] = names
        if "model" in body:
            shape["model"] = body["model"]
    return shape


def mask_expires(text: str) -> str:
    return _EXPIRES.sub(r"\1<expires>", text)


def run_oauth(
    argv: list[str],
    root: Path,
    *,
    provider: str,
    model: str,
    auth: dict[str, Any] | str,
    token_route: dict[tuple[str, str], Reply],
    api_replies: list[Reply] | None = None,
    prompts: tuple[str, ...] = ("hello",),
    env: dict[str, str] | None = None,
    api_base_path: str | None = "",
    files: dict[str, str] | None = None,
    interceptor: Interceptor | None = None,
    timeout: float = 60.0,
) -> Run:
    """One program, one stored credential, ``prompts`` sent one after another. ``token_route``
    answers intercepted HTTPS requests by (host, path without query); ``api_replies`` are the
    loopback stub's (pointed at by models.json when ``api_base_path`` is not None)."""
    root.mkdir(parents=True, exist_ok=True)
    cwd = root / "cwd"
    cwd.mkdir(exist_ok=True)
    for rel, text in (files or {}).items():
        (cwd / rel).write_text(text)

    def route(request: dict[str, Any]) -> Reply | None:
        key = (request["host"], request["path"].split("?")[0])
        return token_route.get(key, Reply(b'{"error":"not scripted"}', 404, content_type="application/json"))

    own_box = interceptor is None
    box = interceptor or Interceptor(root / "tls", HOSTS, [Reply(b"{}", 404)], route=route)
    if own_box:
        box.__enter__()
    try:
        with ReplayServer(api_replies or [Reply(anthropic_sse())], repeat_last=True) as stub:
            full_env = isolated_env(root, {**box.proxy_env(), **(env or {})}, faux=False)
            agent = Path(full_env["PI_CODING_AGENT_DIR"])
            if api_base_path is not None:
                (agent / "models.json").write_text(
                    json.dumps({"providers": {provider: {"baseUrl": stub.url + api_base_path}}})
                )
            auth_path = agent / "auth.json"
            auth_path.write_text(auth if isinstance(auth, str) else json.dumps(auth, indent=2))
            auth_path.chmod(0o600)
            (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
            before_requests = len(box.requests)
            started = int(time.time() * 1000)
            proc = PiProcess([*argv, "--mode", "rpc", "--no-session"], full_env, cwd, root=root)
            outcome: list[dict[str, Any]] = []
            try:
                proc.ok("set_model", timeout=timeout, provider=provider, modelId=model)
                for text in prompts:
                    before = proc.mark()
                    proc.ok("prompt", timeout=timeout, message=text)
                    end = proc.wait_for(
                        lambda r: isinstance(r, dict) and r.get("type") == "agent_end", timeout=timeout, start=before
                    )
                    last = [m for m in end.get("messages", []) if m.get("role") == "assistant"]
                    for message in last:
                        outcome.append(
                            {
                                "stopReason": message.get("stopReason"),
                                "errorMessage": message.get("errorMessage"),
                                "content": [
                                    [b.get("type"), b.get("name") or b.get("text")] for b in message.get("content", [])
                                ],
                            }
                        )
            finally:
                proc.close()
            ended = int(time.time() * 1000)
            stdout = b"".join(line + b"\n" for line in getattr(proc, "raw_lines", []))
            api = [_api_view(r.path, r.headers, r.body) for r in stub.requests]
        intercepted = box.requests[before_requests:]
    finally:
        if own_box:
            box.__exit__(None, None, None)
    token_requests = [_token_view(r) for r in intercepted if not _is_api(r["path"])]
    api += [_api_view(r["path"], r["headers"], _json_or_text(r["body"])) for r in intercepted if _is_api(r["path"])]
    text = auth_path.read_text()
    return Run(token_requests, api, outcome, mask_expires(text), json.loads(text), stdout, proc.stderr, started, ended)


def _is_api(path: str) -> bool:
    return path.split("?")[0].endswith(("/chat/completions", "/v1/messages", "/responses"))


def _json_or_text(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return body


def jwt(payload: dict[str, Any]) -> str:
    """An unsigned JWT carrying ``payload`` (standard base64 without padding, as OpenAI's)."""
    import base64

    def part(value: dict[str, Any]) -> str:
        return base64.b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(payload)}.sig"
