"""``pi-messages`` (the Radius gateway's wire) through the whole program: ``pi --mode rpc``
against a stub server on 127.0.0.1 (models.json points ``radius`` at it) speaking the SSE of
serialized pi assistant-message events, compared with upstream pi 1.6 on the same stub: the
requests (method, path, the headers that matter, the body ``{model, context, options}`` with
pi's own transcript in it) and the events and messages, errors included (401; 429, a dropped
connection, a 500 with a plain body, a stream without a terminal event and a bad content index,
each then the session's retry; nothing listening; a stored OAuth token; an abort mid-stream).

Upstream's outcome for each scenario is checked in (``tests/fixtures/provider_wire/radius_*.json``,
with its provenance) and ours is compared with it always; with upstream installed
(``$PI_UPSTREAM_NODE_DIR`` or /tmp/pi-node) it is also compared live. Re-record with
``python -m tests.ai.test_pi_messages_wire --record [scenario ...]``.

Masked on both sides: the system prompt's sections and the built-in tools' descriptions (ours
are worded our own way, protocol/README §8.14), the session id, timestamps and durations, and in
an HTTP error's diagnostic the Node stack (ours keeps its first line), the stub's port and the
clock.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.ai.provider_wire import (
    FIXTURES,
    SYSTEM_MASK,
    UPSTREAM,
    Outcome,
    Reply,
    assert_loaded_only_when_used,
    assert_same_outcome,
    closed_port,
    needs_upstream,
    recorded,
    run_program,
    sse,
)
from tests.support.pi_process import OURS, PiProcess, isolated_env

PROVENANCE = (
    "Recorded from upstream pi 1.6.0 (@earendil-works/pi-coding-agent and pi-ai 1.6.0, node, /tmp/pi-node) "
    "by `python -m tests.ai.test_pi_messages_wire --record`; masked as the test's docstring says."
)

# ------------------------------------------------------------------------------------ streams


def _usage(inp: int, out: int, cost: float = 0.0) -> dict[str, Any]:
    return {
        "input": inp,
        "output": out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": inp + out,
        "cost": {"input": cost, "output": cost, "cacheRead": 0, "cacheWrite": 0, "total": 2 * cost},
    }


def _text_reply(text: str, rid: str) -> bytes:
    return sse(
        {"type": "start"},
        {"type": "text_start", "contentIndex": 0},
        {"type": "text_delta", "contentIndex": 0, "delta": text},
        {"type": "text_end", "contentIndex": 0, "content": text},
        {"type": "done", "reason": "stop", "usage": _usage(3, 1), "responseId": rid},
        done=False,
    )


def _stream() -> list[Reply]:
    first = sse(
        {"type": "start"},
        {"type": "thinking_start", "contentIndex": 0},
        {"type": "thinking_delta", "contentIndex": 0, "delta": "Let me "},
        {"type": "thinking_delta", "contentIndex": 0, "delta": "look."},
        {"type": "thinking_end", "contentIndex": 0, "content": "Let me look.", "contentSignature": "sig-think"},
        {"type": "thinking_start", "contentIndex": 1},
        {"type": "thinking_end", "contentIndex": 1, "content": "", "contentSignature": "opaque", "redacted": True},
        {"type": "text_start", "contentIndex": 2},
        {"type": "text_delta", "contentIndex": 2, "delta": "Reading"},
        {"type": "text_delta", "contentIndex": 2, "delta": " it."},
        {"type": "text_end", "contentIndex": 2, "content": "Reading it.", "contentSignature": "sig-text"},
        {"type": "toolcall_start", "contentIndex": 3, "id": "call_1", "toolName": "read"},
        {"type": "toolcall_delta", "contentIndex": 3, "delta": '{"path":'},
        {"type": "toolcall_delta", "contentIndex": 3, "delta": '"note.txt"}'},
        {
            "type": "toolcall_end",
            "contentIndex": 3,
            "toolCall": {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "note.txt"}},
        },
        {
            "type": "done",
            "reason": "toolUse",
            "usage": _usage(100, 20, 0.001),
            "responseId": "resp_1",
            "responseModel": "anthropic/claude-sonnet-5",
            "providerThinkingLevel": "high",
            "rewrite": {"from": "balanced", "to": "claude-sonnet-5"},
        },
        done=False,
    )
    second = _text_reply("The note says hi.", "resp_2")
    failed = sse(
        {"type": "start"},
        {"type": "text_start", "contentIndex": 0},
        {"type": "text_delta", "contentIndex": 0, "delta": "par"},
        {
            "type": "error",
            "reason": "error",
            "usage": _usage(5, 1),
            "errorMessage": "Upstream provider overloaded",
            "responseId": "resp_3",
        },
        done=False,
    )
    return [Reply(first), Reply(second), Reply(failed), Reply(_text_reply("Plain.", "resp_4"))]


def _errors() -> list[Reply]:
    dropped = sse(
        {"type": "start"},
        {"type": "text_start", "contentIndex": 0},
        {"type": "text_delta", "contentIndex": 0, "delta": "hal"},
        done=False,
    )
    unfinished = sse({"type": "start"}, {"type": "text_start", "contentIndex": 0}, done=True)
    bad_index = sse({"type": "start"}, {"type": "text_delta", "contentIndex": 4, "delta": "x"}, done=False)
    return [
        Reply(
            b'{"error":{"message":"Invalid API key","code":"invalid_api_key"}}', 401, content_type="application/json"
        ),
        Reply(b'{"error":{"message":"Slow down","code":"rate_limited"}}', 429, content_type="application/json"),
        Reply(_text_reply("After the limit.", "r2")),
        Reply(dropped, drop=True),
        Reply(_text_reply("After the drop.", "r3")),
        Reply(b"upstream exploded", 500, content_type="text/plain"),
        Reply(_text_reply("After the 500.", "r4")),
        Reply(unfinished),
        Reply(_text_reply("After the cut.", "r5")),
        Reply(bad_index),
        Reply(_text_reply("After the bad index.", "r6")),
    ]


# One scenario: (replies, steps, environment, auth.json or None, models.json base URL or None
# for the stub's /v1, files).
SCENARIOS: dict[
    str,
    tuple[
        Callable[[], list[Reply]],
        list[dict[str, Any]],
        dict[str, str],
        dict[str, Any] | None,
        str | None,
        dict[str, str],
    ],
] = {
    # Thinking (signed, then redacted), signed text, a tool call over two deltas, a done with
    # the response model, the provider's level and a rewrite; the second request replays them.
    # Then another model with thinking off (no ``reasoning`` sent) and a terminal error event
    # from the backend, retried by the session.
    "radius_stream": (
        _stream,
        [
            {"model": "balanced"},
            {"thinking": "high"},
            {"prompt": "read note.txt"},
            {"model": "claude-sonnet-5"},
            {"thinking": "off"},
            {"prompt": "plain"},
        ],
        {"RADIUS_API_KEY": "rk-test", "PI_CACHE_RETENTION": "long"},
        None,
        None,
        {"note.txt": "hi\n"},
    ),
    # 401 (final); 429, a dropped stream, a 500 with a plain body, a stream without a terminal
    # event and an out-of-range content index: each retried once, then answered.
    "radius_errors": (
        _errors,
        [{"model": "gpt-6-sol"}, *({"prompt": p} for p in ("one", "two", "three", "four", "five", "six"))],
        {"RADIUS_API_KEY": "rk-test"},
        None,
        None,
        {},
    ),
    # Nothing listening: fetch's error, retried by the session and final.
    "radius_refused": (
        lambda: [Reply(_text_reply("unused", "r"))],
        [{"model": "balanced"}, {"prompt": "hello"}],
        {"RADIUS_API_KEY": "rk-test"},
        None,
        "http://127.0.0.1:{closed}/v1",
        {},
    ),
    # A stored OAuth login: its access token is the bearer (no refresh while it is valid).
    "radius_oauth": (
        lambda: [Reply(_text_reply("Signed in.", "r"))],
        [{"model": "cheap"}, {"prompt": "hello"}],
        {},
        {
            "radius": {
                "type": "oauth",
                "access": "radius-access-token",
                "refresh": "radius-refresh-token",
                "expires": 4102444800000,
                "scope": "pi",
            }
        },
        None,
        {},
    ),
}


def run_scenario(argv: list[str], root: Path, name: str) -> dict[str, Any]:
    replies, steps, env, auth, base_url, files = SCENARIOS[name]
    port = str(closed_port())
    outcome: Outcome = run_program(
        argv,
        root,
        replies(),
        provider="radius",
        steps=steps,
        env=env,
        base_path="/v1" if base_url is None else None,
        base_url=base_url.replace("{closed}", port) if base_url else None,
        files=files,
        auth=auth,
    )
    result = comparable(outcome)
    if base_url and "{closed}" in base_url:
        result = json.loads(json.dumps(result).replace(f":{port}", ":<closed port>"))
    return result


_PORT = re.compile(r"127\.0\.0\.1:\d+")


def _mask_diagnostics(message: Any) -> None:
    if not isinstance(message, dict):
        return
    for diagnostic in message.get("diagnostics") or []:
        error = diagnostic.get("error")
        if isinstance(error, dict) and isinstance(error.get("stack"), str):
            # Node's stack frames; the first line (name: message) is kept.
            error["stack"] = error["stack"].split("\n", 1)[0]
        details = diagnostic.get("details")
        if isinstance(details, dict):
            if isinstance(details.get("url"), str):
                details["url"] = _PORT.sub("127.0.0.1:<stub port>", details["url"])
            if "timestampMs" in details:
                details["timestampMs"] = "<clock>"


def _mask_system(message: dict[str, Any]) -> dict[str, Any]:
    message = dict(message)
    if message.get("content"):
        message["content"] = SYSTEM_MASK
    if isinstance(message.get("sections"), dict):
        message["sections"] = {k: SYSTEM_MASK if v is not None else None for k, v in message["sections"].items()}
    for key in ("toolsAdded", "toolsRemoved"):
        if isinstance(message.get(key), list):
            message[key] = [{k: v for k, v in t.items() if k != "description"} for t in message[key]]
    return message


def comparable(outcome: Outcome) -> dict[str, Any]:
    requests = json.loads(json.dumps(outcome.requests))
    for request in requests:
        body = request["body"]
        context = body.get("context") if isinstance(body, dict) else None
        if isinstance(context, dict) and isinstance(context.get("messages"), list):
            context["messages"] = [
                _mask_system(m) if isinstance(m, dict) and m.get("role") == "system" else m for m in context["messages"]
            ]
            for message in context["messages"]:
                _mask_diagnostics(message)
    messages = json.loads(json.dumps(outcome.messages))
    for message in messages:
        _mask_diagnostics(message)
    return {"requests": requests, "events": outcome.events, "messages": messages}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_equals_upstreams_recorded_outcome(tmp_path: Path, name: str) -> None:
    assert_same_outcome(run_scenario(OURS, tmp_path, name), recorded(name))


@needs_upstream
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_equals_upstream_live(tmp_path: Path, name: str) -> None:
    assert UPSTREAM is not None
    upstream = run_scenario(UPSTREAM, tmp_path / "upstream", name)
    ours = run_scenario(OURS, tmp_path / "ours", name)
    assert_same_outcome(ours, upstream)


# ------------------------------------------------------------------------ abort mid-stream

_STALLED = [
    {"type": "start"},
    {"type": "ping", "note": "an event type the converter does not know passes through"},
    {"type": "text_start", "contentIndex": 0},
    {"type": "text_delta", "contentIndex": 0, "delta": "hal"},
]


class _StallingHandler(BaseHTTPRequestHandler):
    """Sends the first events of a reply, then holds the connection open (the client aborts)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        body = sse(*_STALLED, done=False)
        self.wfile.write(b"%x\r\n%s\r\n" % (len(body), body))
        self.wfile.flush()
        time.sleep(3)
        self.close_connection = True


