"""``openai-codex-responses`` through the whole program: ``pi --mode rpc`` with a ChatGPT OAuth
credential in ``auth.json`` against a stub on 127.0.0.1 that serves both of Codex's transports
on ``/codex/responses`` (SSE POSTs with their zstd bodies decompressed and recorded, WebSocket
upgrades spoken with the ``websockets`` library, ``ws_stub``), compared with upstream pi 1.6 on
the same stub: the requests (method, path, the headers that matter, the decompressed body or
the socket's ``response.create`` message) and the events and messages.

Scenarios: the ``sse`` transport (a reasoning model with a tool call, then the answer); ``auto``
answered over the socket, and over one socket for several requests (later ones as deltas after
``previous_response_id``); ``websocket`` reusing the socket with whole bodies; ``auto`` falling
back to SSE when the upgrade is refused (and staying on SSE for the session); the legacy
``websockets`` setting; errors: 401, 429 usage limits (not retried), a 503 retried by the
provider (``retry.provider.maxRetries``), a dropped connection, frames that are not JSON (SSE
and socket), an ``error`` event and closes on the socket, nothing listening, a token without the
account claim; aborts over SSE and over the socket.

Upstream's outcomes are checked in (``tests/fixtures/provider_wire/codex_*.json``) and ours is
compared with them always; with upstream installed it is also compared live. Re-record with
``python -m tests.ai.test_codex_wire --record``.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.ai.provider_wire import (
    FIXTURES,
    HEADERS_COMPARED,
    UPSTREAM,
    Outcome,
    Reply,
    assert_loaded_only_when_used,
    assert_same_outcome,
    closed_port,
    named_sse,
    needs_upstream,
    recorded,
    run_program,
)
from tests.ai.stub_server import ReplayServer
from tests.ai.ws_stub import WebSocketScript, WsReply
from tests.support.pi_process import OURS, PiProcess, isolated_env

ACCOUNT_ID = "acct-test-1234"


def _jwt(claims: dict[str, Any]) -> str:
    def segment(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{segment({'alg': 'none', 'typ': 'JWT'})}.{segment(claims)}.c2lnbmF0dXJl"


# Never expires (year 2100), so neither program refreshes it.
ACCESS = _jwt({"exp": 4102444800, "https://api.openai.com/auth": {"chatgpt_account_id": ACCOUNT_ID}})
AUTH = {
    "openai-codex": {
        "type": "oauth",
        "access": ACCESS,
        "refresh": "refresh-token-test",
        "expires": 4102444800000,
        "accountId": ACCOUNT_ID,
    }
}
HEADERS = (
    *HEADERS_COMPARED,
    "chatgpt-account-id",
    "originator",
    "openai-beta",
    "session-id",
    "x-client-request-id",
    "content-encoding",
    "upgrade",
)


# ------------------------------------------------------------------------------------ streams


def _events(rid: str, *parts: tuple[str, Any], usage: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A Responses event sequence: reasoning / text / call output items, then the completion."""
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": rid, "status": "in_progress"}}]
    for index, (kind, value) in enumerate(parts):
        if kind == "reasoning":
            item: dict[str, Any] = {"type": "reasoning", "id": f"rs_{index}", "summary": []}
            done = {**item, "summary": [{"type": "summary_text", "text": value}], "encrypted_content": "enc"}
            events += [
                {"type": "response.output_item.added", "output_index": index, "item": item},
                {"type": "response.reasoning_summary_text.delta", "output_index": index, "delta": value},
                {"type": "response.output_item.done", "output_index": index, "item": done},
            ]
        elif kind == "text":
            item = {
                "type": "message",
                "id": f"msg_{index}",
                "role": "assistant",
                "content": [],
                "status": "in_progress",
            }
            done = {
                **item,
                "status": "completed",
                "content": [{"type": "output_text", "text": value, "annotations": []}],
            }
            events += [
                {"type": "response.output_item.added", "output_index": index, "item": item},
                {"type": "response.output_text.delta", "output_index": index, "content_index": 0, "delta": value},
                {"type": "response.output_item.done", "output_index": index, "item": done},
            ]
        else:
            name, args = value
            item = {"type": "function_call", "id": f"fc_{index}", "call_id": f"call_{index}", "name": name}
            events += [
                {"type": "response.output_item.added", "output_index": index, "item": {**item, "arguments": ""}},
                {"type": "response.function_call_arguments.delta", "output_index": index, "delta": args},
                {"type": "response.output_item.done", "output_index": index, "item": {**item, "arguments": args}},
            ]
    usage = usage or {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 20},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 4},
        "total_tokens": 110,
    }
    events.append({"type": "response.done", "response": {"id": rid, "status": "completed", "usage": usage}})
    return events


