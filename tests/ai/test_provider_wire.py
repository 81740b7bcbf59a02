"""``mistral-conversations`` and ``azure-openai-responses`` (and Azure's ``openai-completions``
model) through the whole program: ``pi --mode rpc`` against a stub server on 127.0.0.1 speaking
the API's SSE, compared with upstream pi 1.6 on the same stub: the requests (method, path and
query, the headers that matter, the body) and the events and messages, errors included (401,
429 then the session's retry, a connection dropped mid-stream, a stream without a finish
reason, nothing listening, a missing Azure endpoint).

Upstream's outcome for each scenario is checked in (``tests/fixtures/provider_wire/``) and ours
is compared with it always; with upstream installed (``$PI_UPSTREAM_NODE_DIR`` or /tmp/pi-node)
it is also compared live. Re-record with ``python -m tests.ai.test_provider_wire --record``.

Masked on both sides: the system prompt and the built-in tools' descriptions (ours are worded
our own way, protocol/README §8.14), the session id, timestamps and durations, and Mistral's
``max_tokens`` (fitted to the context window, so it follows the system prompt's length).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ai.provider_wire import (
    FIXTURES,
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
    sse,
)
from tests.support.pi_process import OURS

# ------------------------------------------------------------------------------------ streams


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


MISTRAL_OK = sse(
    _chunk({"content": "fine"}, "stop", usage={"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51})
)


def _mistral_tools() -> list[Reply]:
    first = sse(
        _chunk(
            {"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Let me "}]}]}
        ),
        _chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "look."}]}]}),
        _chunk({"content": "Reading it."}),
        _chunk({"content": ""}),
        _chunk(
            {"tool_calls": [{"id": "call_Ab-1.xyz", "index": 0, "function": {"name": "read", "arguments": '{"path":'}}]}
        ),
        _chunk(
            {"tool_calls": [{"id": "null", "index": 0, "function": {"name": "read", "arguments": '"note.txt"}'}}]},
            "tool_calls",
            usage={
                "prompt_tokens": 120,
                "completion_tokens": 30,
                "total_tokens": 150,
                "prompt_tokens_details": {"cached_tokens": 100},
            },
        ),
    )
    second = sse(
        _chunk(
            {"content": "The note says hi."},
            "stop",
            usage={"prompt_tokens": 200, "completion_tokens": 5, "total_tokens": 205},
        )
    )
    third = sse(_chunk({"content": [{"type": "text", "text": "Again."}]}, "stop"))
    return [Reply(first), Reply(second), Reply(third)]


def _mistral_errors() -> list[Reply]:
    unfinished = sse(_chunk({"content": "x"}))
    return [
        Reply(
            b'{"object":"error","message":"Unauthorized","type":"invalid_request_error","code":"1000"}',
            401,
            content_type="application/json",
        ),
        Reply(b'{"message":"Requests rate limit exceeded"}', 429, content_type="application/json"),
        Reply(MISTRAL_OK),
        Reply(sse(_chunk({"content": "half"}), done=False), drop=True),
        Reply(MISTRAL_OK),
        Reply(sse(_chunk({"content": "x"}, "error"))),
        Reply(MISTRAL_OK),
        Reply(b"", 503, content_type="text/plain"),
        Reply(MISTRAL_OK),
        Reply(unfinished),
        Reply(MISTRAL_OK),
    ]


def _responses(rid: str, *items: tuple[str, Any]) -> bytes:
    """A Responses-API event stream: each item a reasoning summary, a message or a function call."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}}
    ]
    for i, (kind, data) in enumerate(items):
        if kind == "reasoning":
            done = {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": data}],
                "encrypted_content": "enc",
            }
            events += [
                {
                    "type": "response.output_item.added",
                    "output_index": i,
                    "item": {"type": "reasoning", "id": "rs_1", "summary": []},
                },
                {"type": "response.reasoning_summary_text.delta", "output_index": i, "summary_index": 0, "delta": data},
                {
                    "type": "response.reasoning_summary_part.done",
                    "output_index": i,
                    "summary_index": 0,
                    "part": {"type": "summary_text", "text": data},
                },
                {"type": "response.output_item.done", "output_index": i, "item": done},
            ]
        elif kind == "text":
            item = {"type": "message", "id": f"msg_{i}", "role": "assistant", "status": "in_progress", "content": []}
            final = {
                **item,
                "status": "completed",
                "content": [{"type": "output_text", "text": data, "annotations": []}],
            }
            events += [
                {"type": "response.output_item.added", "output_index": i, "item": item},
                {"type": "response.output_text.delta", "output_index": i, "content_index": 0, "delta": data[:3]},
                {"type": "response.output_text.delta", "output_index": i, "content_index": 0, "delta": data[3:]},
                {"type": "response.output_item.done", "output_index": i, "item": final},
            ]
        else:
            name, args = data
            call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": ""}
            events += [
                {"type": "response.output_item.added", "output_index": i, "item": call},
                {"type": "response.function_call_arguments.delta", "output_index": i, "delta": args[:5]},
                {"type": "response.function_call_arguments.delta", "output_index": i, "delta": args[5:]},
                {"type": "response.function_call_arguments.done", "output_index": i, "arguments": args},
                {
                    "type": "response.output_item.done",
                    "output_index": i,
                    "item": {**call, "arguments": args, "status": "completed"},
                },
            ]
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 40},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 5},
        "total_tokens": 120,
    }
    events.append({"type": "response.completed", "response": {"id": rid, "status": "completed", "usage": usage}})
    return named_sse(*events)