def run_abort(argv: list[str], root: Path) -> dict[str, Any]:
    """Prompt, wait for the first text delta, send ``abort``: the updates seen and the final message."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StallingHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        (root / "cwd").mkdir(parents=True, exist_ok=True)
        env = isolated_env(root, {"RADIUS_API_KEY": "rk-test"}, faux=False)
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        (Path(env["PI_CODING_AGENT_DIR"]) / "models.json").write_text(
            json.dumps({"providers": {"radius": {"baseUrl": base}}})
        )
        proc = PiProcess([*argv, "--mode", "rpc", "--no-session"], env, root / "cwd", root=root)
        try:
            proc.ok("set_model", timeout=60, provider="radius", modelId="balanced")
            start = proc.mark()
            proc.ok("prompt", timeout=60, message="hi")
            proc.wait_for(
                lambda r: (
                    isinstance(r, dict)
                    and r.get("type") == "message_update"
                    and r["assistantMessageEvent"].get("type") == "text_delta"
                ),
                timeout=60,
                start=start,
            )
            proc.ok("abort", timeout=60)
            proc.wait_for(lambda r: isinstance(r, dict) and r.get("type") == "agent_end", timeout=60, start=start)
            final = proc.ok("get_messages", timeout=60)["messages"][-1]
            updates = [
                {k: v for k, v in r["assistantMessageEvent"].items() if k != "partial"}
                for r in proc.since(start)
                if isinstance(r, dict) and r.get("type") == "message_update"
            ]
        finally:
            proc.close()
    finally:
        server.shutdown()
        server.server_close()
    return {"updates": updates, "message": {k: v for k, v in final.items() if k not in ("timestamp", "durationMs")}}


def test_abort_mid_stream_equals_upstreams_recorded_outcome(tmp_path: Path) -> None:
    """An abort while the body streams: fetch's AbortError text on a fresh, empty message."""
    upstream = recorded("radius_abort")
    assert upstream["message"]["errorMessage"] == "This operation was aborted"
    ours = run_abort(OURS, tmp_path)
    assert ours == {k: v for k, v in upstream.items() if k != "_provenance"}


