"""The account sign-ins of ``openai`` (Sign in with ChatGPT) and ``radius`` and the several
questions of Bedrock, Vertex and Cloudflare's API key logins, through RPC ``auth_login`` with a
scripted client (token endpoints behind the TLS interceptor, the browser played by requesting
the localhost callback), and through ``pi auth login`` in a terminal side by side with upstream
(skipped without it). Every byte the process writes is scanned for the sentinel secrets."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor
from tests.auth.fixed_ports import holding_port
from tests.auth.test_auth_login_terminal import Terminal
from tests.auth.test_auth_rpc import (
    ACCESS,
    API_KEY,
    CODE,
    REFRESH,
    _json,
    _spawn,
    _stored,
    _ui_request,
    assert_no_secret,
)
from tests.support.pi_process import OURS, PiProcess, isolated_env, upstream_argv

CHATGPT_TOKENS = {
    "access_token": ACCESS,
    "refresh_token": REFRESH,
    "id_token": "id.token.sig",
    "expires_in": 3600,
    "scope": "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct",
}
ISSUED_CLIENT = "app_issued_42"


@pytest.fixture
def port_1455() -> Iterator[None]:
    with holding_port(1455):
        yield


@pytest.fixture
def port_1456() -> Iterator[None]:
    with holding_port(1456):
        yield


def _url_in(note: dict[str, Any], prefix: str) -> dict[str, str]:
    found = re.search(re.escape(prefix) + r"\?\S+", note["message"])
    assert found is not None, note
    return {k: v[0] for k, v in parse_qs(urlsplit(found.group(0)).query).items()}


def _note(proc: PiProcess, text: str) -> dict[str, Any]:
    record: dict[str, Any] = proc.wait_for(
        lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "notify" and text in r["message"],
        timeout=20,
    )
    return record


# ------------------------------------------------------------------------------ Sign in with ChatGPT


def test_openai_chatgpt_sign_in_writes_the_device_id_and_stores_the_issued_client(
    spawn_pi: Callable[..., PiProcess], tmp_path: Path, port_1455: None
) -> None:
    agent = tmp_path / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "settings.json").write_text('{\n  "theme": "dark"\n}\n')
    with Interceptor(tmp_path / "tls", ["auth.openai.com"], [_json(CHATGPT_TOKENS)]) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="openai")
        params = _url_in(_note(proc, "Open this URL"), "https://auth.openai.com/api/accounts/authorize")
        _ui_request(proc, "input")  # the pasted-URL way in, left unanswered
        settings = json.loads((agent / "settings.json").read_text())
        device_id = settings["deviceId"]
        assert uuid.UUID(device_id).version == 4 and settings["theme"] == "dark"
        assert params["ext_agent_host_id"] == f"urn:uuid:{device_id}"
        assert {k: params[k] for k in ("client_id", "agent_name_hint", "redirect_uri", "resource", "scope")} == {
            "client_id": "dynamic_agent_client",
            "agent_name_hint": "Pi",
            "redirect_uri": "http://127.0.0.1:1455/auth/callback",
            "resource": "https://api.openai.com/v1",
            "scope": CHATGPT_TOKENS["scope"],
        }
        base = "http://127.0.0.1:1455/auth/callback"
        with pytest.raises(urllib.error.HTTPError) as missing:  # no issued client id: the server keeps waiting
            urllib.request.urlopen(f"{base}?{urlencode({'code': CODE, 'state': params['state']})}", timeout=10)
        assert missing.value.code == 400
        query = urlencode({"code": CODE, "state": params["state"], "client_id": ISSUED_CLIENT})
        with urllib.request.urlopen(f"{base}?{query}", timeout=10) as page:
            assert page.status == 200
        response = proc.response(cmd_id, timeout=20)
    assert response["success"] is True, response
    stored = _stored(proc)["openai"]
    assert list(stored) == ["type", "access", "refresh", "expires", "clientId", "scopes"]
    assert (stored["access"], stored["clientId"]) == (ACCESS, ISSUED_CLIENT)
    assert stored["scopes"] == CHATGPT_TOKENS["scope"].split()
    [token] = box.requests
    assert (token["method"], token["path"]) == ("POST", "/api/accounts/oauth/token")
    form = {k: v[0] for k, v in parse_qs(token["body"]).items()}
    assert {k: form[k] for k in ("grant_type", "client_id", "code", "redirect_uri", "resource")} == {
        "grant_type": "authorization_code",
        "client_id": ISSUED_CLIENT,
        "code": CODE,
        "redirect_uri": "http://127.0.0.1:1455/auth/callback",
        "resource": "https://api.openai.com/v1",
    }
    # the second login reuses the installation's id
    cmd_id = proc.request("auth_login", provider="openai")
    again = _url_in(_note(proc, "Open this URL"), "https://auth.openai.com/api/accounts/authorize")
    assert again["ext_agent_host_id"] == f"urn:uuid:{device_id}"
    proc.send({"type": "abort"})
    assert proc.response(cmd_id, timeout=20)["success"] is False
    assert_no_secret(proc, tmp_path)


def test_openai_pasted_url_must_be_the_callback(
    spawn_pi: Callable[..., PiProcess], tmp_path: Path, port_1455: None
) -> None:
    proc = spawn_pi("--no-session", faux=False)
    cmd_id = proc.request("auth_login", provider="openai")
    request = _ui_request(proc, "input")
    proc.send({"type": "extension_ui_response", "id": request["id"], "value": "http://localhost:1455/x?code=1"})
    response = proc.response(cmd_id, timeout=20)
    assert response["error"] == (
        "Login failed for openai: The pasted callback URL must start with http://127.0.0.1:1455/auth/callback"
    )
    assert not (proc.agent_dir / "auth.json").exists()


def test_openai_chatgpt_answer_without_the_direct_scope_is_refused(
    spawn_pi: Callable[..., PiProcess], tmp_path: Path, port_1455: None
) -> None:
    narrow = {**CHATGPT_TOKENS, "scope": "openid"}
    with Interceptor(tmp_path / "tls", ["auth.openai.com"], [_json(narrow)]) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="openai")
        params = _url_in(_note(proc, "Open this URL"), "https://auth.openai.com/api/accounts/authorize")
        request = _ui_request(proc, "input")
        pasted = "http://127.0.0.1:1455/auth/callback?" + urlencode(
            {"code": CODE, "state": params["state"], "client_id": ISSUED_CLIENT}
        )
        proc.send({"type": "extension_ui_response", "id": request["id"], "value": pasted})
        response = proc.response(cmd_id, timeout=20)
    assert response["error"] == "Login failed for openai: OpenAI OAuth grant did not include chatgpt.tokens.use.direct"
    assert not (proc.agent_dir / "auth.json").exists()
    assert_no_secret(proc, tmp_path)


# ------------------------------------------------------------------------------------------ Radius

RADIUS_TOKENS = {"access_token": ACCESS, "refresh_token": REFRESH, "expires_in": 3600, "scope": "gateway"}


def test_radius_browser_sign_in_discovers_the_authorize_endpoint(
    spawn_pi: Callable[..., PiProcess], tmp_path: Path, port_1456: None
) -> None:
    discovery = _json({"authorizationEndpoint": "https://radius.pi.dev/oauth/authorize"})
    with Interceptor(tmp_path / "tls", ["radius.pi.dev"], [discovery, _json(RADIUS_TOKENS)]) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="radius", method="browser")
        _note(proc, "Listening for OAuth callback on http://127.0.0.1:1456/oauth/callback")
        params = _url_in(_note(proc, "Open this URL"), "https://radius.pi.dev/oauth/authorize")
        assert {k: params[k] for k in ("client_id", "scope", "handoff", "redirect_uri", "code_challenge_method")} == {
            "client_id": "pi-gateway",
            "scope": "gateway offline_access",
            "handoff": "url",
            "redirect_uri": "http://127.0.0.1:1456/oauth/callback",
            "code_challenge_method": "S256",
        }
        uuid.UUID(params["state"])
        callback = "http://127.0.0.1:1456/oauth/callback?" + urlencode({"code": CODE, "state": params["state"]})
        with urllib.request.urlopen(callback, timeout=10) as page:
            assert page.status == 200
        response = proc.response(cmd_id, timeout=20)
    assert response["success"] is True, response
    stored = _stored(proc)["radius"]
    assert list(stored) == ["type", "access", "refresh", "expires", "scope"]
    assert [(r["method"], r["path"]) for r in box.requests] == [("GET", "/v1/oauth"), ("POST", "/v1/oauth/token")]
    form = {k: v[0] for k, v in parse_qs(box.requests[1]["body"]).items()}
    assert (form["grant_type"], form["code"], form["client_id"]) == ("authorization_code", CODE, "pi-gateway")
    assert not (proc.agent_dir / "mcp.json").exists()  # RPC's login asks nothing more and writes no MCP server
    assert_no_secret(proc, tmp_path)


def test_radius_device_code_sign_in(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    device = {
        "device_code": "RDEV",
        "user_code": "RAD-1",
        "verification_uri": "https://radius.pi.dev/device",
        "expires_in": 60,
        "interval": 1,
    }
    replies = [_json(device), _json({"error": "authorization_pending"}, 400), _json(RADIUS_TOKENS)]
    with Interceptor(tmp_path / "tls", ["radius.pi.dev"], replies) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="radius", method="device-code")
        assert _note(proc, "enter code")["message"] == "Open https://radius.pi.dev/device and enter code: RAD-1"
        response = proc.response(cmd_id, timeout=30)
    assert response["success"] is True, response
    assert [(r["method"], r["path"]) for r in box.requests] == [
        ("POST", "/v1/oauth/device"),
        ("POST", "/v1/oauth/token"),
        ("POST", "/v1/oauth/token"),
    ]
    assert parse_qs(box.requests[0]["body"]) == {"client_id": ["pi-gateway"], "scope": ["gateway offline_access"]}
    assert parse_qs(box.requests[2]["body"])["device_code"] == ["RDEV"]
    assert _stored(proc)["radius"]["access"] == ACCESS
    assert_no_secret(proc, tmp_path)


def test_radius_denied_device_code(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    device = {"device_code": "D", "user_code": "U", "verification_uri": "https://radius.pi.dev/d", "expires_in": 60}
    replies = [_json(device), _json({"error": "access_denied"}, 400)]
    with Interceptor(tmp_path / "tls", ["radius.pi.dev"], replies) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="radius", method="device-code")
        response = proc.response(cmd_id, timeout=30)
    assert response["error"] == "Login failed for radius: Device authorization was denied."


# ------------------------------------------------------------------ several-question API key logins


def _answers(proc: PiProcess, cmd_id: str, answers: list[tuple[str, str]]) -> dict[str, Any]:
    """Answer each dialog in turn: (expected title, value); a select is answered by label."""
    start = len(proc.records)
    for title, value in answers:
        request: dict[str, Any] = proc.wait_for(
            lambda r: r.get("type") == "extension_ui_request" and r.get("method") in ("select", "input"),
            timeout=20,
            start=start,
        )
        start = next(i for i, r in enumerate(proc.records) if r is request) + 1
        assert request["title"] == title, request
        proc.send({"type": "extension_ui_response", "id": request["id"], "value": value})
    response: dict[str, Any] = proc.response(cmd_id, timeout=20)
    return response


def test_bedrock_profile_login_stores_the_environment(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    proc = spawn_pi("--no-session", faux=False)
    cmd_id = proc.request("auth_login", provider="amazon-bedrock")
    response = _answers(
        proc,
        cmd_id,
        [("Select Amazon Bedrock authentication method:", "AWS profile"), ("Enter AWS profile name", "work")],
    )
    assert response["data"] == {"provider": "amazon-bedrock", "authType": "api_key"}
    assert _note(proc, "AWS credential provider chain")["message"] == (
        "Amazon Bedrock supports AWS profiles, IAM credentials, and role-based credentials.\n"
        "AWS credential provider chain: https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html"
    )
    assert (proc.agent_dir / "auth.json").read_bytes() == json.dumps(
        {"amazon-bedrock": {"type": "api_key", "env": {"AWS_PROFILE": "work"}}}, indent=2
    ).encode()


def test_bedrock_bearer_token_and_vertex_adc(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    proc = spawn_pi("--no-session", faux=False)
    cmd_id = proc.request("auth_login", provider="amazon-bedrock")
    _answers(
        proc,
        cmd_id,
        [
            ("Select Amazon Bedrock authentication method:", "Bearer token"),
            ("Enter Amazon Bedrock bearer token", API_KEY),
        ],
    )
    cmd_id = proc.request("auth_login", provider="google-vertex", method="api_key")
    _answers(
        proc,
        cmd_id,
        [
            ("Select Google Vertex AI authentication method:", "Application Default Credentials"),
            ("Enter Google Cloud project ID", "proj-1"),
            ("Enter Google Cloud location", "us-central1"),
        ],
    )
    assert _stored(proc) == {
        "amazon-bedrock": {"type": "api_key", "key": API_KEY},
        "google-vertex": {
            "type": "api_key",
            "env": {"GOOGLE_CLOUD_PROJECT": "proj-1", "GOOGLE_CLOUD_LOCATION": "us-central1"},
        },
    }
    assert_no_secret(proc, tmp_path)


def test_cloudflare_ai_gateway_asks_key_account_and_gateway(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    proc = spawn_pi("--no-session", faux=False)
    cmd_id = proc.request("auth_login", provider="cloudflare-ai-gateway")
    _answers(
        proc,
        cmd_id,
        [
            ("Enter Cloudflare API key", API_KEY),
            ("Enter Cloudflare account ID", "acct"),
            ("Enter Cloudflare AI Gateway ID", "gw"),
        ],
    )
    assert _stored(proc) == {
        "cloudflare-ai-gateway": {
            "type": "api_key",
            "key": API_KEY,
            "env": {"CLOUDFLARE_ACCOUNT_ID": "acct", "CLOUDFLARE_GATEWAY_ID": "gw"},
        }
    }
    assert_no_secret(proc, tmp_path)


# --------------------------------------------------------------- pi auth login, side by side


def _chatgpt_terminal(
    argv: list[str], root: Path
) -> tuple[int, str, dict[str, str], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``pi auth login openai --no-browser`` with the callback URL pasted: (exit code, output,
    authorize parameters, token request form, stored credential, settings.json)."""
    with Interceptor(root / "tls", ["auth.openai.com"], [_json(CHATGPT_TOKENS)]) as box:
        env = isolated_env(root, box.proxy_env(), faux=False)
        term = Terminal([*argv, "auth", "login", "openai", "--no-browser"], env, root)
        screen = term.expect("(http://127.0.0.1:1455/auth/callback): ")
        url = re.search(r"https://auth\.openai\.com/api/accounts/authorize\?\S+", screen)
        assert url is not None, screen
        params = {k: v[0] for k, v in parse_qs(urlsplit(url.group(0)).query).items()}
        term.send(
            "http://127.0.0.1:1455/auth/callback?"
            + urlencode({"code": "tty-code", "state": params["state"], "client_id": ISSUED_CLIENT})
        )
        code = term.finish()
    text = term.output.decode(errors="replace").replace(str(root), "<root>")
    assert ACCESS not in text and REFRESH not in text
    form = {k: v[0] for k, v in parse_qs(box.requests[0]["body"]).items()}
    stored = json.loads((root / "agent" / "auth.json").read_text())["openai"]
    settings = json.loads((root / "agent" / "settings.json").read_text())
    return code, text, params, form, stored, settings