def _azure() -> list[Reply]:
    dropped = named_sse(
        {"type": "response.created", "response": {"id": "r5", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "m", "role": "assistant", "content": []},
        },
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "hal"},
    )
    return [
        Reply(
            _responses(
                "resp_1",
                ("reasoning", "Thinking it over."),
                ("text", "Reading the note."),
                ("call", ("read", '{"path":"note.txt"}')),
            )
        ),
        Reply(_responses("resp_2", ("text", "It says hi."))),
        Reply(_responses("resp_3", ("text", "Plain."))),
        Reply(
            b'{"error":{"code":"401","message":"Access denied due to invalid subscription key."}}',
            401,
            content_type="application/json",
        ),
        Reply(b'{"error":{"code":"429","message":"Rate limit is exceeded."}}', 429, content_type="application/json"),
        Reply(_responses("resp_4", ("text", "After retry."))),
        Reply(dropped, drop=True),
        Reply(_responses("resp_6", ("text", "Recovered."))),
    ]


def _azure_completions() -> list[Reply]:
    return [
        Reply(
            sse(
                _chunk({"role": "assistant", "reasoning_content": "Hm."}),
                _chunk(
                    {"content": "Deployed."},
                    "stop",
                    usage={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
                ),
            )
        )
    ]


_IMAGE = {
    "type": "image",
    "mimeType": "image/png",
    "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
}

# One scenario: (provider, replies, steps, environment, models.json base path or None, files).
SCENARIOS: dict[
    str, tuple[str, Callable[[], list[Reply]], list[dict[str, Any]], dict[str, str], str | None, dict[str, str]]
] = {
    # Thinking, text, a tool call split over deltas (the second with id "null"), cached usage;
    # then another Mistral model, whose request carries the first one's call id shortened.
    "mistral_tools": (
        "mistral",
        _mistral_tools,
        [
            {"model": "mistral-large-latest"},
            {"thinking": "high"},
            {"prompt": "read note.txt"},
            {"model": "codestral-latest"},
            {"prompt": "again"},
        ],
        {"MISTRAL_API_KEY": "mk-test"},
        "",
        {"note.txt": "hi\n"},
    ),
    # Thinking off on a model whose map says "none", a level the map lacks (clamped), an image
    # to a vision model and to a text-only one.
    "mistral_levels_images": (
        "mistral",
        lambda: [Reply(MISTRAL_OK)],
        [
            {"model": "mistral-medium-latest"},
            {"thinking": "off"},
            {"prompt": "look", "images": [_IMAGE]},
            {"thinking": "medium"},
            {"prompt": "again"},
            {"model": "glm-5-2"},
            {"prompt": "and now", "images": [_IMAGE]},
        ],
        {"MISTRAL_API_KEY": "mk-test"},
        "",
        {},
    ),
    # 401 (final), 429 / dropped connection / finish_reason "error" / 503 without a body / no
    # finish reason: each retried by the session once, then answered.
    "mistral_errors": (
        "mistral",
        _mistral_errors,
        [{"model": "devstral-latest"}, *({"prompt": p} for p in ("one", "two", "three", "four", "five", "six"))],
        {"MISTRAL_API_KEY": "mk-test"},
        "",
        {},
    ),
    # Endpoint from AZURE_OPENAI_BASE_URL, deployments from the map; a reasoning model with a
    # tool call, then a plain one; 401, 429 then the retry, a dropped stream then the retry.
    "azure_responses": (
        "azure",
        _azure,
        [
            {"model": "gpt-5-mini"},
            {"thinking": "low"},
            {"prompt": "read note.txt"},
            {"model": "gpt-4.1"},
            *({"prompt": p} for p in ("plain", "denied", "limited", "dropped")),
        ],
        {
            "AZURE_OPENAI_API_KEY": "az-key",
            "AZURE_OPENAI_BASE_URL": "{stub}/openai/v1",
            "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-5-mini=my-mini, gpt-4.1 = deploy41",
            "AZURE_OPENAI_API_VERSION": "2025-04-01-preview",
        },
        None,
        {"note.txt": "hi\n"},
    ),
    # Azure's chat-completions model: the same endpoint and deployment rules (models.json here).
    "azure_completions": (
        "azure",
        _azure_completions,
        [{"model": "deepseek-v4-pro"}, {"prompt": "hello"}],
        {"AZURE_OPENAI_API_KEY": "az-key", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "deepseek-v4-pro=ds-deploy"},
        "/openai/v1",
        {},
    ),
    # Nothing listening: fetch's error, and the OpenAI SDK's, retried by the session and final.
    "mistral_refused": (
        "mistral",
        _azure_completions,
        [{"model": "devstral-latest"}, {"prompt": "hello"}],
        {"MISTRAL_API_KEY": "mk-test"},
        "http://127.0.0.1:{closed}/",
        {},
    ),
    "azure_refused": (
        "azure",
        _azure_completions,
        [{"model": "gpt-4.1"}, {"prompt": "hello"}],
        {"AZURE_OPENAI_API_KEY": "az-key", "AZURE_OPENAI_BASE_URL": "http://127.0.0.1:{closed}/openai/v1"},
        None,
        {},
    ),
    # No endpoint anywhere: the stream fails before any request.
    "azure_no_endpoint": (
        "azure",
        _azure_completions,
        [{"model": "gpt-4.1"}, {"prompt": "hello"}],
        {"AZURE_OPENAI_API_KEY": "az-key"},
        None,
        {},
    ),
}


def run_scenario(argv: list[str], root: Path, name: str) -> dict[str, Any]:
    provider, replies, steps, env, base_path, files = SCENARIOS[name]
    port = str(closed_port())
    env = {k: v.replace("{closed}", port) for k, v in env.items()}
    base_url = base_path.replace("{closed}", port) if base_path and base_path.startswith("http") else None
    outcome: Outcome = run_program(
        argv,
        root,
        replies(),
        provider=provider,
        steps=steps,
        env=env,
        base_path=None if base_url else base_path,
        base_url=base_url,
        files=files,
    )
    result = comparable(outcome)
    if "{closed}" in json.dumps(SCENARIOS[name][3]) + str(base_path):
        result = json.loads(json.dumps(result).replace(f":{port}", ":<closed port>"))
    return result


def comparable(outcome: Outcome) -> dict[str, Any]:
    requests = json.loads(json.dumps(outcome.requests))
    for request in requests:
        body = request["body"]
        if isinstance(body, dict) and "max_tokens" in body and request["path"].startswith("/v1/chat/completions"):
            body["max_tokens"] = "<fitted to the context window>"
    return {"requests": requests, "events": outcome.events, "messages": outcome.messages}


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


def test_recorded_outcomes_say_what_matters() -> None:
    """The checked-in expectations hold the facts this file is about (guards a bad re-record)."""
    tools = recorded("mistral_tools")
    first, _second, third = tools["requests"]
    assert (first["method"], first["path"]) == ("POST", "/v1/chat/completions")
    assert first["headers"]["authorization"] == "Bearer mk-test"
    assert first["headers"]["x-affinity"] == "<session id>"
    assert first["body"]["reasoning_effort"] == "high" and first["body"]["prompt_cache_key"] == "<session id>"
    replayed = third["body"]["messages"][2]["tool_calls"][0]["id"]
    assert replayed == SHORT_HASHES["callAb1xyz"][:9]  # "call_Ab-1.xyz" has 10 alphanumerics
    errors = [m.get("errorMessage") for m in recorded("mistral_errors")["messages"] if m["role"] == "assistant"]
    assert errors[0].startswith("Mistral API error (401): ")
    azure = recorded("azure_responses")["requests"]
    assert azure[0]["path"] == "/openai/v1/responses?api-version=2025-04-01-preview"
    assert azure[0]["headers"]["api-key"] == "az-key" and "authorization" not in azure[0]["headers"]
    assert [r["body"]["model"] for r in azure[:3]] == ["my-mini", "my-mini", "deploy41"]
    completions = recorded("azure_completions")["requests"][0]
    assert completions["path"] == "/openai/v1/chat/completions" and completions["body"]["model"] == "ds-deploy"
    refused = [m.get("errorMessage") for m in recorded("azure_refused")["messages"] if m["role"] == "assistant"]
    assert refused == ["Connection error.: connect ECONNREFUSED 127.0.0.1:<closed port>"]
    assert [m.get("errorMessage") for m in recorded("mistral_refused")["messages"] if m["role"] == "assistant"] == [
        "fetch failed"
    ]
    missing = recorded("azure_no_endpoint")
    assert missing["requests"] == []
    assert missing["messages"][-1]["errorMessage"].startswith("Azure OpenAI base URL is required.")


# ----------------------------------------------------------------------------- pure functions


# pi-ai's shortHash of these, as node printed it (also checked live below).
SHORT_HASHES = {
    "": "k4n83c7h0j2b",
    "toolcall:0": "1nlso9v7di2pi",
    "callAb1xyz": "2xfdawc5w5ow",
    "héllo 😀": "1t90xbiinqdrp",
}


def test_short_hash_known_values() -> None:
    from pi_rpc.ai.providers.common import short_hash

    assert {w: short_hash(w) for w in SHORT_HASHES} == SHORT_HASHES


def test_mistral_tool_call_ids() -> None:
    from pi_rpc.ai.providers.mistral_conversations import derive_tool_call_id, tool_call_id_normalizer

    assert derive_tool_call_id("abc-def-123", 0) == "abcdef123"  # already 9 alphanumerics
    normalize = tool_call_id_normalizer()
    model: Any = {"id": "m"}
    first = normalize("call_Ab-1.xyz", model, {})
    assert len(first) == 9 and first.isalnum()
    assert normalize("call_Ab-1.xyz", model, {}) == first
    # Two ids whose 9-character form collides get different ones.
    assert normalize("abc_def_123", model, {}) == "abcdef123"
    assert normalize("abc-def-123", model, {}) != "abcdef123"


@needs_upstream
def test_short_hash_equals_pi_ais(tmp_path: Path) -> None:
    from pi_rpc.ai.providers.common import short_hash

    assert UPSTREAM is not None
    words = ["", "toolcall:0", "callAb1xyz", "héllo 😀", "x" * 300, "call_1|fc_abc"]
    hash_js = Path(UPSTREAM[1]).parents[3] / "pi-ai" / "dist" / "utils" / "hash.js"
    script = tmp_path / "hash.mjs"
    script.write_text(
        f'import {{ shortHash }} from "{hash_js}";\n'
        "process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map(shortHash)));\n"
    )
    result = subprocess.run([UPSTREAM[0], str(script), json.dumps(words)], capture_output=True, check=True, timeout=60)
    assert [short_hash(w) for w in words] == json.loads(result.stdout)


def test_azure_base_url_and_deployments(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_rpc.ai.providers import azure_openai_responses as azure

    for name in ("AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP"):
        monkeypatch.delenv(name, raising=False)
    model: Any = {"id": "gpt-4.1", "baseUrl": ""}
    assert (
        azure.resolve_base_url(model, {"AZURE_OPENAI_RESOURCE_NAME": "res"}) == "https://res.openai.azure.com/openai/v1"
    )
    for given in (
        "https://x.openai.azure.com",
        "https://x.openai.azure.com/openai/",
        "https://x.cognitiveservices.azure.com/openai/v1/responses?a=1",
    ):
        host = given.split("/")[2]
        assert azure.resolve_base_url(model, {"AZURE_OPENAI_BASE_URL": given}) == f"https://{host}/openai/v1"
    # Not an Azure host: kept as given (a proxy).
    assert azure.resolve_base_url(model, {"AZURE_OPENAI_BASE_URL": "http://proxy:8080/az/"}) == "http://proxy:8080/az"
    # The base URL wins over the resource name, both over the model's.
    env = {"AZURE_OPENAI_BASE_URL": "http://a", "AZURE_OPENAI_RESOURCE_NAME": "res"}
    assert azure.resolve_base_url({"id": "m", "baseUrl": "http://m"}, env) == "http://a"  # type: ignore[typeddict-item]
    assert azure.resolve_base_url({"id": "m", "baseUrl": "http://m/v1"}, {}) == "http://m/v1"  # type: ignore[typeddict-item]
    with pytest.raises(ValueError, match="Azure OpenAI base URL is required"):
        azure.resolve_base_url(model, {})
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "gpt-4.1=from-process")
    assert azure.resolve_deployment_name(model, {}) == "from-process"
    # The credential's env first; malformed entries skipped; the id when unmapped.
    assert (
        azure.resolve_deployment_name(model, {"AZURE_OPENAI_DEPLOYMENT_NAME_MAP": " bad, =x, gpt-4.1 = d1=extra "})
        == "d1"
    )
    assert azure.resolve_deployment_name({"id": "other"}, {"AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-4.1=d"}) == "other"  # type: ignore[typeddict-item]


def test_strict_schema_as_constrained_sampling() -> None:
    from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling

    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "number"}, "tag": {"type": ["string", "null"]}},
        "required": ["path"],
    }
    assert make_strict_json_schema(schema) == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"anyOf": [{"type": "number"}, {"type": "null"}]},
            "tag": {"type": ["string", "null"]},
        },
        "required": ["path", "limit", "tag"],
        "additionalProperties": False,
    }
    assert schema["required"] == ["path"]  # the tool's own schema is untouched
    prefer = {"name": "t", "parameters": schema, "constrainedSampling": {"type": "json_schema", "strict": "prefer"}}
    assert resolve_strict_sampling(prefer, True) is True
    assert resolve_strict_sampling(prefer, False) is None
    loose = {**prefer, "parameters": {"type": "object", "additionalProperties": True}}
    assert resolve_strict_sampling(loose, True) is None
    required = {**loose, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    with pytest.raises(ValueError, match="true additionalProperties is unsupported"):
        resolve_strict_sampling(required, True)
    assert resolve_strict_sampling({"name": "plain", "parameters": schema}, True) is None


def test_new_providers_are_imported_only_when_used() -> None:
    """Both APIs are registered at once but their modules (and the HTTP stack) load on first use."""
    assert_loaded_only_when_used("mistral-conversations", "pi_rpc.ai.providers.mistral_conversations")
    assert_loaded_only_when_used("azure-openai-responses", "pi_rpc.ai.providers.azure_openai_responses")


def _record() -> None:
    assert UPSTREAM is not None, "upstream pi 1.6 is needed to record"
    import tempfile

    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in sorted(SCENARIOS):
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_scenario(UPSTREAM, Path(tmp), name)
        (FIXTURES / f"{name}.json").write_text(json.dumps(outcome, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__" and "--record" in sys.argv:
    _record()
