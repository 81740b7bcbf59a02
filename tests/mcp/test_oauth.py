"""OAuth for HTTP servers against a real OAuth-protected MCP server (``servers/oauth_server.py``:
the ``mcp`` SDK's authorization server routes, dynamic client registration, PKCE, refresh):
``pi mcp login`` with a browser that follows the redirects, stored credentials, refresh,
``logout``, and a session that reports the needed sign-in without blocking."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .mcp_helpers import SERVERS

BROWSER = "import sys, urllib.request\nurllib.request.urlopen(sys.argv[1], timeout=60).read()\n"


class OAuthServer:
    def __init__(self, tmp: Path, ttl: int) -> None:
        port_file = tmp / "oauth-port"
        self.events = tmp / "oauth-events"
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVERS / "oauth_server.py"), "--port-file", str(port_file), "--token-ttl", str(ttl)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "DEMO_EVENTS_FILE": str(self.events)},
        )
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert time.monotonic() < deadline and self.proc.poll() is None, "OAuth server did not start"
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{port_file.read_text()}/mcp"

    def grants(self) -> list[str]:
        return self.events.read_text().split("\n")[:-1] if self.events.exists() else []


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[Callable[[int], OAuthServer]]:
    servers: list[OAuthServer] = []

    def start(ttl: int = 3600) -> OAuthServer:
        server = OAuthServer(tmp_path, ttl)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.proc.kill()
        server.proc.wait(5)


@pytest.fixture
def pi_mcp(
    tmp_path: Path, pi_environ: Callable[..., dict[str, str]]
) -> Callable[..., subprocess.CompletedProcess[str]]:
    browser = tmp_path / "browser.py"
    browser.write_text(BROWSER)
    env = pi_environ({"BROWSER": f"{sys.executable} {browser} %s"})
    (tmp_path / "cwd").mkdir(exist_ok=True)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pi_rpc", "mcp", *args],
            cwd=tmp_path / "cwd",
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run


def _configure(tmp_path: Path, url: str) -> None:
    agent = tmp_path / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"secure": {"url": url}}}))


def test_login_refresh_and_logout(tmp_path: Path, oauth_server: Any, pi_mcp: Any) -> None:
    server = oauth_server(ttl=1)  # every connection finds the token expired and refreshes it
    _configure(tmp_path, server.url)
    before = pi_mcp("list")
    assert before.returncode == 1
    assert before.stdout.splitlines() == [
        "secure: needs sign-in (codemode, global)",
        f"  {server.url}",
        "  sign in with: pi mcp login secure",
    ]

    login = pi_mcp("login", "secure", "--timeout", "60")
    assert login.returncode == 0, login.stderr
    lines = login.stdout.splitlines()
    assert lines[0] == 'Sign in to MCP server "secure" in your browser:'
    assert lines[1].startswith(server.url.removesuffix("/mcp") + "/authorize?response_type=code&client_id=")
    assert "code_challenge_method=S256" in lines[1] and "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in lines[1]
    assert lines[-1] == 'Signed in to MCP server "secure" (1 tools).'
    states = json.loads((tmp_path / "agent" / "mcp-auth.json").read_text())
    state = states[f"mcp__secure|{server.url}"]
    assert state["serverUrl"] == server.url and state["clientInformation"]["client_name"] == "pi"
    assert state["tokens"]["refresh_token"] and state["discovery"]["authorizationServerMetadata"][
        "token_endpoint"
    ].endswith("/token")
    assert oct((tmp_path / "agent" / "mcp-auth.json").stat().st_mode & 0o777) == "0o600"

    time.sleep(1.5)
    after = pi_mcp("list")
    assert after.returncode == 0 and after.stdout.startswith("secure: connected, 1 tool (codemode, global)")
    assert server.grants()[:2] == ["register pi", "code"] and "refresh" in server.grants()
    assert pi_mcp("login", "secure").stdout == 'Already signed in to MCP server "secure" (1 tools).\n'

    out = pi_mcp("logout", "secure")
    assert (out.returncode, out.stdout) == (0, 'Signed out of MCP server "secure".\n')
    assert pi_mcp("logout", "secure").stdout == 'No stored credentials for MCP server "secure".\n'
    assert pi_mcp("list").stdout.startswith("secure: needs sign-in")


def test_a_session_reports_the_needed_sign_in_and_picks_up_a_login(
    tmp_path: Path, oauth_server: Any, pi_mcp: Any, mcp_pi: Any
) -> None:
    server = oauth_server()
    session = mcp_pi(
        {"secure": {"url": server.url, "exposure": "direct"}}, script=[{"text": "still works"}, {"text": "signed in"}]
    )
    warning = session.proc.wait_for(lambda r: r.get("method") == "notify" and r.get("notifyType") == "warning", 30)
    assert warning["message"] == "MCP servers need attention:\n  secure: needs sign-in\nRun /mcp to fix."
    records = session.prompt("not blocked")
    assert any(r.get("type") == "message_end" and r["message"].get("stopReason") == "stop" for r in records)
    start = len(session.proc.records)
    session.command({"type": "prompt", "message": "/mcp"})
    status = next(r for r in session.proc.records[start:] if r.get("method") == "notify")
    assert status["message"] == "secure: needs sign-in, run /mcp login secure (direct)"

    assert pi_mcp("login", "secure").returncode == 0  # another process, e.g. the agent through bash
    session.prompt("again")  # the turn picks up the new credentials
    start = len(session.proc.records)
    session.command({"type": "prompt", "message": "/mcp"})
    status = next(r for r in session.proc.records[start:] if r.get("method") == "notify")
    assert status["message"] == "secure: connected, 1 tools (direct)"
