"""ACP ``authenticate`` with the ``openai`` (Sign in with ChatGPT) and ``radius`` sign-ins through
the real agent process: the token endpoints behind the TLS interceptor, the browser played by a
``BROWSER`` program that comes back to the localhost callback with the code (and, for ChatGPT,
the issued client id). No token reaches anything the agent writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor
from tests.auth.fixed_ports import holding_port

pytestmark = pytest.mark.anyio

ACCESS = "SENTINEL-ACP-ACCOUNT-ACCESS-5150"
REFRESH = "SENTINEL-ACP-ACCOUNT-REFRESH-6160"

BROWSER_SCRIPT = """
import sys, urllib.parse, urllib.request
query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(sys.argv[1]).query))
answer = {"code": "acp-code", "state": query["state"], "client_id": "app_acp"}
urllib.request.urlopen(query["redirect_uri"] + "?" + urllib.parse.urlencode(answer)).read()
"""


def _json(body: object) -> Reply:
    return Reply(body=json.dumps(body).encode(), content_type="application/json")


CASES = {
    "openai": (
        "auth.openai.com",
        [
            _json(
                {
                    "access_token": ACCESS,
                    "refresh_token": REFRESH,
                    "id_token": "i",
                    "expires_in": 3600,
                    "scope": "openid chatgpt.tokens.use.direct",
                }
            )
        ],
        ["type", "access", "refresh", "expires", "clientId", "scopes"],
    ),
    "radius": (
        "radius.pi.dev",
        [
            _json({"authorizationEndpoint": "https://radius.pi.dev/authorize"}),
            _json({"access_token": ACCESS, "refresh_token": REFRESH, "expires_in": 3600, "scope": "gateway"}),
        ],
        ["type", "access", "refresh", "expires", "scope"],
    ),
}


@pytest.mark.parametrize("provider", sorted(CASES))
async def test_authenticate_with_an_account_sign_in(acp_agent, tmp_path: Path, provider: str) -> None:
    host, replies, fields = CASES[provider]
    script = tmp_path / "browser.py"
    script.write_text(BROWSER_SCRIPT)
    port = 1455 if provider == "openai" else 1456
    with holding_port(port), Interceptor(tmp_path / "tls", [host], replies) as box:
        env = {**box.proxy_env(), "BROWSER": f"{sys.executable} {script} %s"}
        async with acp_agent(faux=False, env=env) as run:
            init = await run.initialize()
            assert f"login:{provider}" in [m.id for m in init.auth_methods]
            assert await run.conn.authenticate(method_id=f"login:{provider}") is not None
            stored = json.loads((run.agent_dir / "auth.json").read_text())[provider]
            raw = json.dumps(run.raw)
    assert list(stored) == fields and stored["access"] == ACCESS
    assert "code=acp-code" in box.requests[-1]["body"]
    assert ACCESS not in raw and REFRESH not in raw
