"""RPC ``get_auth_status``, ``auth_login`` and ``auth_logout`` end to end through the real
subprocess: a scripted client answers the extension UI dialogs, the token endpoints (fixed HTTPS
hosts) are served through the local TLS interceptor, the browser step is played by requesting
the localhost callback URL. Every byte the process writes (stdout, stderr, files other than
auth.json) is scanned for the sentinel secrets."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import PiProcess

ACCESS = "SENTINEL-ACCESS-7f3a9c"
REFRESH = "SENTINEL-REFRESH-51be02"
API_KEY = "SENTINEL-APIKEY-c0ffee"
CODE = "SENTINEL-CODE-9d8e7f"
SECRETS = (ACCESS, REFRESH, API_KEY, CODE)


def _json(body: Any, status: int = 200) -> Reply:
    return Reply(body=json.dumps(body).encode(), status=status, content_type="application/json")


def _tokens() -> Reply:
    return _json({"access_token": ACCESS, "refresh_token": REFRESH, "expires_in": 3600, "token_type": "Bearer"})


def assert_no_secret(proc: PiProcess, root: Path) -> None:
    """No sentinel on stdout, stderr, or in any file under ``root`` but auth.json."""
    written = b"".join(proc.raw_lines) + proc.stderr.encode()
    for path in root.rglob("*"):
        if path.is_file() and path.name != "auth.json" and not path.name.endswith((".pem", ".key", ".csr")):
            written += path.read_bytes()
    for secret in SECRETS:
        assert secret.encode() not in written, secret


def _ui_request(proc: PiProcess, method: str, start: int = 0) -> dict[str, Any]:
    record: dict[str, Any] = proc.wait_for(
        lambda r: r.get("type") == "extension_ui_request" and r.get("method") == method, timeout=20, start=start
    )
    return record


def _answer(proc: PiProcess, request: dict[str, Any], value: str) -> None:
    proc.send({"type": "extension_ui_response", "id": request["id"], "value": value})


def _spawn(spawn_pi: Callable[..., PiProcess], box: Interceptor | None = None) -> PiProcess:
    return spawn_pi("--no-session", env=box.proxy_env() if box else None, faux=False)


def _stored(proc: PiProcess) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((proc.agent_dir / "auth.json").read_text())
    return data


def test_status_and_logout(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    agent = tmp_path / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    entries = {
        "anthropic": {"type": "oauth", "access": ACCESS, "refresh": REFRESH, "expires": now + 3_600_000},
        "xai": {"type": "oauth", "access": ACCESS, "refresh": REFRESH, "expires": now + 60_000},
        "kimi-coding": {"type": "oauth", "access": ACCESS, "refresh": REFRESH, "expires": now - 1},
        "groq": {"type": "oauth", "access": ACCESS, "refresh": REFRESH, "expires": now + 3_600_000},
        "openai": {"type": "api_key", "key": API_KEY},
        "mistral": {"type": "api_key", "key": 5},
    }
    (agent / "auth.json").write_text(json.dumps(entries, indent=2))
    proc = spawn_pi("--no-session", env={"CEREBRAS_API_KEY": API_KEY}, faux=False)
    data = proc.ok("get_auth_status")
    by_id = {p["provider"]: p for p in data["providers"]}
    assert by_id["anthropic"] == {
        "provider": "anthropic",
        "name": "Anthropic",
        "authType": "oauth",
        "status": "ready",
        "expiresAt": now + 3_600_000,
        "source": "auth.json",
        "loginMethods": ["oauth", "api_key"],
    }
    assert by_id["xai"]["status"] == "expiring"
    assert by_id["kimi-coding"]["status"] == "expired"
    assert by_id["groq"]["status"] == "error"  # groq has no OAuth login
    assert by_id["mistral"]["status"] == "error"  # invalid entry
    assert (by_id["openai"]["status"], by_id["openai"]["source"]) == ("ready", "auth.json")
    assert (by_id["cerebras"]["status"], by_id["cerebras"]["source"]) == ("ready", "environment")
    assert (by_id["deepseek"]["status"], by_id["deepseek"]["authType"]) == ("missing", None)
    assert by_id["openai-codex"]["loginMethods"] == ["oauth"]  # no API key login
    assert by_id["radius"]["loginMethods"] == ["oauth", "api_key"]
    assert by_id["amazon-bedrock"]["loginMethods"] == ["api_key"]  # its several questions
    one = proc.ok("get_auth_status", provider="openai")
    assert [p["provider"] for p in one["providers"]] == ["openai"]

    assert proc.ok("auth_logout", provider="openai") == {"provider": "openai", "removed": True, "authType": "api_key"}
    assert proc.ok("auth_logout", provider="openai") == {"provider": "openai", "removed": False}
    rest = {k: v for k, v in entries.items() if k != "openai"}
    assert (agent / "auth.json").read_bytes() == json.dumps(rest, indent=2).encode()
    assert proc.ok("get_auth_status", provider="openai")["providers"][0]["status"] == "missing"
    assert_no_secret(proc, tmp_path)


def test_api_key_login_through_an_input_dialog(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    proc = spawn_pi("--no-session", env={"OPENAI_API_KEY": ""}, faux=False)
    assert not [m for m in proc.ok("get_available_models")["models"] if m["provider"] == "openai"]
    cmd_id = proc.request("auth_login", provider="openai", method="api_key")
    request = _ui_request(proc, "input")
    assert request["title"] == "Enter OpenAI API key"
    _answer(proc, request, API_KEY)
    response = proc.response(cmd_id)
    assert response["success"] is True
    assert response["data"] == {"provider": "openai", "authType": "api_key"}
    assert _stored(proc) == {"openai": {"type": "api_key", "key": API_KEY}}
    # the models the new credential enables are listed at once
    assert [m for m in proc.ok("get_available_models")["models"] if m["provider"] == "openai"]
    assert (proc.agent_dir / "auth.json").stat().st_mode & 0o777 == 0o600
    assert_no_secret(proc, tmp_path)


def test_dismissed_dialog_cancels_the_login(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    proc = _spawn(spawn_pi)
    cmd_id = proc.request("auth_login", provider="groq")
    request = _ui_request(proc, "input")
    proc.send({"type": "extension_ui_response", "id": request["id"], "cancelled": True})
    response = proc.response(cmd_id)
    assert (response["success"], response["error"]) == (False, "Login failed for groq: Login cancelled")
    assert not (proc.agent_dir / "auth.json").exists()


def test_xai_device_code_login(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    device = {
        "device_code": "DEV-1",
        "user_code": "WXYZ-1234",
        "verification_uri": "https://accounts.x.ai/device",
        "expires_in": 60,
        "interval": 1,
    }
    replies = [_json(device), _json({"error": "authorization_pending"}, 400), _tokens()]
    with Interceptor(tmp_path / "tls", ["auth.x.ai"], replies) as box:
        proc = _spawn(spawn_pi, box)
        started = time.time()
        cmd_id = proc.request("auth_login", provider="xai")
        note = _ui_request(proc, "notify")
        assert note["message"] == "Open https://accounts.x.ai/device and enter code: WXYZ-1234"
        response = proc.response(cmd_id, timeout=30)
    assert response["success"] is True, response
    data = response["data"]
    assert (data["provider"], data["authType"]) == ("xai", "oauth")
    # expires = now + expires_in·1000 − 5 min
    assert abs(data["expiresAt"] - (started * 1000 + 3_300_000)) < 20_000
    stored = _stored(proc)["xai"]
    assert (list(stored), stored["access"], stored["refresh"]) == (
        ["type", "access", "refresh", "expires"],
        ACCESS,
        REFRESH,
    )
    assert [(r["host"], r["method"], r["path"]) for r in box.requests] == [
        ("auth.x.ai", "POST", "/oauth2/device/code"),
        ("auth.x.ai", "POST", "/oauth2/token"),
        ("auth.x.ai", "POST", "/oauth2/token"),
    ]
    first = parse_qs(box.requests[0]["body"])
    assert first == {
        "client_id": ["b1a00492-073a-47ea-816f-4c329264a828"],
        "scope": ["openid profile email offline_access grok-cli:access api:access"],
        "referrer": ["pi"],
    }
    assert parse_qs(box.requests[1]["body"])["grant_type"] == ["urn:ietf:params:oauth:grant-type:device_code"]
    assert_no_secret(proc, tmp_path)


def test_abort_cancels_a_running_login(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    device = {
        "device_code": "D",
        "user_code": "U-1",
        "verification_uri": "https://x.ai/d",
        "expires_in": 60,
        "interval": 1,
    }
    with Interceptor(
        tmp_path / "tls", ["auth.x.ai"], [_json(device), _json({"error": "authorization_pending"}, 400)]
    ) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="xai")
        _ui_request(proc, "notify")
        assert proc.ok("abort") == {"outcome": "aborted"}
        response = proc.response(cmd_id, timeout=10)
    assert (response["success"], response["error"]) == (False, "Login failed for xai: Login cancelled")
    assert not (proc.agent_dir / "auth.json").exists()


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _auth_url(note: dict[str, Any]) -> dict[str, str]:
    url = re.search(r"https://claude\.ai/oauth/authorize\?\S+", note["message"])
    assert url is not None, note
    return {k: v[0] for k, v in parse_qs(urlsplit(url.group(0)).query).items()}


def test_anthropic_copy_code_login(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    with Interceptor(tmp_path / "tls", ["platform.claude.com"], [_tokens()]) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="anthropic", method="copy_code")
        params = _auth_url(_ui_request(proc, "notify"))
        assert params["redirect_uri"] == "https://platform.claude.com/oauth/code/callback"
        assert params["code_challenge"] == _challenge(params["state"])
        prompt = _ui_request(proc, "input")
        assert (prompt["title"], prompt["placeholder"]) == (
            "Paste the code Anthropic shows after you sign in:",
            "code#state",
        )
        _answer(proc, prompt, f"{CODE}#{params['state']}")
        response = proc.response(cmd_id, timeout=20)
    assert response["success"] is True, response
    assert list(_stored(proc)["anthropic"]) == ["type", "refresh", "access", "expires"]
    body = json.loads(box.requests[0]["body"])
    assert body == {
        "grant_type": "authorization_code",
        "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
        "code": CODE,
        "state": params["state"],
        "redirect_uri": "https://platform.claude.com/oauth/code/callback",
        "code_verifier": params["state"],
    }
    assert_no_secret(proc, tmp_path)


def test_anthropic_browser_login_through_the_localhost_callback(
    spawn_pi: Callable[..., PiProcess], tmp_path: Path
) -> None:
    with Interceptor(tmp_path / "tls", ["platform.claude.com"], [_tokens()]) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="anthropic", method="browser")
        params = _auth_url(_ui_request(proc, "notify"))
        redirect = params["redirect_uri"]
        assert re.fullmatch(r"http://localhost:\d+/callback", redirect)
        _ui_request(proc, "input")  # the pasted-URL way in, left unanswered
        port = urlsplit(redirect).port
        base = f"http://127.0.0.1:{port}/callback"
        try:
            urllib.request.urlopen(f"{base}?code=X&state=wrong", timeout=10)
        except urllib.error.HTTPError as exc:
            assert exc.code == 400  # state mismatch
        with urllib.request.urlopen(f"{base}?code={CODE}&state={params['state']}", timeout=10) as page:
            assert page.status == 200
            assert b"Signed in to Anthropic" in page.read()
        response = proc.response(cmd_id, timeout=20)
    assert response["success"] is True, response
    body = json.loads(box.requests[0]["body"])
    assert (body["code"], body["redirect_uri"], body["code_verifier"]) == (CODE, redirect, params["state"])
    assert_no_secret(proc, tmp_path)


def test_token_endpoint_error_is_redacted(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    echo = _json({"error": "invalid_grant", "refresh_token": REFRESH, "access_token": ACCESS}, 400)
    with Interceptor(tmp_path / "tls", ["platform.claude.com"], [echo]) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="anthropic", method="copy_code")
        params = _auth_url(_ui_request(proc, "notify"))
        _answer(proc, _ui_request(proc, "input"), f"{CODE}#{params['state']}")
        response = proc.response(cmd_id, timeout=20)
    assert response["success"] is False
    assert response["error"].startswith(
        "Login failed for anthropic: Token exchange request failed. url=https://platform.claude.com/v1/oauth/token; "
    )
    assert "invalid_grant" in response["error"] and "[redacted]" in response["error"]
    assert box.requests
    assert_no_secret(proc, tmp_path)


def test_kimi_coding_device_code_login(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    device = {
        "device_code": "DEV-K",
        "user_code": "KIMI-42",
        "verification_uri": "https://www.kimi.com/device",
        "verification_uri_complete": "https://www.kimi.com/device?user_code=KIMI-42",
        "expires_in": 60,
        "interval": 1,
    }
    replies = [_json(device), _json({"error": "authorization_pending"}, 400), _tokens()]
    with Interceptor(tmp_path / "tls", ["auth.kimi.com"], replies) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="kimi-coding")
        note = _ui_request(proc, "notify")
        assert note["message"] == "Open https://www.kimi.com/device?user_code=KIMI-42 and enter code: KIMI-42"
        response = proc.response(cmd_id, timeout=30)
    assert response["success"] is True, response
    stored = _stored(proc)["kimi-coding"]
    assert (list(stored), stored["access"]) == (["type", "access", "refresh", "expires"], ACCESS)
    assert [r["path"] for r in box.requests] == [
        "/api/oauth/device_authorization",
        "/api/oauth/token",
        "/api/oauth/token",
    ]
    assert parse_qs(box.requests[0]["body"]) == {"client_id": ["17e5f671-d194-4dfb-9706-5516cb48c098"]}
    assert_no_secret(proc, tmp_path)


def _jwt(claims: dict[str, Any]) -> str:
    part = base64.b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"eyJhbGciOiJub25lIn0.{part}.c2ln"


def test_openai_codex_device_code_login(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    access = _jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-123"}, "n": ACCESS})
    replies = [
        _json({"device_auth_id": "dev-auth-1", "user_code": "CODX-7", "interval": "1"}),
        _json({"error": {"code": "deviceauth_authorization_pending"}}, 403),
        _json({"authorization_code": CODE, "code_verifier": "verifier-1"}),
        _json({"access_token": access, "refresh_token": REFRESH, "expires_in": 3600}),
    ]
    with Interceptor(tmp_path / "tls", ["auth.openai.com"], replies) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="openai-codex", method="device_code")
        note = _ui_request(proc, "notify")
        assert note["message"] == "Open https://auth.openai.com/codex/device and enter code: CODX-7"
        response = proc.response(cmd_id, timeout=30)
    assert response["success"] is True, response
    stored = _stored(proc)["openai-codex"]
    assert list(stored) == ["type", "access", "refresh", "expires", "accountId"]
    assert (stored["access"], stored["accountId"]) == (access, "acct-123")
    assert [r["path"] for r in box.requests] == [
        "/api/accounts/deviceauth/usercode",
        "/api/accounts/deviceauth/token",
        "/api/accounts/deviceauth/token",
        "/oauth/token",
    ]
    assert json.loads(box.requests[0]["body"]) == {"client_id": "app_EMoamEEZ73f0CkXaXp7hrann"}
    assert parse_qs(box.requests[3]["body"]) == {
        "grant_type": ["authorization_code"],
        "client_id": ["app_EMoamEEZ73f0CkXaXp7hrann"],
        "code": [CODE],
        "code_verifier": ["verifier-1"],
        "redirect_uri": ["https://auth.openai.com/deviceauth/callback"],
    }
    assert_no_secret(proc, tmp_path)


def test_github_copilot_device_flow_token_exchange_and_models(
    spawn_pi: Callable[..., PiProcess], tmp_path: Path
) -> None:
    from pi_rpc.ai.models.catalog import builtin_models

    first, second = [m["id"] for m in builtin_models("github-copilot")][:2]
    copilot_token = f"tid=1;exp=9;proxy-ep=proxy.individual.githubcopilot.com;{ACCESS}"
    polls = iter([_json({"error": "authorization_pending"}), _json({"access_token": API_KEY, "token_type": "bearer"})])
    models = {
        "data": [
            {"id": first, "model_picker_enabled": True, "policy": {"state": "enabled"}},
            {"id": second, "model_picker_enabled": True, "policy": {"state": "unconfigured"}},
            {"id": "no-tools", "model_picker_enabled": True, "capabilities": {"supports": {"tool_calls": False}}},
        ]
    }
    device = {"device_code": "GH-D", "user_code": "ABCD-EFGH", "verification_uri": "https://github.com/login/device",
              "interval": 1, "expires_in": 60}  # fmt: skip

    def route(request: dict[str, Any]) -> Reply | None:
        key = (request["host"], request["path"])
        if key == ("github.com", "/login/device/code"):
            return _json(device)
        if key == ("github.com", "/login/oauth/access_token"):
            return next(polls)
        if key == ("api.github.com", "/copilot_internal/v2/token"):
            return _json({"token": copilot_token, "expires_at": int(time.time()) + 1800})
        if key == ("api.individual.githubcopilot.com", "/models"):
            return _json(models)
        if key == ("api.individual.githubcopilot.com", f"/models/{second}/policy"):
            return _json({})
        return None

    hosts = ["github.com", "api.github.com", "api.individual.githubcopilot.com"]
    with Interceptor(tmp_path / "tls", hosts, [_json({}, 404)], route=route) as box:
        proc = _spawn(spawn_pi, box)
        listed = [m for m in proc.ok("get_available_models")["models"] if m["provider"] == "github-copilot"]
        assert listed == []  # not signed in
        cmd_id = proc.request("auth_login", provider="github-copilot")
        domain = _ui_request(proc, "input")
        assert domain["title"] == "GitHub Enterprise URL/domain (blank for github.com)"
        _answer(proc, domain, "")
        note = _ui_request(proc, "notify")
        assert note["message"] == "Open https://github.com/login/device and enter code: ABCD-EFGH"
        response = proc.response(cmd_id, timeout=30)
        # At once, in this process, only the account's models (protocol/README §8 item 30:
        # upstream lists the whole Copilot catalogue until it restarts).
        listed = [m["id"] for m in proc.ok("get_available_models")["models"] if m["provider"] == "github-copilot"]
    assert listed == [first, second]
    assert response["success"] is True, response
    stored = _stored(proc)["github-copilot"]
    assert list(stored) == ["type", "refresh", "access", "expires", "availableModelIds"]
    assert (stored["refresh"], stored["access"], stored["availableModelIds"]) == (
        API_KEY,
        copilot_token,
        [first, second],
    )
    seen = [(r["host"], r["method"], r["path"]) for r in box.requests]
    assert seen == [
        ("github.com", "POST", "/login/device/code"),
        ("github.com", "POST", "/login/oauth/access_token"),
        ("github.com", "POST", "/login/oauth/access_token"),
        ("api.github.com", "GET", "/copilot_internal/v2/token"),
        ("api.individual.githubcopilot.com", "GET", "/models"),
        ("api.individual.githubcopilot.com", "POST", f"/models/{second}/policy"),
    ]
    assert box.requests[3]["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert json.loads(box.requests[5]["body"]) == {"state": "enabled"}
    assert_no_secret(proc, tmp_path)


def test_meta_device_code_then_key_mint(spawn_pi: Callable[..., PiProcess], tmp_path: Path) -> None:
    device = {
        "device_code": "M-D",
        "user_code": "META-1",
        "verification_uri": "https://auth.meta.com/device",
        "verification_uri_complete": "https://auth.meta.com/device?code=META-1",
        "interval": 1,
        "expires_in": 60,
    }
    replies = [
        _json(device),
        _json({"error": "authorization_pending"}, 400),
        _json({"access_token": REFRESH}),
        _json({"api_key": ACCESS}),
    ]
    with Interceptor(tmp_path / "tls", ["auth.meta.com", "api.meta.ai"], replies) as box:
        proc = _spawn(spawn_pi, box)
        started = time.time()
        cmd_id = proc.request("auth_login", provider="meta")
        note = _ui_request(proc, "notify")
        assert note["message"] == "Open https://auth.meta.com/device?code=META-1 and enter code: META-1"
        response = proc.response(cmd_id, timeout=30)
    assert response["success"] is True, response
    stored = _stored(proc)["meta"]
    assert (list(stored), stored["refresh"], stored["access"]) == (
        ["type", "refresh", "access", "expires"],
        REFRESH,
        ACCESS,
    )
    assert abs(stored["expires"] - (started * 1000 + 86_400_000)) < 30_000
    mint = box.requests[3]
    assert (mint["host"], mint["path"], mint["headers"]["authorization"]) == (
        "api.meta.ai",
        "/muse-code/key",
        f"Bearer {REFRESH}",
    )
    assert_no_secret(proc, tmp_path)


def test_openrouter_callback_exchanges_the_code_before_answering_the_page(
    spawn_pi: Callable[..., PiProcess], tmp_path: Path
) -> None:
    with Interceptor(tmp_path / "tls", ["openrouter.ai"], [_json({"key": API_KEY})]) as box:
        proc = _spawn(spawn_pi, box)
        cmd_id = proc.request("auth_login", provider="openrouter")
        listening = _ui_request(proc, "notify")
        assert listening["message"].startswith("Listening for OpenRouter OAuth callback on http://localhost:")
        note = proc.wait_for(lambda r: "Open this URL to sign in" in str(r.get("message")), timeout=20)
        url = re.search(r"https://openrouter\.ai/auth\?\S+", note["message"])
        assert url is not None
        params = {k: v[0] for k, v in parse_qs(urlsplit(url.group(0)).query).items()}
        assert params["code_challenge_method"] == "S256"
        callback = params["callback_url"].replace("localhost", "127.0.0.1")
        with urllib.request.urlopen(f"{callback}?code={CODE}", timeout=20) as page:
            assert b"Signed in to OpenRouter" in page.read()
        response = proc.response(cmd_id, timeout=20)
    assert response["success"] is True, response
    assert _stored(proc)["openrouter"] == {"type": "oauth", "access": API_KEY, "refresh": "", "expires": 2**53 - 1}
    body = json.loads(box.requests[0]["body"])
    assert body["code"] == CODE and body["code_challenge_method"] == "S256"
    assert (
        base64.urlsafe_b64encode(hashlib.sha256(body["code_verifier"].encode()).digest()).rstrip(b"=").decode()
        == (params["code_challenge"])
    )
    assert_no_secret(proc, tmp_path)