@pytest.mark.skipif(upstream_argv() is None, reason="upstream pi 1.6 is not installed")
def test_chatgpt_terminal_sign_in_same_as_upstream(tmp_path: Path, port_1455: None) -> None:
    up = upstream_argv()
    assert up is not None
    ours = _chatgpt_terminal(OURS, tmp_path / "ours")
    theirs = _chatgpt_terminal(up, tmp_path / "up")
    assert ours[0] == theirs[0] == 0, (ours[1], theirs[1])
    random = ("state", "nonce", "code_challenge", "ext_agent_host_id")
    assert {k: v for k, v in ours[2].items() if k not in random} == {
        k: v for k, v in theirs[2].items() if k not in random
    }
    assert list(ours[2]) == list(theirs[2])  # the parameters' order
    assert {k: v for k, v in ours[3].items() if k != "code_verifier"} == {
        k: v for k, v in theirs[3].items() if k != "code_verifier"
    }
    assert list(ours[4]) == list(theirs[4])
    assert {k: v for k, v in ours[4].items() if k != "expires"} == {
        k: v for k, v in theirs[4].items() if k != "expires"
    }
    assert list(ours[5]) == list(theirs[5]) == ["deviceId"]
    for side in (ours, theirs):
        assert side[2]["ext_agent_host_id"] == f"urn:uuid:{side[5]['deviceId']}"
    written = [(root / "agent" / "settings.json").read_text() for root in (tmp_path / "ours", tmp_path / "up")]
    assert written[0].replace(ours[5]["deviceId"], "<id>") == written[1].replace(theirs[5]["deviceId"], "<id>")
    for line in ("Logged in to OpenAI. Credentials saved to <root>/agent/auth.json",):
        assert line in ours[1] and line in theirs[1]


