"""``google-vertex`` through the whole program: ``pi --mode rpc`` against a stub on 127.0.0.1
speaking Gemini's SSE, compared with upstream pi 1.6 on the same stub (recorded in
``tests/fixtures/provider_wire/vertex_*.json``, and live when upstream is installed): API-key
mode redirected by a models.json ``baseUrl`` (requests, events, messages; a 401, a 429 then the
session's retry, a stream without a finish reason, a dropped connection), and the configuration
errors of ADC mode (no project, no location) in upstream's words.

ADC itself is ours only: upstream's google-auth-library sends the JWT grant to a hard-coded
``oauth2.googleapis.com`` (auth-and-providers §2.2), while google-auth honours the service
account's ``token_uri``. So a service-account file made here with a throw-away RSA key points
at a local token stub; the token request must be a valid JWT-bearer grant signed by that key,
the API request must carry ``Authorization: Bearer <the stub's token>`` and otherwise be
upstream's API-key request; a refused grant ends the turn with google-auth-library's text.

Re-record with ``python -m tests.ai.test_vertex_wire --record``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.ai.provider_wire import FIXTURES, UPSTREAM, Reply, StubServer, run_program, sse
from tests.support.pi_process import OURS, PiProcess, isolated_env

needs_upstream = pytest.mark.skipif(UPSTREAM is None, reason="upstream pi 1.6 not installed (/tmp/pi-node)")

MODEL = "gemini-2.5-flash"
API_PATH = f"/v1/publishers/google/models/{MODEL}:streamGenerateContent?alt=sse"
_GENERATED_ID = re.compile(r"\b(\w+)_\d{13}_\d+\b")
_USAGE = {
    "promptTokenCount": 100,
    "candidatesTokenCount": 10,
    "thoughtsTokenCount": 5,
    "totalTokenCount": 115,
    "cachedContentTokenCount": 20,
}


def _chunk(parts: list[dict[str, Any]], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "responseId": "resp-1", **extra}


def _gemini(*chunks: dict[str, Any]) -> bytes:
    return sse(*chunks, done=False)  # Gemini's SSE has no [DONE]


OK = _gemini(_chunk([{"text": "Fine."}], "STOP", usageMetadata=_USAGE))


def _tools() -> list[Reply]:
    return [
        Reply(
            _gemini(
                _chunk([{"text": "Hmm", "thought": True, "thoughtSignature": "c2ln"}]),
                _chunk([{"text": "Reading."}]),
                _chunk(
                    [{"functionCall": {"name": "read", "args": {"path": "note.txt"}}}], "STOP", usageMetadata=_USAGE
                ),
            )
        ),
        Reply(_gemini(_chunk([{"text": "It says hi."}], "STOP", usageMetadata=_USAGE))),
        Reply(
            b'{"error":{"code":401,"message":"API keys are not supported by this API.","status":"UNAUTHENTICATED"}}',
            401,
            content_type="application/json",
        ),
    ]


def _errors() -> list[Reply]:
    return [
        Reply(
            b'{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED"}}',
            429,
            content_type="application/json",
        ),
        Reply(OK),
        Reply(_gemini(_chunk([{"text": "half"}])), drop=True),
        Reply(OK),
        Reply(_gemini(_chunk([{"text": "no end"}]))),
        Reply(OK),
    ]


_KEY_ENV = {"GOOGLE_CLOUD_API_KEY": "vk-test"}
_MARKER = {"google-vertex": {"type": "api_key", "key": "gcp-vertex-credentials"}}

# name: (replies, steps, environment, auth.json or None)
SCENARIOS: dict[str, tuple[Callable[[], list[Reply]], list[dict[str, Any]], dict[str, str], dict[str, Any] | None]] = {
    # Thinking with a signature, text, a tool call; the tool result replayed; then a 401 (final).
    "vertex_api_key": (
        _tools,
        [{"model": MODEL}, {"thinking": "low"}, {"prompt": "read note.txt"}, {"prompt": "again"}],
        _KEY_ENV,
        None,
    ),
    # 429, a dropped stream, a stream without a finish reason: each retried by the session.
    "vertex_errors": (
        _errors,
        [{"model": "gemini-3-flash-preview"}, {"prompt": "one"}, {"prompt": "two"}, {"prompt": "three"}],
        _KEY_ENV,
        None,
    ),
    # ADC mode (the stored marker instead of a key) without a project, then without a location.
    "vertex_no_project": (lambda: [Reply(OK)], [{"model": MODEL}, {"prompt": "hello"}], {}, _MARKER),
    "vertex_no_location": (
        lambda: [Reply(OK)],
        [{"model": MODEL}, {"prompt": "hello"}],
        {"GOOGLE_CLOUD_PROJECT": "proj-1"},
        _MARKER,
    ),
    # A stored credential with a key (the marker too) resolves as a key: its ``env`` is not
    # passed to the stream, so its project does not count (``providers/google-vertex.js``).
    "vertex_marker_env_unused": (
        lambda: [Reply(OK)],
        [{"model": MODEL}, {"prompt": "hello"}],
        {},
        {"google-vertex": {**_MARKER["google-vertex"], "env": {"GOOGLE_CLOUD_PROJECT": "proj-1"}}},
    ),
}

_CLEARED = {
    name: ""
    for name in (
        "GOOGLE_CLOUD_API_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
    )
}


def _comparable(outcome: Any) -> dict[str, Any]:
    text = json.dumps({"requests": outcome.requests, "events": outcome.events, "messages": outcome.messages})
    # Tool-call ids Gemini leaves out are made from the name, the clock and a counter.
    data: dict[str, Any] = json.loads(_GENERATED_ID.sub(r"\1_<generated>", text))
    for request in data["requests"]:
        body = request["body"]
        if isinstance(body, dict):
            if isinstance(body.get("systemInstruction"), dict):
                body["systemInstruction"]["parts"] = "<system prompt>"
            for group in body.get("tools") or []:
                for declaration in group.get("functionDeclarations") or []:
                    declaration.pop("description", None)  # our tools are described in our own words
    return data


def run_scenario(argv: list[str], root: Path, name: str) -> dict[str, Any]:
    replies, steps, env, auth = SCENARIOS[name]
    outcome = run_program(
        argv,
        root,
        replies(),
        provider="google-vertex",
        steps=steps,
        env={**_CLEARED, **env},
        base_path="",
        files={"note.txt": "hi\n"},
        auth=auth,
    )
    return _comparable(outcome)


def _fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return data


def _assert_same(ours: dict[str, Any], expected: dict[str, Any]) -> None:
    for key in ("requests", "events", "messages"):
        assert ours[key] == expected[key], key


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_equals_upstreams_recorded_outcome(tmp_path: Path, name: str) -> None:
    _assert_same(run_scenario(OURS, tmp_path, name), _fixture(name))


@needs_upstream
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_equals_upstream_live(tmp_path: Path, name: str) -> None:
    assert UPSTREAM is not None
    upstream = run_scenario(UPSTREAM, tmp_path / "upstream", name)
    ours = run_scenario(OURS, tmp_path / "ours", name)
    _assert_same(ours, upstream)


def test_recorded_outcomes_say_what_matters() -> None:
    """The checked-in expectations hold the facts this file is about (guards a bad re-record)."""
    first = _fixture("vertex_api_key")["requests"][0]
    assert (first["method"], first["path"]) == ("POST", API_PATH)
    assert first["headers"]["x-goog-api-key"] == "vk-test" and "authorization" not in first["headers"]
    assert first["body"]["systemInstruction"]["role"] == "user"
    assert first["body"]["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 2048}
    errors = [m.get("errorMessage") for m in _fixture("vertex_api_key")["messages"] if m["role"] == "assistant"]
    assert errors[-1] == json.dumps(
        {"error": {"code": 401, "message": "API keys are not supported by this API.", "status": "UNAUTHENTICATED"}},
        separators=(",", ":"),
    )
    for name, text in (
        ("vertex_no_project", "Vertex AI requires a project ID."),
        ("vertex_no_location", "Vertex AI requires a location."),
        ("vertex_marker_env_unused", "Vertex AI requires a project ID."),
    ):
        data = _fixture(name)
        assert data["requests"] == []
        assert data["messages"][-1]["errorMessage"].startswith(text)


# ------------------------------------------------------------------------------- ADC (ours)

TOKEN = "ya29.stub-token"


def _service_account(path: Path, token_uri: str) -> Any:
    """A service-account file with a fresh RSA key; returns the public key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "proj-sa",
                "private_key_id": "kid-1",
                "private_key": pem,
                "client_email": "pi@proj-sa.iam.gserviceaccount.com",
                "client_id": "1",
                "token_uri": token_uri,
            }
        )
    )
    return key.public_key()