def _sse(events: list[dict[str, Any]]) -> bytes:
    return named_sse(*events)


def _frames(events: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(e) for e in events]


TOOL_TURN = _events(
    "resp_1", ("reasoning", "Look at the note."), ("text", "Reading it."), ("call", ("read", '{"path":"note.txt"}'))
)
ANSWER = _events("resp_2", ("text", "It says hi."))


@dataclass
class Scenario:
    replies: Callable[[], list[Reply]]
    steps: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    websocket: Callable[[], list[WsReply]] | None = None
    files: dict[str, str] = field(default_factory=dict)
    auth: dict[str, Any] = field(default_factory=lambda: AUTH)
    base_url: str | None = None  # instead of the stub ("{closed}": a port nothing listens on)


def _usage_limit() -> bytes:
    return json.dumps(
        {"error": {"type": "usage_limit_reached", "message": "The usage limit has been reached", "plan_type": "PLUS"}}
    ).encode()


SCENARIOS: dict[str, Scenario] = {
    # SSE only: thinking, text and a tool call, the tool runs, then the answer.
    "codex_sse": Scenario(
        lambda: [Reply(_sse(TOOL_TURN)), Reply(_sse(ANSWER))],
        [{"model": "gpt-6.1-terra"}, {"thinking": "high"}, {"prompt": "read note.txt"}],
        {"transport": "sse"},
        files={"note.txt": "hi\n"},
    ),
    # auto: the socket answers.
    "codex_websocket": Scenario(
        lambda: [],
        [{"model": "gpt-6.1-terra"}, {"prompt": "hello"}],
        {},
        lambda: [WsReply(_frames(_events("resp_w", ("text", "Over the socket."))))],
    ),
    # auto over one socket: a tool call, the answer, a second prompt; the socket is kept for the
    # session and each later request sends only what is new since the last response
    # (``previous_response_id``).
    "codex_websocket_turns": Scenario(
        lambda: [],
        [{"model": "gpt-6.1-terra"}, {"thinking": "low"}, {"prompt": "read note.txt"}, {"prompt": "thanks"}],
        {},
        lambda: [
            WsReply(_frames(TOOL_TURN)),
            WsReply(_frames(ANSWER)),
            WsReply(_frames(_events("resp_3", ("text", "You are welcome.")))),
        ],
        files={"note.txt": "hi\n"},
    ),
    # websocket: the socket is kept for the session, but each request sends the whole body.
    "codex_websocket_reuse": Scenario(
        lambda: [],
        [{"model": "gpt-5.6-luna"}, {"prompt": "one"}, {"prompt": "two"}],
        {"transport": "websocket"},
        lambda: [
            WsReply(_frames(_events("resp_1", ("text", "First.")))),
            WsReply(_frames(_events("resp_2", ("text", "Second.")))),
        ],
    ),
    # The legacy boolean setting: ``websockets: false`` means SSE (no upgrade is tried).
    "codex_legacy_setting": Scenario(
        lambda: [Reply(_sse(_events("resp_l", ("text", "By SSE."))))],
        [{"model": "gpt-6.1-terra"}, {"prompt": "hello"}],
        {"websockets": False},
        lambda: [WsReply(_frames(_events("resp_w", ("text", "Over the socket."))))],
    ),
    # Nothing listening: the socket fails, then the POST (fetch's words), retried by the session.
    "codex_refused": Scenario(
        lambda: [],
        [{"model": "gpt-6.1-terra"}, {"prompt": "hello"}],
        {},
        base_url="http://127.0.0.1:{closed}",
    ),
    # An access token that is not a JWT with the account claim: no request at all.
    "codex_bad_token": Scenario(
        lambda: [],
        [{"model": "gpt-6.1-terra"}, {"prompt": "hello"}],
        {"transport": "sse"},
        auth={"openai-codex": {"type": "oauth", "access": "not-a-jwt", "refresh": "r", "expires": 4102444800000}},
    ),
    # The socket: a frame that is not JSON (no fallback), then a clean close before the
    # completion (after events: the error, then the session's retry goes by SSE).
    "codex_websocket_frames": Scenario(
        lambda: [Reply(_sse(_events("resp_s", ("text", "By SSE."))))],
        [{"model": "gpt-6.1-terra"}, {"prompt": "one"}, {"prompt": "two"}],
        {},
        lambda: [
            WsReply(["xyz"], end="close"),
            WsReply(_frames(_events("resp_x", ("text", "partial")))[:3], end="close"),
        ],
    ),
    # Aborts while the answer streams: over SSE (a slow body), then over the socket.
    "codex_abort": Scenario(
        lambda: [Reply(_sse(_events("resp_s", ("text", "Slow answer."))), chunk_size=120, delay_s=0.4)],
        [{"model": "gpt-6.1-terra"}, {"prompt": "one", "abort": True}],
        {"transport": "sse"},
    ),
    "codex_websocket_abort": Scenario(
        lambda: [],
        [{"model": "gpt-6.1-terra"}, {"prompt": "one", "abort": True}],
        {},
        lambda: [WsReply(_frames(_events("resp_a", ("text", "Partial answer.")))[:4])],
    ),
    # auto: the upgrade is refused, so SSE (and SSE again for the next prompt, no second upgrade).
    "codex_fallback": Scenario(
        lambda: [Reply(_sse(_events("resp_f", ("text", "By SSE."))))],
        [{"model": "gpt-5.6-luna"}, {"prompt": "hello"}, {"prompt": "again"}],
        {},
        lambda: [WsReply(status=404)],
    ),
    # 401; a usage limit (429 with the plan); a rate-limit 429 (also worded as a usage limit by
    # upstream, so not retried); a stream cut off (retried by the session); a frame that is not JSON.
    "codex_errors": Scenario(
        lambda: [
            Reply(b'{"error":{"message":"Your authentication token has expired."}}', 401, "application/json"),
            Reply(_usage_limit(), 429, "application/json"),
            Reply(b'{"error":{"message":"Rate limit reached for requests"}}', 429, "application/json"),
            Reply(_sse(_events("resp_d", ("text", "cut")))[:300], drop=True),
            Reply(_sse(_events("resp_b", ("text", "Recovered.")))),
            Reply(b"data: xyz\n\n"),
        ],
        [{"model": "gpt-6.1-terra"}, *({"prompt": p} for p in ("one", "two", "three", "four", "five"))],
        {"transport": "sse"},
    ),
    # Provider-level retries (retry.provider.maxRetries): a 503, then the answer.
    "codex_provider_retry": Scenario(
        lambda: [
            Reply(b'{"error":{"message":"Service unavailable"}}', 503, "application/json"),
            Reply(_sse(_events("resp_r", ("text", "Second attempt.")))),
        ],
        [{"model": "gpt-6.1-terra"}, {"prompt": "one"}],
        {
            "transport": "sse",
            "retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 50, "provider": {"maxRetries": 1}},
        },
    ),
    # The socket: an error event (no fallback), then a socket closed mid-stream.
    "codex_websocket_errors": Scenario(
        lambda: [Reply(_sse(_events("resp_s", ("text", "By SSE."))))],
        [{"model": "gpt-6.1-terra"}, {"prompt": "one"}, {"prompt": "two"}],
        {"transport": "websocket"},
        lambda: [
            WsReply(
                [json.dumps({"type": "error", "error": {"code": "server_error", "message": "Something broke"}})],
                end="close",
            ),
            WsReply(_frames(_events("resp_x", ("text", "partial")))[:3], end="drop"),
        ],
    ),
}