def _radius_terminal(argv: list[str], root: Path) -> tuple[int, str, list[tuple[str, str]], bytes]:
    device = {
        "device_code": "RD",
        "user_code": "RAD-2",
        "verification_uri": "https://radius.pi.dev/device",
        "expires_in": 60,
        "interval": 1,
    }

    def route(request: dict[str, Any]) -> Reply | None:
        if request["path"] == "/v1/oauth/device":
            return _json(device)
        if request["path"] == "/v1/oauth/token":
            return _json(RADIUS_TOKENS)
        return _json({"error": "nope"}, 404)  # upstream's catalog refresh after the login

    with Interceptor(root / "tls", ["radius.pi.dev"], [_json({})], route) as box:
        env = isolated_env(root, box.proxy_env(), faux=False)
        term = Terminal([*argv, "auth", "login", "radius", "--no-browser"], env, root)
        term.expect("Open https://radius.pi.dev/device and enter code: RAD-2")
        code = term.finish()
    text = term.output.decode(errors="replace").replace(str(root), "<root>")
    assert ACCESS not in text and REFRESH not in text
    paths = [(r["method"], r["path"]) for r in box.requests if r["path"].startswith("/v1/oauth")]
    return code, text, paths, (root / "agent" / "mcp.json").read_bytes()