@needs_upstream
def test_abort_mid_stream_equals_upstream_live(tmp_path: Path) -> None:
    assert UPSTREAM is not None
    assert run_abort(OURS, tmp_path / "ours") == run_abort(UPSTREAM, tmp_path / "upstream")


def _assistant_errors(name: str) -> list[str | None]:
    return [m.get("errorMessage") for m in recorded(name)["messages"] if m["role"] == "assistant"]


def test_recorded_outcomes_say_what_matters() -> None:
    """The checked-in expectations hold the facts this file is about (guards a bad re-record)."""
    stream = recorded("radius_stream")
    assert "Recorded from upstream pi 1.6.0" in stream["_provenance"]
    first, second, third, _retry = stream["requests"]
    assert (first["method"], first["path"]) == ("POST", "/v1/messages")
    assert first["headers"] == {
        "authorization": "Bearer rk-test",
        "accept": "text/event-stream",
        "content-type": "application/json",
    }
    assert list(first["body"]) == ["model", "context", "options"]
    assert first["body"]["options"] == {"reasoning": "high", "cacheRetention": "long", "sessionId": "<session id>"}
    assert third["body"]["options"] == {"cacheRetention": "long", "sessionId": "<session id>"}
    assert third["body"]["model"] == "claude-sonnet-5"
    system = first["body"]["context"]["messages"][0]
    assert system["role"] == "system" and "sections" in system and "toolsAdded" in system
    replayed = second["body"]["context"]["messages"][2]
    assert replayed["content"][1] == {
        "type": "thinking",
        "thinking": "",
        "thinkingSignature": "opaque",
        "redacted": True,
    }
    assert replayed["responseModel"] == "anthropic/claude-sonnet-5" and replayed["providerThinkingLevel"] == "high"
    assert replayed["diagnostics"][0]["type"] == "pi_messages_rewrite"
    errors = _assistant_errors("radius_errors")
    assert errors[0] == "401 Unauthorized: Invalid API key (invalid_api_key)"
    assert recorded("radius_errors")["messages"][1]["diagnostics"][0]["details"]["status"] == 401
    assert "terminated" in json.dumps(recorded("radius_errors")["events"])
    assert _assistant_errors("radius_refused") == ["fetch failed"]
    oauth = recorded("radius_oauth")["requests"][0]
    assert oauth["headers"]["authorization"] == "Bearer radius-access-token"


