"""``google-vertex`` through the whole program: ``pi --mode rpc`` against a stub on 127.0.0.1
speaking Gemini's SSE, compared with upstream pi 1.6 on the same stub (recorded in
``tests/fixtures/provider_wire/vertex_*.json``, and live when upstream is installed): API-key
mode redirected by a models.json ``baseUrl`` (requests, events, messages; a 401, a 429 then the
session's retry, a stream without a finish reason, a dropped connection), and the configuration
errors of ADC mode (no project, no location) in upstream's words.

ADC mode too: Google's token endpoint is hard-coded in upstream (google-auth-library ignores a
service account's ``token_uri``), so both programs reach it through a local TLS-intercepting
proxy (``tls_intercept``) while the API goes to the loopback stub. Compared: the token requests
(a JWT-bearer grant from a service-account file made here with a throw-away RSA key, its
signature verified; gcloud's user credentials as a refresh-token grant), the API requests with
``Authorization: Bearer``, and a refused grant as the turn's error. Startup and API-key turns
must not import google-auth.

Re-record with ``python -m tests.ai.test_vertex_wire --record``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.ai.provider_wire import (
    FIXTURES,
    UPSTREAM,
    Reply,
    assert_same_outcome,
    needs_upstream,
    recorded,
    run_program,
    sse,
)
from tests.ai.stub_server import ReplayServer
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import OURS, PiProcess, isolated_env

# The interceptor's certificates come from the openssl CLI.
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl CLI is not installed")

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
    # ADC mode with project and location but no credentials anywhere (the metadata-server probe
    # switched off on both sides, so a cloud CI host cannot answer): google-auth-library's words.
    "vertex_no_credentials": (
        lambda: [Reply(OK)],
        [{"model": MODEL}, {"prompt": "hello"}],
        {
            "GOOGLE_CLOUD_PROJECT": "proj-1",
            "GOOGLE_CLOUD_LOCATION": "us-central1",
            "NO_GCE_CHECK": "true",
            "METADATA_SERVER_DETECTION": "none",
        },
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
    first = recorded("vertex_api_key")["requests"][0]
    assert (first["method"], first["path"]) == ("POST", API_PATH)
    assert first["headers"]["x-goog-api-key"] == "vk-test" and "authorization" not in first["headers"]
    assert first["body"]["systemInstruction"]["role"] == "user"
    assert first["body"]["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 2048}
    errors = [m.get("errorMessage") for m in recorded("vertex_api_key")["messages"] if m["role"] == "assistant"]
    assert errors[-1] == json.dumps(
        {"error": {"code": 401, "message": "API keys are not supported by this API.", "status": "UNAUTHENTICATED"}},
        separators=(",", ":"),
    )
    for name, text in (
        ("vertex_no_project", "Vertex AI requires a project ID."),
        ("vertex_no_location", "Vertex AI requires a location."),
        ("vertex_marker_env_unused", "Vertex AI requires a project ID."),
        ("vertex_no_credentials", "Could not load the default credentials. Browse to "),
    ):
        data = recorded(name)
        assert data["requests"] == []
        assert data["messages"][-1]["errorMessage"].startswith(text)


# ------------------------------------------------- ADC (Google's token endpoint intercepted)

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


def _verify_grant(body: str, public_key: Any) -> dict[str, Any]:
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
    assert json.loads(unb64(header)).get("kid", "kid-1") == "kid-1"  # google-auth names the key; Node does not
    claims: dict[str, Any] = json.loads(unb64(payload))
    # Both sign for Google's token endpoint (google-auth whatever the file's token_uri).
    assert (
        claims["aud"] == "https://oauth2.googleapis.com/token" and claims["iss"] == "pi@proj-sa.iam.gserviceaccount.com"
    )
    assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform"
    return claims


GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"


def run_adc(
    argv: list[str],
    root: Path,
    credentials: str,
    token_reply: Reply,
    replies: list[Reply],
    steps: list[dict[str, Any]],
) -> tuple[Any, list[dict[str, Any]]]:
    """A run in ADC mode with Google's token endpoint intercepted (``tls_intercept``), the API
    on a loopback stub via models.json. ``credentials``: ``service_account`` (a generated key
    file named by GOOGLE_APPLICATION_CREDENTIALS, project and location in the environment; each
    token request's JWT is verified) or ``gcloud`` (gcloud's user credentials under HOME, project
    and location in the stored credential's ``env``)."""
    root.mkdir(parents=True, exist_ok=True)
    env: dict[str, str] = dict(_CLEARED)
    auth: dict[str, Any] | None = None
    public_key = None
    if credentials == "service_account":
        public_key = _service_account(root / "sa.json", GOOGLE_TOKEN_URI)
        env.update(
            GOOGLE_APPLICATION_CREDENTIALS=str(root / "sa.json"),
            GOOGLE_CLOUD_PROJECT="proj-1",
            GOOGLE_CLOUD_LOCATION="us-central1",
        )
    else:
        gcloud = root / "home" / ".config" / "gcloud"
        gcloud.mkdir(parents=True, exist_ok=True)
        user = {
            "type": "authorized_user",
            "client_id": "cid.apps.googleusercontent.com",
            "client_secret": "csecret",
            "refresh_token": "1//refresh",
        }
        (gcloud / "application_default_credentials.json").write_text(json.dumps(user))
        auth = {
            "google-vertex": {"type": "api_key", "env": {"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"}}
        }
    with Interceptor(root / "tls", ["oauth2.googleapis.com"], [token_reply]) as box:
        env.update(box.proxy_env())
        outcome = run_program(
            argv,
            root,
            replies,
            provider="google-vertex",
            steps=steps,
            env=env,
            base_path="",
            files={"note.txt": "hi\n"},
            auth=auth,
        )
    for request in box.requests:
        assert (request["host"], request["method"], request["path"]) == ("oauth2.googleapis.com", "POST", "/token")
        if public_key is not None:
            _verify_grant(request["body"], public_key)
    return outcome, box.requests


def _token(status: int = 200) -> Reply:
    if status != 200:
        body = b'{"error":"invalid_grant","error_description":"Invalid JWT Signature."}'
        return Reply(body, status, content_type="application/json")
    body = json.dumps({"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"}).encode()
    return Reply(body, content_type="application/json")


# name: (credentials, token endpoint's reply, API replies, steps)
ADC_SCENARIOS: dict[str, tuple[str, Callable[[], Reply], Callable[[], list[Reply]], list[dict[str, Any]]]] = {
    # The API-key scenario's turns (tools, thinking, a final 401) with a service account.
    "vertex_adc_service_account": ("service_account", _token, _tools, SCENARIOS["vertex_api_key"][1]),
    # gcloud's user credentials (refresh-token grant), project and location from the credential.
    "vertex_adc_gcloud": ("gcloud", _token, lambda: [Reply(OK)], [{"model": MODEL}, {"prompt": "hello"}]),
    # The token endpoint refuses the grant: no API request, the turn's error, no retry.
    "vertex_adc_refused": (
        "service_account",
        lambda: _token(400),
        lambda: [Reply(OK)],
        [{"model": MODEL}, {"prompt": "hello"}],
    ),
}


def run_adc_scenario(argv: list[str], root: Path, name: str) -> dict[str, Any]:
    credentials, token, replies, steps = ADC_SCENARIOS[name]
    outcome, token_requests = run_adc(argv, root, credentials, token(), replies(), steps)
    data = _comparable(outcome)
    data["tokenRequests"] = [
        {
            "host": r["host"],
            "method": r["method"],
            "path": r["path"],
            # The signed assertion differs per run (time, key); it is verified in ``run_adc``.
            "form": {k: "<jwt>" if k == "assertion" else v for k, v in sorted(parse_qs(r["body"]).items())},
        }
        for r in token_requests
    ]
    return data


@needs_openssl
@pytest.mark.parametrize("name", sorted(ADC_SCENARIOS))
def test_adc_scenario_equals_upstreams_recorded_outcome(tmp_path: Path, name: str) -> None:
    ours = run_adc_scenario(OURS, tmp_path, name)
    expected = recorded(name)
    assert_same_outcome(ours, expected)
    assert ours["tokenRequests"] == expected["tokenRequests"]


@needs_openssl
@needs_upstream
@pytest.mark.parametrize("name", sorted(ADC_SCENARIOS))
def test_adc_scenario_equals_upstream_live(tmp_path: Path, name: str) -> None:
    assert UPSTREAM is not None
    upstream = run_adc_scenario(UPSTREAM, tmp_path / "upstream", name)
    ours = run_adc_scenario(OURS, tmp_path / "ours", name)
    assert_same_outcome(ours, upstream)
    assert ours["tokenRequests"] == upstream["tokenRequests"]


def test_recorded_adc_outcomes_say_what_matters() -> None:
    service = recorded("vertex_adc_service_account")
    # Upstream's API-key requests with the key swapped for the bearer token: a custom base URL
    # keeps project and location out of the path in ADC mode too.
    expected = recorded("vertex_api_key")["requests"]
    for request in expected:
        del request["headers"]["x-goog-api-key"]
        request["headers"]["authorization"] = f"Bearer {TOKEN}"
    assert service["requests"] == expected
    # A token per API request (upstream's client does not keep it).
    assert len(service["tokenRequests"]) == len(service["requests"]) == 3
    assert service["tokenRequests"][0]["form"]["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    gcloud = recorded("vertex_adc_gcloud")
    assert gcloud["tokenRequests"][0]["form"]["grant_type"] == ["refresh_token"]
    assert gcloud["requests"][0]["headers"]["authorization"] == f"Bearer {TOKEN}"
    refused = recorded("vertex_adc_refused")
    assert refused["requests"] == [] and len(refused["tokenRequests"]) == 1
    last = refused["messages"][-1]
    assert (last["stopReason"], last["errorMessage"]) == ("error", "invalid_grant: Invalid JWT Signature.")


@needs_openssl
def test_adc_secrets_stay_out_of_the_output(tmp_path: Path) -> None:
    """The refresh token, client secret and private key never reach stdout or stderr."""
    credentials, token, replies, steps = ADC_SCENARIOS["vertex_adc_gcloud"]
    outcome, _ = run_adc(OURS, tmp_path / "gcloud", credentials, _token(400), replies(), steps)
    text = json.dumps(outcome.messages) + json.dumps(outcome.events) + outcome.stderr
    assert outcome.messages[-1]["stopReason"] == "error"
    assert "1//refresh" not in text and "csecret" not in text
    outcome, _ = run_adc(OURS, tmp_path / "sa", "service_account", _token(400), replies(), steps)
    assert "PRIVATE KEY" not in json.dumps(outcome.messages) + outcome.stderr


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
    assert (
        request_url(catalogue, "p", "eu")
        == f"https://aiplatform.eu.rep.googleapis.com/v1/projects/p/locations/eu/{method}"
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
    """Startup, the provider's registration and its module leave google-auth unloaded."""
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
    with ReplayServer([Reply(OK)], repeat_last=True) as stub:
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
    runs: list[tuple[str, Callable[[list[str], Path, str], dict[str, Any]]]] = [
        *((name, run_scenario) for name in sorted(SCENARIOS)),
        *((name, run_adc_scenario) for name in sorted(ADC_SCENARIOS)),
    ]
    for name, run in runs:
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run(UPSTREAM, Path(tmp), name)
        (FIXTURES / f"{name}.json").write_text(json.dumps(outcome, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__" and "--record" in sys.argv:
    _record()