@pytest.mark.skipif(upstream_argv() is None, reason="upstream pi 1.6 is not installed")
def test_radius_terminal_sign_in_and_mcp_server_same_as_upstream(tmp_path: Path) -> None:
    up = upstream_argv()
    assert up is not None
    ours = _radius_terminal(OURS, tmp_path / "ours")
    theirs = _radius_terminal(up, tmp_path / "up")
    assert ours[0] == theirs[0] == 0, (ours[1], theirs[1])
    assert ours[2] == theirs[2]
    assert ours[3] == theirs[3]  # the mcp.json upstream writes after the Radius login
    for line in (
        "Sign in to Radius: Sign in with device code (when signing in from another device)",
        "Logged in to Radius. Credentials saved to <root>/agent/auth.json",
        'Added MCP server "radius" in <root>/agent/mcp.json to use the Radius login.',
    ):
        assert line in ours[1] and line in theirs[1], (ours[1], theirs[1])


def test_radius_terminal_login_keeps_a_server_already_using_it(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir(parents=True)
    existing = '{\n    "mcpServers": {\n        "radius": {"url": "https://radius.pi.dev/mcp/", "oauth": {"clientId": "x"}}\n    }\n}\n'
    (agent / "mcp.json").write_text(existing)
    code, text, _paths, written = _radius_terminal(OURS, tmp_path)
    assert code == 0, text
    assert 'Updated MCP server "radius" in <root>/agent/mcp.json to use the Radius login.' in text
    assert json.loads(written) == {
        "mcpServers": {"radius": {"url": "https://radius.pi.dev/mcp/", "auth": {"provider": "radius"}}}
    }
    assert written.startswith(b'{\n    "mcpServers"')  # the file's indentation kept


def test_device_id_kept_created_and_never_written_over_a_broken_settings_file(tmp_path: Path) -> None:
    from pi_rpc.ai.auth.oauth.openai_chatgpt import get_or_create_device_id

    created = get_or_create_device_id(tmp_path)
    assert json.loads((tmp_path / "settings.json").read_text()) == {"deviceId": created}
    assert get_or_create_device_id(tmp_path) == created
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "settings.json").write_text("{ not json")
    assert uuid.UUID(get_or_create_device_id(broken)).version == 4
    assert (broken / "settings.json").read_text() == "{ not json"