def _strip_tool_descriptions(body: Any) -> None:
    # The built-in tools are described in our own words (protocol/README §8.14).
    if not isinstance(body, dict):
        return
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            item["tools"] = [{k: v for k, v in t.items() if k != "description"} for t in item.get("tools") or []]
            item.pop("content", None)


def run_scenario(argv: list[str], root: Path, name: str) -> dict[str, Any]:
    scenario = SCENARIOS[name]
    port = str(closed_port())
    base_url = scenario.base_url.replace("{closed}", port) if scenario.base_url else None
    outcome: Outcome = run_program(
        argv,
        root,
        scenario.replies(),
        provider="openai-codex",
        steps=scenario.steps,
        base_path=None if base_url else "",
        base_url=base_url,
        files=scenario.files,
        auth=scenario.auth,
        settings=scenario.settings,
        websocket=WebSocketScript(scenario.websocket()) if scenario.websocket is not None else None,
        headers_compared=HEADERS,
    )
    requests = json.loads(json.dumps(outcome.requests))
    for request in requests:
        _strip_tool_descriptions(request["body"])
        if isinstance(request["body"], dict) and "max_output_tokens" in request["body"]:
            # Fitted to the context window, so it follows the system prompt's length.
            request["body"]["max_output_tokens"] = "<fitted>"
    for message in outcome.messages:
        for diagnostic in message.get("diagnostics") or []:
            error = diagnostic.get("error") or {}
            if isinstance(error.get("stack"), str):
                # Node's stack frames; its first line (the message) is kept.
                error["stack"] = error["stack"].split("\n", 1)[0]
            if "requestBytes" in (diagnostic.get("details") or {}):
                # The body's size follows the system prompt, worded our own way.
                diagnostic["details"]["requestBytes"] = "<bytes>"
    result = {"requests": requests, "events": outcome.events, "messages": outcome.messages}
    return json.loads(json.dumps(result).replace(f":{port}", ":<closed port>")) if base_url else result


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