# ----------------------------------------------------------------------------- pure functions


def test_options_forwarded_in_upstreams_order() -> None:
    from pi_rpc.ai.providers.pi_messages import build_payload
    from pi_rpc.ai.types import Context, StreamOptions

    model: Any = {"id": "m", "provider": "radius", "api": "pi-messages", "baseUrl": "http://x"}
    options = StreamOptions(
        reasoning="low",
        max_tokens=100,
        temperature=0.5,
        session_id="s",
        cache_retention="none",
        extra={"toolChoice": "auto"},
    )
    payload = build_payload(model, Context(system_prompt="be brief", messages=[]), options)
    assert payload["options"] == {
        "temperature": 0.5,
        "maxTokens": 100,
        "reasoning": "low",
        "cacheRetention": "none",
        "sessionId": "s",
        "toolChoice": "auto",
    }
    assert list(payload["options"]) == [
        "temperature",
        "maxTokens",
        "reasoning",
        "cacheRetention",
        "sessionId",
        "toolChoice",
    ]
    # No transcript from the caller: one leading system message from the prompt (normalizeContext).
    assert payload["context"] == {"messages": [{"role": "system", "content": "be brief", "timestamp": 0}]}
    bare = build_payload(model, Context(), StreamOptions())
    assert bare == {"model": "m", "context": {"messages": []}, "options": {}}


