"""A provider that echoes the request's credentials in its error (issue #31 item 4): every
credential source of README "Credentials" is given a sentinel value, one prompt per source goes
through the real ``pi --mode rpc`` process to a stub that answers 400 with every request header
(and the path) in its error body, and no sentinel may reach stdout, stderr, the session file or
the ``export_html`` output; each turn's ``errorMessage`` shows ``[redacted]`` where the echo
quoted one.

The stub is a plain HTTP server on 127.0.0.1 (models.json ``baseUrl``); the hosts a credential
fixes (GitHub Copilot's API named by its OAuth token, Google's token endpoint for Vertex ADC)
are served by ``tls_intercept``'s local TLS proxy with the same echo. Two processes: one whose
credentials come from the environment, ``--api-key`` and models.json, one whose come from
``auth.json`` (API keys as literal, ``$VAR`` with the entry's ``env`` and ``!command``; OAuth
logins) and ambient AWS / gcloud credentials."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.ai.models.catalog import builtin_models
from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import OURS, PiProcess, isolated_env

FAR = 4_102_444_800_000  # 2100: no refresh


def _sentinel(name: str) -> str:
    return f"SENTINEL-{name}-7d1e9a"


def _echo_body(headers: dict[str, str], path: str) -> bytes:
    """What every stub answers: a 400 whose message quotes the request (each API's error
    format puts ``message`` or ``error.message`` into ``errorMessage``)."""
    text = f"bad request {path} with headers {json.dumps(headers, sort_keys=True)}"
    return json.dumps({"message": text, "error": {"message": text, "type": "invalid_request_error"}}).encode()


class EchoServer:
    """127.0.0.1: every POST answered 400 with the request's headers and path in the body."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append((self.path, headers))
                body = _echo_body(headers, self.path)
                self.send_response(400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def seen(self) -> str:
        return json.dumps(self.requests)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


VERTEX_ADC_ACCESS = _sentinel("vertex-adc-access")


def _intercepted(request: dict[str, Any]) -> Reply:
    if request["host"] == "oauth2.googleapis.com":
        token = {"access_token": VERTEX_ADC_ACCESS, "expires_in": 3599, "token_type": "Bearer"}
        return Reply(json.dumps(token).encode(), content_type="application/json")
    return Reply(_echo_body(request["headers"], request["path"]), 400, content_type="application/json")


def _model(provider: str) -> str:
    return str(builtin_models(provider)[0]["id"])


# --------------------------------------------------------------------------- the two setups

# (label, provider, model, the sentinels the request carries)
Case = tuple[str, str, str, list[str]]


def _environment_setup(
    echo: str,
) -> tuple[dict[str, str], dict[str, Any], dict[str, Any] | None, list[str], list[Case]]:
    """Credentials from the environment, ``--api-key`` and models.json."""
    s = _sentinel
    env = {
        "ANTHROPIC_AUTH_TOKEN": s("anthropic-auth-token"),
        "OPENAI_API_KEY": s("openai-env-key"),
        "GEMINI_API_KEY": s("gemini-env-key"),
        "MISTRAL_API_KEY": s("mistral-env-key"),
        "AZURE_OPENAI_API_KEY": s("azure-env-key"),
        "AZURE_OPENAI_BASE_URL": echo,
        "CLOUDFLARE_API_KEY": s("cloudflare-gateway-key"),
        "CLOUDFLARE_ACCOUNT_ID": "acct-1",
        "CLOUDFLARE_GATEWAY_ID": "gw-1",
        "AWS_BEARER_TOKEN_BEDROCK": s("bedrock-bearer"),
        "AWS_REGION": "us-east-1",
        "COPILOT_GITHUB_TOKEN": s("copilot-env-token"),
        "GOOGLE_CLOUD_API_KEY": s("vertex-env-key"),
        "ECHO_KEY_VAR": s("models-json-key-var"),
        "ECHO_HEADER_VAR": s("models-json-header-var"),
    }
    custom = {"api": "openai-completions", "baseUrl": echo, "models": [{"id": "echo-model"}]}
    providers = {
        name: {"baseUrl": echo}
        for name in (
            "anthropic",
            "openai",
            "google",
            "mistral",
            "cloudflare-ai-gateway",
            "amazon-bedrock",
            "github-copilot",
            "google-vertex",
            "groq",
        )
    }
    providers.update(
        {
            "echo-literal": {
                **custom,
                "apiKey": s("models-json-key-literal"),
                "headers": {
                    "X-Team": s("models-json-header-literal"),
                    "X-Env-Header": "$ECHO_HEADER_VAR",
                    "X-Cmd-Header": f"!printf {s('models-json-header-command')}",
                },
            },
            "echo-var": {**custom, "apiKey": "$ECHO_KEY_VAR"},
            "echo-command": {**custom, "apiKey": f"!printf {s('models-json-key-command')}", "authHeader": True},
        }
    )
    argv = ["--model", f"groq/{_model('groq')}", "--api-key", s("runtime-api-key")]
    cases: list[Case] = [
        ("--api-key", "groq", _model("groq"), [s("runtime-api-key")]),
        ("ANTHROPIC_AUTH_TOKEN", "anthropic", _model("anthropic"), [s("anthropic-auth-token")]),
        ("env OPENAI_API_KEY", "openai", _model("openai"), [s("openai-env-key")]),
        ("env GEMINI_API_KEY", "google", _model("google"), [s("gemini-env-key")]),
        ("env MISTRAL_API_KEY", "mistral", _model("mistral"), [s("mistral-env-key")]),
        ("env AZURE_OPENAI_API_KEY", "azure", _model("azure"), [s("azure-env-key")]),
        ("Cloudflare AI Gateway key", "cloudflare-ai-gateway", "claude-fable-5", [s("cloudflare-gateway-key")]),
        ("AWS_BEARER_TOKEN_BEDROCK", "amazon-bedrock", _model("amazon-bedrock"), [s("bedrock-bearer")]),
        ("COPILOT_GITHUB_TOKEN", "github-copilot", _model("github-copilot"), [s("copilot-env-token")]),
        ("env GOOGLE_CLOUD_API_KEY", "google-vertex", _model("google-vertex"), [s("vertex-env-key")]),
        (
            "models.json apiKey and headers (literal, $VAR, !command)",
            "echo-literal",
            "echo-model",
            [
                s("models-json-key-literal"),
                s("models-json-header-literal"),
                s("models-json-header-var"),
                s("models-json-header-command"),
            ],
        ),
        ("models.json apiKey $VAR", "echo-var", "echo-model", [s("models-json-key-var")]),
        ("models.json apiKey !command, authHeader", "echo-command", "echo-model", [s("models-json-key-command")]),
    ]
    return env, {"providers": providers}, None, argv, cases


def _stored_setup(
    echo: str, home: Path
) -> tuple[dict[str, str], dict[str, Any], dict[str, Any] | None, list[str], list[Case]]:
    """Credentials from auth.json (keys and OAuth logins) and ambient AWS / gcloud files."""
    s = _sentinel
    auth = {
        "anthropic": {
            "type": "oauth",
            "access": f"sk-ant-oat01-{s('anthropic-oauth')}",
            "refresh": s("anthropic-oauth-refresh"),
            "expires": FAR,
        },  # fmt: skip
        # No ``proxy-ep``: the API is Copilot's individual host (intercepted).
        "github-copilot": {
            "type": "oauth",
            "access": f"tid=1;exp=9;{s('copilot-oauth')}",
            "refresh": s("copilot-github-token"),
            "expires": FAR,
        },  # fmt: skip
        "xai": {"type": "oauth", "access": s("xai-oauth"), "refresh": s("xai-oauth-refresh"), "expires": FAR},
        "deepseek": {"type": "api_key", "key": s("auth-json-key-literal")},
        "groq": {"type": "api_key", "key": "$GROQ_FROM_ENTRY", "env": {"GROQ_FROM_ENTRY": s("auth-json-key-var")}},
        "cerebras": {"type": "api_key", "key": f"!printf {s('auth-json-key-command')}"},
        "google-vertex": {"type": "api_key", "env": {"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"}},
    }
    gcloud = home / ".config" / "gcloud"
    gcloud.mkdir(parents=True, exist_ok=True)
    user = {
        "type": "authorized_user",
        "client_id": "cid.apps.googleusercontent.com",
        "client_secret": s("gcloud-client-secret"),
        "refresh_token": s("gcloud-refresh-token"),
    }
    (gcloud / "application_default_credentials.json").write_text(json.dumps(user))
    env = {
        "AWS_ACCESS_KEY_ID": "AKIASENTINELKEYID7D1E",
        "AWS_SECRET_ACCESS_KEY": s("aws-secret-key"),
        "AWS_SESSION_TOKEN": s("aws-session-token"),
        "AWS_REGION": "us-east-1",
    }
    providers = {name: {"baseUrl": echo} for name in ("anthropic", "xai", "deepseek", "groq", "cerebras", "google-vertex", "amazon-bedrock")}  # fmt: skip
    cases: list[Case] = [
        ("auth.json Anthropic OAuth", "anthropic", _model("anthropic"), [s("anthropic-oauth")]),
        ("auth.json GitHub Copilot OAuth", "github-copilot", _model("github-copilot"), [s("copilot-oauth")]),
        ("auth.json xAI OAuth", "xai", _model("xai"), [s("xai-oauth")]),
        ("auth.json api_key literal", "deepseek", _model("deepseek"), [s("auth-json-key-literal")]),
        ("auth.json api_key $VAR from the entry's env", "groq", _model("groq"), [s("auth-json-key-var")]),
        ("auth.json api_key !command", "cerebras", _model("cerebras"), [s("auth-json-key-command")]),
        (
            "Vertex ADC (gcloud user credentials)",
            "google-vertex",
            _model("google-vertex"),
            # the access token to the API; the refresh token and client secret to Google's token endpoint
            [VERTEX_ADC_ACCESS, s("gcloud-refresh-token"), s("gcloud-client-secret")],
        ),
        (
            "AWS keys (SigV4, session token)",
            "amazon-bedrock",
            _model("amazon-bedrock"),
            [s("aws-session-token"), "AKIASENTINELKEYID7D1E"],
        ),  # fmt: skip
    ]
    return env, {"providers": providers}, auth, [], cases


_CLEARED = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GCLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_OAUTH_TOKEN",
)