def _verify_grant(body: str, public_key: Any, token_uri: str) -> dict[str, Any]:
    """The token request's JWT-bearer grant, its signature checked with the file's key."""
    import base64

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    form = parse_qs(body)
    assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    header, payload, signature = form["assertion"][0].split(".")

    def unb64(part: str) -> bytes:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

    public_key.verify(unb64(signature), f"{header}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
    assert json.loads(unb64(header))["kid"] == "kid-1"
    claims: dict[str, Any] = json.loads(unb64(payload))
    # google-auth signs for Google's token endpoint whatever the file's token_uri.
    assert (
        claims["aud"] == "https://oauth2.googleapis.com/token" and claims["iss"] == "pi@proj-sa.iam.gserviceaccount.com"
    )
    assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform"
    return claims


def _run_adc(root: Path, token_reply: Reply, replies: list[Reply], steps: list[dict[str, Any]]) -> tuple[Any, Any, Any]:
    root.mkdir(parents=True, exist_ok=True)
    with StubServer([token_reply]) as token_stub:
        token_uri = token_stub.url + "/token"
        public_key = _service_account(root / "sa.json", token_uri)
        env = {
            **_CLEARED,
            "GOOGLE_APPLICATION_CREDENTIALS": str(root / "sa.json"),
            "GOOGLE_CLOUD_PROJECT": "proj-1",
            "GOOGLE_CLOUD_LOCATION": "us-central1",
        }
        outcome = run_program(
            OURS,
            root,
            replies,
            provider="google-vertex",
            steps=steps,
            env=env,
            base_path="",
            files={"note.txt": "hi\n"},
        )
        for request in token_stub.requests:
            _verify_grant(request["body"], public_key, token_uri)
        return outcome, token_stub.requests, token_uri


def test_adc_service_account_token_then_upstreams_request(tmp_path: Path) -> None:
    token = Reply(
        json.dumps({"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"}).encode(),
        content_type="application/json",
    )
    replies, steps, _env, _auth = SCENARIOS["vertex_api_key"]
    outcome, token_requests, _uri = _run_adc(tmp_path, token, replies(), steps)
    ours = _comparable(outcome)
    expected = _fixture("vertex_api_key")
    # Upstream's API-key requests with the key swapped for the bearer token (a custom base URL
    # keeps project and location out of the path in ADC mode too).
    for request in expected["requests"]:
        del request["headers"]["x-goog-api-key"]
        request["headers"]["authorization"] = f"Bearer {TOKEN}"
    assert ours["requests"] == expected["requests"]
    assert ours["events"] == expected["events"]
    assert ours["messages"] == expected["messages"]
    # A token per API request, as upstream's client.
    assert len(token_requests) == len(ours["requests"]) == 3
    assert all(r["path"] == "/token" and r["method"] == "POST" for r in token_requests)


def test_adc_refused_grant_is_the_turns_error(tmp_path: Path) -> None:
    refused = Reply(
        b'{"error":"invalid_grant","error_description":"Invalid JWT Signature."}',
        400,
        content_type="application/json",
    )
    outcome, token_requests, _uri = _run_adc(tmp_path, refused, [Reply(OK)], [{"model": MODEL}, {"prompt": "hello"}])
    assert outcome.requests == []  # no API request without a token
    assert token_requests
    last = outcome.messages[-1]
    assert (last["stopReason"], last["errorMessage"]) == ("error", "invalid_grant: Invalid JWT Signature.")
    assert "BEGIN PRIVATE KEY" not in outcome.stderr


def test_adc_without_google_auth_names_the_extra() -> None:
    """A user without google-auth who picks ADC is told which extra to install."""
    code = (
        "import sys\n"
        "sys.modules['google'] = None\n"
        "from pi_rpc.ai.providers.google_vertex import _adc_token\n"
        "try:\n"
        "    _adc_token(None, None)\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    env = {"PYTHONPATH": str(FIXTURES.parents[2]), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code], check=True, env=env, timeout=60, capture_output=True, text=True
    )
    assert "pip install 'pi-rpc[vertex]'" in result.stdout


# ----------------------------------------------------------------------------- pure functions


def test_request_urls() -> None:
    from pi_rpc.ai.providers.google_vertex import request_url

    catalogue: Any = {"id": MODEL, "baseUrl": "https://{location}-aiplatform.googleapis.com"}
    method = f"publishers/google/models/{MODEL}:streamGenerateContent?alt=sse"
    assert request_url(catalogue, None, None) == f"https://aiplatform.googleapis.com/v1/{method}"
    assert (
        request_url(catalogue, "p", "europe-west4")
        == f"https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/{method}"
    )
    assert (
        request_url(catalogue, "p", "global")
        == f"https://aiplatform.googleapis.com/v1/projects/p/locations/global/{method}"
    )
    custom: Any = {"id": MODEL, "baseUrl": " http://proxy:8080/vertex/ "}
    assert request_url(custom, "p", "l") == f"http://proxy:8080/vertex/v1/{method}"
    versioned: Any = {"id": MODEL, "baseUrl": "http://proxy/v1beta1"}
    assert request_url(versioned, None, None) == f"http://proxy/v1beta1/{method}"


def test_api_key_and_project_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_rpc.ai.providers import google_vertex as vertex
    from pi_rpc.ai.types import StreamOptions

    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    assert vertex.resolve_api_key(StreamOptions(api_key=" k ")) == "k"
    for marker in ("gcp-vertex-credentials", "<authenticated>", "", None):
        assert vertex.resolve_api_key(StreamOptions(api_key=marker)) is None
    monkeypatch.setenv("GCLOUD_PROJECT", "from-process")
    assert vertex.resolve_project({}) == "from-process"
    assert vertex.resolve_project({"GOOGLE_CLOUD_PROJECT": "from-credential"}) == "from-credential"
    with pytest.raises(RuntimeError, match="requires a location"):
        vertex.resolve_location({})


def test_google_auth_is_loaded_only_for_adc() -> None:
    """Startup, the provider's registration and its module leave google-auth unloaded; ADC loads it."""
    code = (
        "import sys\n"
        "import pi_rpc.cli\n"
        "from pi_rpc.ai.stream import get_provider, registered_apis\n"
        "assert 'google-vertex' in registered_apis()\n"
        "assert get_provider('google-vertex') is not None\n"
        "assert 'pi_rpc.ai.providers.google_vertex' in sys.modules\n"
        "assert not [m for m in sys.modules if m.startswith('google')], 'google-auth imported'\n"
    )
    env = {"PYTHONPATH": str(FIXTURES.parents[2]), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def test_rpc_startup_and_api_key_turn_do_not_import_google_auth(tmp_path: Path) -> None:
    """The real program: python's import log (``PYTHONPROFILEIMPORTTIME``, to a file) of a start
    and an API-key turn names the Vertex stream's code but no google module."""
    log = tmp_path / "imports.log"
    env = isolated_env(tmp_path, {**_CLEARED, **_KEY_ENV, "PYTHONPROFILEIMPORTTIME": "1"}, faux=False)
    with StubServer([Reply(OK)]) as stub:
        models = {"providers": {"google-vertex": {"baseUrl": stub.url}}}
        (Path(env["PI_CODING_AGENT_DIR"]) / "models.json").write_text(json.dumps(models))
        with log.open("wb") as stderr:
            proc = PiProcess([*OURS, "--mode", "rpc", "--no-session"], env, tmp_path, root=tmp_path, stderr=stderr)
            try:
                proc.ok("get_state")
                proc.ok("set_model", provider="google-vertex", modelId=MODEL)
                before = proc.mark()
                proc.ok("prompt", message="hello")
                proc.wait_for(lambda r: isinstance(r, dict) and r.get("type") == "agent_end", start=before)
                messages = proc.ok("get_messages")["messages"]
            finally:
                proc.close()
    assert messages[-1]["stopReason"] == "stop" and len(stub.requests) == 1
    imported = [line.rsplit("|", 1)[-1].strip() for line in log.read_text().splitlines() if "|" in line]
    # The log covers the turn: the provider module itself is loaded by ``importlib.import_module``,
    # whose outermost module importtime does not print, but what it imports is.
    assert messages[-1]["api"] == "google-vertex" and "pi_rpc.ai.providers.google_generative_ai" in imported
    assert not [name for name in imported if name == "google" or name.startswith("google.")]


def _record() -> None:
    assert UPSTREAM is not None, "upstream pi 1.6 is needed to record"
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in sorted(SCENARIOS):
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_scenario(UPSTREAM, Path(tmp), name)
        (FIXTURES / f"{name}.json").write_text(json.dumps(outcome, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__" and "--record" in sys.argv:
    _record()