def test_provider_is_imported_only_when_used() -> None:
    assert_loaded_only_when_used("openai-codex-responses", "pi_rpc.ai.providers.openai_codex_responses")


def _record(names: list[str]) -> None:
    assert UPSTREAM is not None, "upstream pi 1.6 is needed to record"
    import tempfile

    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in names or sorted(SCENARIOS):
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_scenario(UPSTREAM, Path(tmp), name)
        (FIXTURES / f"{name}.json").write_text(json.dumps(outcome, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__" and "--record" in sys.argv:
    _record([a for a in sys.argv[1:] if not a.startswith("--")])


def test_recorded_outcomes_say_what_matters() -> None:
    """The checked-in expectations hold the facts this file is about (guards a bad re-record)."""
    first = recorded("codex_sse")["requests"][0]
    assert (first["method"], first["path"]) == ("POST", "/codex/responses")
    assert first["headers"]["content-encoding"] == "zstd" and first["headers"]["chatgpt-account-id"] == ACCOUNT_ID
    assert first["headers"]["originator"] == "pi" and first["headers"]["openai-beta"] == "responses=experimental"
    assert first["body"]["input"][0]["type"] == "additional_tools" and "tools" not in first["body"]
    assert first["body"]["input"][-1] == {"type": "configuration_update", "reasoning": {"effort": "high"}}
    assert first["body"]["reasoning"] == {"effort": "medium", "summary": "auto"}
    socket = recorded("codex_websocket")["requests"]
    assert [r["method"] for r in socket] == ["GET", "WS"]
    assert socket[0]["headers"]["openai-beta"] == "responses_websockets=2026-02-06"
    assert socket[1]["body"]["type"] == "response.create"
    turns = [r["body"] for r in recorded("codex_websocket_turns")["requests"][1:]]
    assert "previous_response_id" not in turns[0]
    assert [t.get("previous_response_id") for t in turns[1:]] == ["resp_1", "resp_2"]
    assert [r["method"] for r in recorded("codex_fallback")["requests"]] == ["GET", "POST", "POST"]
    assert [r["method"] for r in recorded("codex_websocket_reuse")["requests"]] == ["GET", "WS", "WS"]
    assert [r["method"] for r in recorded("codex_legacy_setting")["requests"]] == ["POST"]
    errors = [m.get("errorMessage") for m in recorded("codex_errors")["messages"] if m["role"] == "assistant"]
    assert errors == [
        "Your authentication token has expired.",
        "You have hit your ChatGPT usage limit (plus plan).",
        "You have hit your ChatGPT usage limit.",
        None,
        """Invalid Codex SSE JSON: Unexpected token 'x', "xyz" is not valid JSON""",
    ]
    assert [r["method"] for r in recorded("codex_provider_retry")["requests"]] == ["POST", "POST"]
    frames = recorded("codex_websocket_frames")
    assert (
        frames["messages"][1]["errorMessage"]
        == """Invalid Codex WebSocket JSON: Unexpected token 'x', "xyz" is not valid JSON"""
    )
    assert ["auto_retry_start", 1, "WebSocket closed 1000"] in frames["events"]
    assert recorded("codex_bad_token")["messages"][-1]["errorMessage"] == "Failed to extract accountId from token"


# ----------------------------------------------------------------------------- pure functions


def test_account_id_and_urls() -> None:
    from pi_rpc.ai.providers import openai_codex_responses as codex

    assert codex.extract_account_id(ACCESS) == ACCOUNT_ID
    for bad in ("not-a-jwt", "a.b.c", _jwt({"sub": "x"}), _jwt({"https://api.openai.com/auth": {}})):
        with pytest.raises(RuntimeError, match="^Failed to extract accountId from token$"):
            codex.extract_account_id(bad)
    assert codex.resolve_url(None) == "https://chatgpt.com/backend-api/codex/responses"
    assert codex.resolve_url("http://h/x/codex/") == "http://h/x/codex/responses"
    assert codex.resolve_url("http://h/codex/responses") == "http://h/codex/responses"
    assert (
        codex.resolve_websocket_url("https://chatgpt.com/backend-api")
        == "wss://chatgpt.com/backend-api/codex/responses"
    )


def test_error_texts_and_retry_policy() -> None:
    import time

    from pi_rpc.ai.providers import openai_codex_responses as codex

    body = json.dumps({"error": {"code": "usage_limit_reached", "plan_type": "Pro", "resets_at": time.time() + 600}})
    assert (
        codex.error_message(429, "", body) == "You have hit your ChatGPT usage limit (pro plan). Try again in ~10 min."
    )
    assert codex.error_message(400, "Bad Request", '{"error":{"message":"bad input"}}') == "bad input"
    assert codex.error_message(500, "Internal Server Error", "") == "Internal Server Error"
    assert codex.error_message(502, "", "<html>") == "<html>"
    assert codex._is_retryable(503, "") and codex._is_retryable(429, "slow down")
    assert not codex._is_retryable(429, '{"error":{"code":"insufficient_quota"}}')
    assert codex._is_retryable(400, "upstream connect error") and not codex._is_retryable(401, "expired")


def test_cached_socket_sends_only_the_new_input() -> None:
    from pi_rpc.ai.providers import codex_websocket as ws

    entry: Any = ws.Entry(socket=None)  # type: ignore[arg-type]
    body = {"model": "m", "input": [{"role": "user", "content": "a"}], "stream": True}
    assert ws.request_body(entry, body) is body  # nothing remembered yet
    entry.continuation = ws.Continuation(body, "resp_1", [{"type": "message", "id": "msg_1"}])
    later = {**body, "input": [*body["input"], {"type": "message", "id": "msg_1"}, {"role": "user", "content": "b"}]}
    sent = ws.request_body(entry, later)
    assert sent == {**body, "input": [{"role": "user", "content": "b"}], "previous_response_id": "resp_1"}
    assert list(sent) == ["model", "input", "stream", "previous_response_id"]
    # Another setting, or an edited history: the whole body, and the continuation is dropped.
    assert ws.request_body(entry, {**later, "model": "other"})["input"] == later["input"]
    assert entry.continuation is None


def test_transport_setting(tmp_path: Path) -> None:
    from pi_rpc.config.settings import Settings

    def settings(data: dict[str, Any]) -> Settings:
        return Settings.in_memory(data, agent_dir=tmp_path)

    assert settings({}).transport == "auto"
    assert settings({"transport": "sse"}).transport == "sse"
    assert settings({"websockets": True}).transport == "websocket"
    assert settings({"websockets": False}).transport == "sse"
    assert settings({"websockets": False, "transport": "websocket-cached"}).transport == "websocket-cached"
    assert settings({}).websocket_connect_timeout_ms is None
    assert settings({"websocketConnectTimeoutMs": "disabled"}).websocket_connect_timeout_ms == 0
    assert settings({"websocketConnectTimeoutMs": 2500}).websocket_connect_timeout_ms == 2500


def test_startup_and_provider_module_import_neither_dependency() -> None:
    """zstandard and websockets load only when a Codex request is sent (SSE: zstandard;
    a socket: websockets), not at startup nor with the provider's module."""
    code = (
        "import sys\n"
        "import pi_rpc.cli\n"
        "from pi_rpc.ai.stream import get_provider, registered_apis\n"
        "assert 'openai-codex-responses' in registered_apis()\n"
        "assert get_provider('openai-codex-responses') is not None\n"
        "assert 'pi_rpc.ai.providers.openai_codex_responses' in sys.modules\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('zstandard', 'websockets')]\n"
        "assert not loaded, loaded\n"
    )
    env = {"PYTHONPATH": str(FIXTURES.parents[2]), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def test_rpc_sse_turn_imports_zstandard_but_not_websockets(tmp_path: Path) -> None:
    """The real program with ``transport: "sse"``: python's import log (``PYTHONPROFILEIMPORTTIME``)
    of a start and a Codex turn names zstandard but no websockets module."""
    log = tmp_path / "imports.log"
    env = isolated_env(tmp_path, {"PYTHONPROFILEIMPORTTIME": "1"}, faux=False)
    agent = Path(env["PI_CODING_AGENT_DIR"])
    with ReplayServer([Reply(_sse(ANSWER))], repeat_last=True) as stub:
        (agent / "models.json").write_text(json.dumps({"providers": {"openai-codex": {"baseUrl": stub.url}}}))
        (agent / "auth.json").write_text(json.dumps(AUTH))
        (agent / "settings.json").write_text(json.dumps({"transport": "sse"}))
        with log.open("wb") as stderr:
            proc = PiProcess([*OURS, "--mode", "rpc", "--no-session"], env, tmp_path, root=tmp_path, stderr=stderr)
            try:
                proc.ok("get_state")
                proc.ok("set_model", provider="openai-codex", modelId="gpt-6.1-terra")
                before = proc.mark()
                proc.ok("prompt", message="hello")
                proc.wait_for(lambda r: isinstance(r, dict) and r.get("type") == "agent_end", start=before)
                messages = proc.ok("get_messages")["messages"]
            finally:
                proc.close()
    assert messages[-1]["stopReason"] == "stop" and len(stub.requests) == 1
    imported = [line.rsplit("|", 1)[-1].strip() for line in log.read_text().splitlines() if "|" in line]
    assert "zstandard" in imported
    assert not [name for name in imported if name.split(".")[0] == "websockets"]


def test_without_the_codex_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without zstandard the body goes out as plain JSON; without websockets the socket fails
    with upstream's text for a runtime without WebSocket (so ``auto`` falls back to SSE)."""
    import anyio

    from pi_rpc.ai.providers import codex_websocket as ws
    from pi_rpc.ai.providers import openai_codex_responses as codex
    from pi_rpc.ai.types import StreamOptions

    assert codex.compress(b"{}") is not None
    monkeypatch.setitem(sys.modules, "zstandard", None)
    assert codex.compress(b"{}") is None
    monkeypatch.setitem(sys.modules, "websockets.asyncio.client", None)
    with pytest.raises(ws.WebSocketFailure, match="^WebSocket transport is not available in this runtime$"):
        anyio.run(ws.connect, "ws://127.0.0.1:9/codex/responses", {}, StreamOptions())


# A transcript that exercises the conversion: tools added, removed and redefined by later system
# messages, section updates, a same-model turn with signatures and a thinking level, another
# provider's tool call, images, an image-only tool result.
_USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": {"total": 0}}
_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
_TRANSCRIPT: list[dict[str, Any]] = [
    {
        "role": "system",
        "content": "Base prompt.",
        "sections": {"a": "Section A."},
        "toolsAdded": [
            {"name": "read", "description": "Read", "parameters": _SCHEMA},
            {
                "name": "write",
                "description": "Write",
                "parameters": _SCHEMA,
                "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
            },
        ],
        "timestamp": 0,
    },
    {"role": "user", "content": "hi", "timestamp": 1},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "t", "thinkingSignature": '{"type":"reasoning","id":"rs_1","summary":[]}'},
            {"type": "text", "text": "Reading.", "textSignature": '{"v":1,"id":"msg_1","phase":"commentary"}'},
            {"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {"path": "a"}},
        ],
        "api": "openai-codex-responses",
        "provider": "openai-codex",
        "model": "MODEL",
        "providerThinkingLevel": "high",
        "usage": _USAGE,
        "stopReason": "toolUse",
        "timestamp": 2,
    },
    {
        "role": "toolResult",
        "toolCallId": "call_1|fc_1",
        "toolName": "read",
        "content": [{"type": "text", "text": "A"}],
        "isError": False,
        "timestamp": 3,
    },
    {
        "role": "system",
        "content": "",
        "sections": {"a": None, "b": "Section B."},
        "toolsAdded": [{"name": "grep", "description": "Grep", "parameters": _SCHEMA}],
        "toolsRemoved": [{"name": "read"}],
        "timestamp": 4,
    },
    {
        "role": "user",
        "content": [{"type": "text", "text": "look"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"}],
        "timestamp": 5,
    },
    {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "toolu_01|item/x!", "name": "grep", "arguments": {"path": "b"}}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude",
        "usage": _USAGE,
        "stopReason": "toolUse",
        "timestamp": 6,
    },
    {
        "role": "toolResult",
        "toolCallId": "toolu_01|item/x!",
        "toolName": "grep",
        "content": [{"type": "image", "mimeType": "image/png", "data": "BBBB"}],
        "isError": False,
        "timestamp": 7,
    },
    {
        "role": "system",
        "content": "",
        "toolsAdded": [{"name": "read", "description": "Read again", "parameters": _SCHEMA}],
        "timestamp": 8,
    },
    {"role": "user", "content": "bye", "timestamp": 9},
]


@needs_upstream
@pytest.mark.parametrize(
    "compat",
    [
        {"supportsMidConvoSystemMessages": True, "supportsAdditionalTools": True, "supportsMidConvoEffort": True},
        {"supportsToolSearch": True},
        {},
    ],
    ids=["changes", "additions", "none"],
)
def test_input_conversion_equals_pi_ais(tmp_path: Path, compat: dict[str, Any]) -> None:
    """Our Codex input items and top-level tools against upstream's ``buildRequestBody`` run in
    node on the same transcript, for each of the three ways a model takes tool changes."""
    from pi_rpc.ai.models.catalog import builtin_models
    from pi_rpc.ai.providers import codex_request
    from pi_rpc.ai.types import Context, StreamOptions

    assert UPSTREAM is not None
    catalogue = next(m for m in builtin_models("openai-codex") if m["id"] == "gpt-6.1-terra")
    model: Any = {**catalogue, "compat": compat}
    transcript = json.loads(json.dumps(_TRANSCRIPT).replace('"MODEL"', json.dumps(model["id"])))
    codex_js = Path(UPSTREAM[1]).parents[3] / "pi-ai" / "dist" / "api" / "openai-codex-responses.js"
    script = tmp_path / "convert.mjs"
    script.write_text(
        f'import {{ streamSimple }} from "{codex_js}";\n'
        "const [model, messages] = JSON.parse(process.argv[2]);\n"
        "const s = streamSimple(model, {messages}, {apiKey: process.argv[3], reasoning: 'low', sessionId: 's',\n"
        "  onPayload: (body) => { process.stdout.write(JSON.stringify(body)); process.exit(0); }});\n"
        "for await (const e of s) { if (e.type === 'error') { console.error(e.error.errorMessage); process.exit(1); } }\n"
    )
    result = subprocess.run(
        [UPSTREAM[0], str(script), json.dumps([model, transcript]), ACCESS],
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    upstream = json.loads(result.stdout)
    ours = codex_request.build_body(
        model, Context(messages=transcript), StreamOptions(reasoning="low", session_id="s"), "s"
    )
    assert ours["input"] == upstream["input"]
    assert ours.get("tools") == upstream.get("tools")
    assert ours.get("reasoning") == upstream.get("reasoning")