def test_http_error_texts() -> None:
    from pi_rpc.ai.providers.pi_messages import response_error

    model: Any = {"id": "m", "provider": "radius"}
    err = response_error(model, "http://x/messages", 503, "Service Unavailable", "<html>down</html>")
    assert str(err) == "503 Service Unavailable: <html>down</html>"
    assert err.details["body"] == "<html>down</html>" and "error" not in err.details
    err = response_error(model, "http://x/messages", 400, "", '{"error":{"message":"bad","code":7}}')
    assert str(err) == "400 : bad" and err.code is None  # a non-string code is not shown
    long_body = "x" * 9000
    assert response_error(model, "u", 500, "E", long_body).details["body"] == "x" * 8192 + "…"


def test_content_index_is_checked() -> None:
    from pi_rpc.ai.providers.pi_messages import EventConverter

    model: Any = {"id": "m", "provider": "radius", "api": "pi-messages"}
    converter = EventConverter(model)
    converter.convert({"type": "text_start", "contentIndex": 0})
    for bad in (2, -1, "0", 0.5, True):
        with pytest.raises(ValueError, match="Invalid contentIndex"):
            converter.convert({"type": "text_delta", "contentIndex": bad, "delta": "x"})
    with pytest.raises(ValueError, match=r"Invalid contentIndex 1 in pi-messages text_delta event"):
        converter.convert({"type": "text_delta", "contentIndex": 1, "delta": "x"})
    event = converter.convert({"type": "text_delta", "contentIndex": 0, "delta": "x", "extra": 1})
    assert event["extra"] == 1 and event["partial"]["content"] == [{"type": "text", "text": "x"}]
    # A delta of another kind lands as JS's ``+=`` puts it: on an ``undefined`` key.
    converter.convert({"type": "thinking_delta", "contentIndex": 0, "delta": "y"})
    assert converter.partial["content"] == [{"type": "text", "text": "x", "thinking": "undefinedy"}]


def test_an_echoed_key_is_cut_out_of_errors_and_diagnostics() -> None:
    """A backend that echoes the key (in an HTTP error body or a terminal ``error`` event) does not
    get it into the message: stdout and the session file carry it (upstream leaks it here)."""
    import anyio
    import httpx

    from pi_rpc.ai.stream import complete
    from pi_rpc.ai.types import Context, StreamOptions

    key = "rk-secret-123456"
    bodies = [
        (401, f'{{"error":{{"message":"bad key {key}","code":"{key}"}}}}'.encode()),
        (401, f"no such key: {key}".encode()),
        (200, sse({"type": "start"}, {"type": "error", "reason": "error", "errorMessage": f"key {key} revoked"})),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == f"Bearer {key}"
        status, body = bodies.pop(0)
        return httpx.Response(status, content=body, headers={"content-type": "text/event-stream"})

    model: Any = {"id": "m", "provider": "radius", "api": "pi-messages", "baseUrl": "http://gw/v1"}

    async def run() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            options = StreamOptions(api_key=key, http_client=client)
            return [await complete(model, Context(), options) for _ in range(3)]

    finals = anyio.run(run)
    assert [m["errorMessage"] for m in finals] == [
        "401 Unauthorized: bad key [redacted] ([redacted])",
        "401 Unauthorized: no such key: [redacted]",
        "key [redacted] revoked",
    ]
    assert finals[1]["diagnostics"][0]["details"]["body"] == "no such key: [redacted]"
    assert key not in json.dumps(finals)


def test_provider_is_imported_only_when_used() -> None:
    """``pi-messages`` is registered at once but its module (and the HTTP stack) loads on first use."""
    assert_loaded_only_when_used("pi-messages", "pi_rpc.ai.providers.pi_messages")


def _record() -> None:
    assert UPSTREAM is not None, "upstream pi 1.6 is needed to record"
    import tempfile

    FIXTURES.mkdir(parents=True, exist_ok=True)
    wanted = [a for a in sys.argv[1:] if a in SCENARIOS] or ([] if "radius_abort" in sys.argv else sorted(SCENARIOS))
    for name in wanted:
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_scenario(UPSTREAM, Path(tmp), name)
        recorded = {"_provenance": PROVENANCE, **outcome}
        (FIXTURES / f"{name}.json").write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {name}")
    if len(sys.argv) == 2 or "radius_abort" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            aborted = {"_provenance": PROVENANCE, **run_abort(UPSTREAM, Path(tmp))}
        (FIXTURES / "radius_abort.json").write_text(json.dumps(aborted, indent=1, ensure_ascii=False) + "\n")
        print("recorded radius_abort")


if __name__ == "__main__" and "--record" in sys.argv:
    _record()
