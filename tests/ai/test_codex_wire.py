"""``openai-codex-responses`` through the whole program: ``pi --mode rpc`` with a ChatGPT OAuth
credential in ``auth.json`` against a stub on 127.0.0.1 that serves both of Codex's transports
on ``/codex/responses`` (SSE POSTs with their zstd bodies decompressed and recorded, WebSocket
upgrades spoken with the ``websockets`` library, ``ws_stub``), compared with upstream pi 1.6 on
the same stub: the requests (method, path, the headers that matter, the decompressed body or
the socket's ``response.create`` message) and the events and messages.

Scenarios: the ``sse`` transport (a reasoning model with a tool call, then the answer); ``auto``
answered over the socket; ``auto`` falling back to SSE when the upgrade is refused (and staying
on SSE for the session's next request); errors: 401, 429 with a usage-limit body (not retried),
429 retried by the session, a dropped connection, a frame that is not JSON, an ``error`` event
on the socket.

Upstream's outcomes are checked in (``tests/fixtures/provider_wire/codex_*.json``) and ours is
compared with them always; with upstream installed it is also compared live. Re-record with
``python -m tests.ai.test_codex_wire --record``.
"""

from __future__ import annotations

import base64
import json
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
from tests.ai.ws_stub import WebSocketScript, WsReply
from tests.support.pi_process import OURS

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