def _run(tmp_path: Path, setup: str) -> tuple[list[Case], bytes, list[dict[str, Any]], str]:
    """One process through every case of ``setup``; (cases, every byte written, the turns'
    failed replies, what the stubs received)."""
    echo = EchoServer()
    hosts = ["oauth2.googleapis.com", "api.individual.githubcopilot.com"]
    try:
        with Interceptor(tmp_path / "tls", hosts, [Reply(b"{}", 404)], route=_intercepted) as box:
            env = isolated_env(tmp_path, box.proxy_env(), faux=False)
            for name in _CLEARED:
                env.pop(name, None)
            env.update(AWS_EC2_METADATA_DISABLED="true", AWS_BEDROCK_FORCE_HTTP1="1")
            if setup == "environment":
                extra, models, auth, argv, cases = _environment_setup(echo.url)
            else:
                extra, models, auth, argv, cases = _stored_setup(echo.url, Path(env["HOME"]))
            env.update(extra)
            agent = Path(env["PI_CODING_AGENT_DIR"])
            (agent / "models.json").write_text(json.dumps(models))
            (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
            if auth is not None:
                (agent / "auth.json").write_text(json.dumps(auth))
            cwd = tmp_path / "cwd"
            cwd.mkdir()
            sessions = tmp_path / "sessions"
            proc = PiProcess([*OURS, "--mode", "rpc", "--session-dir", str(sessions), *argv], env, cwd, root=tmp_path)
            failures: list[dict[str, Any]] = []
            try:
                for label, provider, model, _secrets in cases:
                    if label != "--api-key":
                        proc.ok("set_model", provider=provider, modelId=model)
                    mark = proc.mark()
                    proc.ok("prompt", message=f"hi via {label}")
                    end = proc.wait_for(lambda r: r.get("type") == "agent_end", timeout=60, start=mark)
                    failures.append([m for m in end["messages"] if m.get("role") == "assistant"][-1])
                export = tmp_path / "export.html"
                assert Path(proc.ok("export_html", outputPath=str(export), timeout=30)["path"]) == export
            finally:
                proc.close()
            seen = echo.seen() + json.dumps(box.requests)
    finally:
        echo.close()
    written = b"".join(proc.raw_lines) + proc.stderr.encode() + export.read_bytes()
    session_files = list(sessions.rglob("*.jsonl"))
    assert session_files
    for path in session_files:
        written += path.read_bytes()
    return cases, written, failures, seen


@pytest.mark.parametrize("setup", ["environment", "stored"])
def test_credentials_echoed_by_a_provider_are_redacted_everywhere(tmp_path: Path, setup: str) -> None:
    cases, written, failures, seen = _run(tmp_path, setup)
    assert len(failures) == len(cases)
    for (label, _provider, _model_id, secrets), failure in zip(cases, failures, strict=True):
        for secret in secrets:
            assert secret in seen, f"{label}: the request did not carry {secret}"
        assert failure["stopReason"] == "error", (label, failure)
        assert "[redacted]" in failure["errorMessage"], (label, failure["errorMessage"])
    # The AWS secret key is never sent (it signs), so it is only looked for in the output.
    everything = [secret for case in cases for secret in case[3]] + [_sentinel("aws-secret-key")]
    leaked = sorted({secret for secret in everything if secret.encode() in written})
    assert leaked == []