def _bedrock_terminal(argv: list[str], root: Path) -> tuple[int, str, bytes]:
    term = Terminal([*argv, "auth", "login", "amazon-bedrock"], isolated_env(root, faux=False), root)
    term.expect("Select 1-3: ")
    term.send("2")
    term.expect("Enter AWS profile name: ")
    term.send("work")
    code = term.finish()
    text = term.output.decode(errors="replace").replace(str(root), "<root>")
    return code, text, (root / "agent" / "auth.json").read_bytes()


def test_bedrock_terminal_login_asks_upstreams_questions(tmp_path: Path) -> None:
    code, text, stored = _bedrock_terminal(OURS, tmp_path)
    assert code == 0, text
    assert "Select Amazon Bedrock authentication method:\r\n  1. Bearer token\r\n  2. AWS profile" in text
    assert "  AWS credential provider chain: https://docs.aws.amazon.com/sdkref/" in text
    assert "Saved API key for Amazon Bedrock. Credentials saved to <root>/agent/auth.json" in text
    assert json.loads(stored) == {"amazon-bedrock": {"type": "api_key", "env": {"AWS_PROFILE": "work"}}}


@pytest.mark.skipif(upstream_argv() is None, reason="upstream pi 1.6 is not installed")
def test_bedrock_terminal_login_same_as_upstream(tmp_path: Path) -> None:
    up = upstream_argv()
    assert up is not None
    ours = _bedrock_terminal(OURS, tmp_path / "ours")
    theirs = _bedrock_terminal(up, tmp_path / "up")
    assert (ours[0], ours[2]) == (theirs[0], theirs[2])

    def lines(text: str) -> list[str]:
        # the typed answers' echo is the line editor's (upstream's readline redraws with escapes)
        plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text).replace("\r", "")
        prompts = ("Select 1-3:", "Enter AWS profile name:")
        return [line for line in plain.split("\n") if line.strip() and not line.startswith(prompts)]

    assert lines(ours[1]) == lines(theirs[1])
