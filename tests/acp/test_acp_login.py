"""ACP ``authenticate`` with a provider sign-in (``login:<provider>``) through the real agent
process: the token endpoint behind the TLS interceptor, the browser played by a ``BROWSER``
program that follows the sign-in URL's redirect to the localhost callback (what a browser does
once the user signed in). The access token never reaches anything the agent writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from acp.exceptions import RequestError

from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor

pytestmark = pytest.mark.anyio

ACCESS = "SENTINEL-ACP-ACCESS-4411"
REFRESH = "SENTINEL-ACP-REFRESH-8822"

BROWSER_SCRIPT = """
import sys, urllib.parse, urllib.request
url = urllib.parse.urlsplit(sys.argv[1])
query = dict(urllib.parse.parse_qsl(url.query))
target = query["redirect_uri"].replace("localhost", "127.0.0.1")
with open(sys.argv[2], "a") as log:
    log.write(sys.argv[1] + "\\n")
with urllib.request.urlopen(target + "?" + urllib.parse.urlencode({"code": "acp-code", "state": query["state"]})) as page:
    page.read()
"""


def _browser(tmp_path: Path) -> tuple[str, Path]:
    script = tmp_path / "browser.py"
    script.write_text(BROWSER_SCRIPT)
    log = tmp_path / "browser.log"
    return f"{sys.executable} {script} %s {log}", log


async def test_authenticate_signs_in_through_the_browser(acp_agent, tmp_path: Path) -> None:
    tokens = {"access_token": ACCESS, "refresh_token": REFRESH, "expires_in": 3600}
    reply = Reply(body=json.dumps(tokens).encode(), content_type="application/json")
    browser, log = _browser(tmp_path)
    with Interceptor(tmp_path / "tls", ["platform.claude.com"], [reply]) as box:
        async with acp_agent(faux=False, env={**box.proxy_env(), "BROWSER": browser}) as run:
            init = await run.initialize()
            ids = [m.id for m in init.auth_methods]
            assert "login:anthropic" in ids and "login:xai" in ids
            assert await run.conn.authenticate(method_id="login:anthropic") is not None
            stored = json.loads((run.agent_dir / "auth.json").read_text())
            raw = json.dumps(run.raw)
    assert list(stored["anthropic"]) == ["type", "refresh", "access", "expires"]
    assert (stored["anthropic"]["access"], stored["anthropic"]["refresh"]) == (ACCESS, REFRESH)
    assert log.read_text().startswith("https://claude.ai/oauth/authorize?")
    body = json.loads(box.requests[0]["body"])
    assert body["code"] == "acp-code" and body["grant_type"] == "authorization_code"
    assert ACCESS not in raw and REFRESH not in raw


async def test_authenticate_reports_a_failed_sign_in(acp_agent, tmp_path: Path) -> None:
    reply = Reply(body=b'{"error":"invalid_grant","access_token":"' + ACCESS.encode() + b'"}', status=400)
    browser, _log = _browser(tmp_path)
    with Interceptor(tmp_path / "tls", ["platform.claude.com"], [reply]) as box:
        async with acp_agent(faux=False, env={**box.proxy_env(), "BROWSER": browser}) as run:
            await run.initialize()
            with pytest.raises(RequestError) as failed:
                await run.conn.authenticate(method_id="login:anthropic")
            raw = json.dumps(run.raw)
    assert "Login failed for anthropic: Token exchange request failed." in str(failed.value.data)
    assert ACCESS not in str(failed.value.data) and ACCESS not in raw
    assert not (run.agent_dir / "auth.json").exists()
