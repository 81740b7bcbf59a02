"""Run one RPC program (ours, or upstream pi 1.6) against a stub provider server on 127.0.0.1
and reduce what happened to comparable facts: the requests the stub saw (method, path with
query, the headers that matter, the JSON body with the system prompt masked, session ids
masked) and the program's events (message updates as their assistant event, the final
messages without timestamps or durations, retries without their delay).

The stub (``stub_server.ReplayServer``) replays scripted replies in order, the last one again
when they run out: SSE bytes, an HTTP error, or a stream that stops half-way by closing the
connection (``drop=True``: chunked encoding left unterminated).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.ai.stub_server import ReplayServer, Reply, Seen
from tests.ai.ws_stub import WebSocketScript
from tests.support.pi_process import PiProcess, isolated_env, upstream_argv

UPSTREAM = upstream_argv()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "provider_wire"
SYSTEM_MASK = "<system prompt>"
SESSION_MASK = "<session id>"

needs_upstream = pytest.mark.skipif(UPSTREAM is None, reason="upstream pi 1.6 not installed (/tmp/pi-node)")


def recorded(name: str) -> dict[str, Any]:
    """The outcome recorded from upstream for scenario ``name`` (``tests/fixtures/provider_wire``)."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return data


def assert_same_outcome(ours: dict[str, Any], expected: dict[str, Any]) -> None:
    """Requests, events and messages equal, each compared on its own so a failure names it."""
    for key in ("requests", "events", "messages"):
        assert ours[key] == expected[key], key


def assert_loaded_only_when_used(api: str, module: str) -> None:
    """In a fresh interpreter: ``api`` is registered at once, but ``module`` (and the HTTP stack)
    load only when the provider is first asked for."""
    code = (
        "import sys\n"
        "from pi_rpc.ai.stream import get_provider, registered_apis\n"
        f"assert {api!r} in registered_apis()\n"
        f"lazy = ({module!r}, 'httpx')\n"
        "assert not [m for m in lazy if m in sys.modules], [m for m in lazy if m in sys.modules]\n"
        f"assert get_provider({api!r}) is not None\n"
        f"assert {module!r} in sys.modules\n"
    )
    env = {"PYTHONPATH": str(FIXTURES.parents[2]), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def sse(*events: Any, done: bool = True) -> bytes:
    """``data: <json>`` frames (a ``str`` event goes out as it is), then ``data: [DONE]``."""
    out = b"".join(b"data: " + (e if isinstance(e, str) else json.dumps(e)).encode() + b"\n\n" for e in events)
    return out + (b"data: [DONE]\n\n" if done else b"")


def named_sse(*events: dict[str, Any]) -> bytes:
    """Responses-API frames: ``event: <type>`` then the data."""
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


@dataclass
class Outcome:
    """What one run did, reduced for comparison (``stderr`` for failure messages)."""

    requests: list[dict[str, Any]]
    events: list[Any]
    messages: list[dict[str, Any]]
    stderr: str
    seen: list[Seen] = field(default_factory=list)  # the requests as the stub received them


_VOLATILE = ("timestamp", "durationMs")
HEADERS_COMPARED = ("authorization", "api-key", "x-goog-api-key", "x-affinity", "content-type", "accept")


def _clean(value: Any, session_id: str) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v, session_id) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_clean(v, session_id) for v in value]
    if isinstance(value, str) and session_id and session_id in value:
        return value.replace(session_id, SESSION_MASK)
    return value


def _without_description(tool: Any) -> Any:
    if not isinstance(tool, dict):
        return tool
    tool = {k: v for k, v in tool.items() if k != "description"}
    if isinstance(tool.get("function"), dict):
        tool["function"] = {k: v for k, v in tool["function"].items() if k != "description"}
    return tool


def _request_view(request: Seen, session_id: str, compared: tuple[str, ...] = HEADERS_COMPARED) -> dict[str, Any]:
    body = request.body
    if isinstance(body, dict):
        body = dict(body)
        for key in ("messages", "input"):
            if isinstance(body.get(key), list):
                body[key] = [
                    {**m, "content": SYSTEM_MASK}
                    if isinstance(m, dict) and m.get("role") in ("system", "developer")
                    else m
                    for m in body[key]
                ]
        if isinstance(body.get("tools"), list):
            # Our built-in tools are described in our own words (protocol/README §8.14).
            body["tools"] = [_without_description(t) for t in body["tools"]]
    headers = {k: v for k, v in request.headers.items() if k in compared}
    return _clean({"method": request.method, "path": request.path, "headers": headers, "body": body}, session_id)


