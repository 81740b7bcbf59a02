"""A provider's OAuth login registered by an extension (``pi.registerProvider(name, {oauth})``).

``tests/fixtures/extensions/oauth_provider.ts`` signs in against a token endpoint the test runs
on 127.0.0.1 (no network). The refresh runs side by side with upstream pi 1.6: with an expired
stored credential both programs call the extension's ``refreshToken`` before the first request,
send the key its ``getApiKey`` derives, and leave the same ``auth.json`` entry. The login runs
through RPC ``auth_login`` (pi_rpc's command; upstream's RPC mode has none): the sign-in URL and
progress reach the client as notices, the code is asked with an ``input`` dialog, and the
credential is stored as upstream stores it. A Python extension's ``oauth`` block works the same.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, drive
from .test_ext_typescript import FIXTURES
from .ts_support import node_available, node_modules_env

EXT = FIXTURES / "oauth_provider.ts"
EXPIRED = {"corp-ai": {"type": "oauth", "refresh": "ref-0", "access": "acc-0", "expires": 1000}}


class TokenServer:
    """``POST /token``: a code or a refresh token for the next numbered access token."""

    def __init__(self) -> None:
        self.grants: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.grants.append(body)
                n = len(server.grants)
                data = json.dumps({"access_token": f"acc-{n}", "refresh_token": f"ref-{n}", "expires_in": 3600})
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *_args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/token"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    server = TokenServer()
    yield server
    server.httpd.shutdown()


def _stored(root: Path) -> dict[str, Any]:
    entry = json.loads((root / "agent" / "auth.json").read_text())["corp-ai"]
    assert entry["expires"] > 10**12  # refreshed: a new expiry in milliseconds
    return {**entry, "expires": "T"}


def _refresh(argv: list[str], root: Path, server: TokenServer, env: dict[str, str]) -> dict[str, Any]:
    steps = [
        {"cmd": {"id": "m", "type": "set_model", "provider": "corp-ai", "modelId": "corp-1"}},
        {"cmd": {"id": "p", "type": "prompt", "message": "hello"}, "wait": "agent_settled"},
    ]
    run = drive(
        argv,
        root,
        [{"text": "hi from corp"}],
        steps,
        args=("-e", str(EXT)),
        files={"agent/auth.json": json.dumps(EXPIRED)},
        env={"CORP_TOKEN_URL": server.url, **env},
    )
    assert run.returncode == 0, run.stderr
    return {
        "authorization": [h.get("authorization") for h in run.headers],
        "stored": _stored(root),
        "grants": list(server.grants),
        "replies": [
            r["message"].get("stopReason") for r in run.of("message_end") if r["message"]["role"] == "assistant"
        ],
    }


@pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")
@pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed")
def test_refresh_through_the_extension_as_upstream(tmp_path: Path) -> None:
    env = node_modules_env()
    ours_server, theirs_server = TokenServer(), TokenServer()
    try:
        ours = _refresh(OURS, tmp_path / "ours", ours_server, env)
        theirs = _refresh(UPSTREAM, tmp_path / "upstream", theirs_server, env)
    finally:
        ours_server.httpd.shutdown()
        theirs_server.httpd.shutdown()
    assert ours == theirs
    assert ours["authorization"] == ["Bearer corp:acc-1"]
    assert ours["grants"] == [{"grant_type": "refresh_token", "refresh_token": "ref-0"}]


def _login(ext_args: tuple[str, ...], root: Path, server: TokenServer, env: dict[str, str]) -> Any:
    steps = [
        {"cmd": {"id": "l", "type": "auth_login", "provider": "corp-ai"}, "wait": None},
        {"answer": {"value": "the-code"}, "method": "input"},
        {"wait": "response"},
        {"cmd": {"id": "m", "type": "set_model", "provider": "corp-ai", "modelId": "corp-1"}},
        {"cmd": {"id": "p", "type": "prompt", "message": "hello"}, "wait": "agent_settled"},
    ]
    return drive(OURS, root, [{"text": "hi"}], steps, args=ext_args, env={"CORP_TOKEN_URL": server.url, **env})


@pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")
def test_auth_login_runs_the_extension_login(tmp_path: Path, token_server: TokenServer) -> None:
    run = _login(("-e", str(EXT)), tmp_path, token_server, node_modules_env())
    assert run.returncode == 0, run.stderr
    login = next(r for r in run.records if r.get("id") == "l")
    assert login["success"], login
    assert login["data"]["provider"] == "corp-ai" and login["data"]["authType"] == "oauth"
    notices = run.ui()
    assert f"Open this URL to sign in:\n{token_server.url}/authorize?client=pi" in notices
    assert "waiting for the code" in notices
    dialog = next(r for r in run.of("extension_ui_request") if r.get("method") == "input")
    assert dialog["title"] == "Paste the code"
    assert token_server.grants == [{"grant_type": "authorization_code", "code": "the-code"}]
    stored = json.loads((tmp_path / "agent" / "auth.json").read_text())["corp-ai"]
    assert list(stored) == ["refresh", "access", "expires", "type"]
    assert (stored["access"], stored["type"]) == ("acc-1", "oauth")
    assert [h.get("authorization") for h in run.headers] == ["Bearer corp:acc-1"]
    assert "acc-1" not in run.stderr and "acc-1" not in json.dumps(run.records)


PY_EXT = """
import json, os, time, urllib.request

def _token(body):
    request = urllib.request.Request(os.environ["CORP_TOKEN_URL"], data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        data = json.loads(response.read())
    return {"refresh": data["refresh_token"], "access": data["access_token"],
            "expires": int(time.time() * 1000) + data["expires_in"] * 1000}

def setup(pi):
    models = json.loads(open(os.path.join(os.environ["PI_CODING_AGENT_DIR"], "models.json")).read())

    async def login(callbacks):
        callbacks["onAuth"]({"url": "https://corp.example/authorize"})
        code = await callbacks["onPrompt"]({"message": "Paste the code"})
        return _token({"grant_type": "authorization_code", "code": code})

    pi.register_provider("corp-ai", {
        "baseUrl": models["providers"]["conf"]["baseUrl"],
        "api": "openai-completions",
        "models": [{"id": "corp-1", "name": "Corp One", "input": ["text"], "contextWindow": 1000, "maxTokens": 100,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}],
        "oauth": {
            "name": "Corp AI (SSO)",
            "login": login,
            "refreshToken": lambda credentials, signal: _token({"grant_type": "refresh_token",
                                                               "refresh_token": credentials["refresh"]}),
            "getApiKey": lambda credentials: "py:" + credentials["access"],
        },
    })
"""


def test_a_python_extension_oauth_login(tmp_path: Path, token_server: TokenServer) -> None:
    ext = tmp_path / "corp.py"
    ext.write_text(PY_EXT)
    run = _login(("-e", str(ext)), tmp_path / "run", token_server, {})
    assert run.returncode == 0, run.stderr
    login = next(r for r in run.records if r.get("id") == "l")
    assert login["success"], login
    assert "Open this URL to sign in:\nhttps://corp.example/authorize" in run.ui()
    assert [h.get("authorization") for h in run.headers] == ["Bearer py:acc-1"]