def _event_view(record: dict[str, Any], session_id: str) -> Any:
    etype = record.get("type")
    if etype == "message_update":
        ev = record.get("assistantMessageEvent") or {}
        return ["update", ev.get("type"), ev.get("contentIndex"), ev.get("delta")]
    if etype in ("message_start", "message_end"):
        return [etype, (record.get("message") or {}).get("role")]
    if etype == "auto_retry_start":
        return [etype, record.get("attempt"), record.get("errorMessage")]
    if etype == "auto_retry_end":
        return [etype, record.get("success"), record.get("attempt"), record.get("finalError")]
    if etype == "agent_end":
        return [etype, record.get("willRetry")]
    return [etype]


_EVENTS_KEPT = (
    "message_start",
    "message_update",
    "message_end",
    "auto_retry_start",
    "auto_retry_end",
    "agent_end",
    "tool_execution_end",
)


def run_program(
    argv: list[str],
    root: Path,
    replies: list[Reply],
    *,
    provider: str,
    steps: list[dict[str, Any]],
    env: dict[str, str] | None = None,
    base_path: str | None = None,
    base_url: str | None = None,
    files: dict[str, str] | None = None,
    auth: dict[str, Any] | None = None,
    timeout: float = 60.0,
    settings: dict[str, Any] | None = None,
    websocket: WebSocketScript | None = None,
    headers_compared: tuple[str, ...] = HEADERS_COMPARED,
) -> Outcome:
    """Prompt through ``argv --mode rpc``: each step is ``{"model": id}``, ``{"thinking": level}``
    or ``{"prompt": text, "images"?: [...], "abort"?: true}`` (waits for the run to end, retries
    included; ``abort``: sent once the answer's first text delta is out). ``base_path`` given:
    models.json points the provider at the stub under it (``base_url``: elsewhere); ``env``
    values may use ``{stub}``; ``auth`` is written as the agent's ``auth.json``; ``settings`` are
    added to the agent's ``settings.json``; ``websocket`` serves the stub's WebSocket upgrades;
    ``headers_compared`` names the request headers kept."""
    root.mkdir(parents=True, exist_ok=True)
    cwd = root / "cwd"
    cwd.mkdir(exist_ok=True)
    for rel, text in (files or {}).items():
        (cwd / rel).write_text(text)
    with ReplayServer(replies, repeat_last=True, websocket=websocket) as stub:
        extra = {k: v.replace("{stub}", stub.url) for k, v in (env or {}).items()}
        full_env = isolated_env(root, extra, faux=False)
        agent = Path(full_env["PI_CODING_AGENT_DIR"])
        if base_path is not None or base_url is not None:
            url = base_url if base_url is not None else stub.url + str(base_path)
            (agent / "models.json").write_text(json.dumps({"providers": {provider: {"baseUrl": url}}}))
        if auth is not None:
            (agent / "auth.json").write_text(json.dumps(auth))
            (agent / "auth.json").chmod(0o600)
        (agent / "settings.json").write_text(
            json.dumps({"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 50}, **(settings or {})})
        )
        proc = PiProcess([*argv, "--mode", "rpc", "--no-session"], full_env, cwd, root=root)
        try:
            session_id = proc.ok("get_state", timeout=timeout)["sessionId"]
            start = proc.mark()
            for step in steps:
                if "model" in step:
                    proc.ok("set_model", timeout=timeout, provider=provider, modelId=step["model"])
                elif "thinking" in step:
                    proc.ok("set_thinking_level", timeout=timeout, level=step["thinking"])
                else:
                    before = proc.mark()
                    extra = {"images": step["images"]} if "images" in step else {}
                    proc.ok("prompt", timeout=timeout, message=step["prompt"], **extra)
                    if step.get("abort"):
                        # Aborted once the answer's first text has arrived.
                        proc.wait_for(
                            lambda r: (
                                isinstance(r, dict)
                                and r.get("type") == "message_update"
                                and (r.get("assistantMessageEvent") or {}).get("type") == "text_delta"
                            ),
                            timeout=timeout,
                            start=before,
                        )
                        proc.ok("abort", timeout=timeout)
                    proc.wait_for(
                        lambda r: isinstance(r, dict) and r.get("type") == "agent_end" and not r.get("willRetry"),
                        timeout=timeout,
                        start=before,
                    )
            messages = proc.ok("get_messages", timeout=timeout)["messages"]
            records = proc.since(start)
        finally:
            proc.close()
        seen = list(stub.requests)
        requests = [_request_view(r, session_id, headers_compared) for r in seen]
    events = [_event_view(r, session_id) for r in records if isinstance(r, dict) and r.get("type") in _EVENTS_KEPT]
    # The system message holds our own prompt and tool wording; the conversation is compared.
    conversation = [m for m in messages if m.get("role") != "system"]
    return Outcome(requests, events, _clean(conversation, session_id), proc.stderr, seen)
