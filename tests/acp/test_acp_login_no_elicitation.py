"""ACP ``authenticate`` with a sign-in whose flow asks a question, from a client that does not
offer form elicitation (issue #31 item 13), through the real agent process and the official ACP
SDK client: GitHub Copilot's first question (the optional Enterprise domain) takes its default
and the device flow runs against the local stub; a question only the user can answer (OpenAI
Codex's pasted redirect URL when its callback port is taken) fails ``authenticate`` at once with
the question named. Both used to wait forever."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp.exceptions import RequestError

from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor
from tests.auth.fixed_ports import holding_port

pytestmark = pytest.mark.anyio

GITHUB_TOKEN = "SENTINEL-ACP-GITHUB-TOKEN-3141"
COPILOT_TOKEN = "tid=1;exp=9;proxy-ep=proxy.individual.githubcopilot.com;SENTINEL-ACP-COPILOT-2718"
# The longest the flows may take here; a question nobody can answer used to hang past it.
DEADLINE_S = 30


def _json(body: Any) -> Reply:
    return Reply(body=json.dumps(body).encode(), content_type="application/json")


async def test_copilot_sign_in_without_elicitation_takes_the_default_domain(acp_agent, tmp_path: Path) -> None:
    from pi_rpc.ai.models.catalog import builtin_models

    first = builtin_models("github-copilot")[0]["id"]
    device = {"device_code": "GH-D", "user_code": "ABCD-EFGH", "verification_uri": "https://github.com/login/device",
              "interval": 1, "expires_in": 60}  # fmt: skip
    routes = {
        ("github.com", "/login/device/code"): _json(device),
        ("github.com", "/login/oauth/access_token"): _json({"access_token": GITHUB_TOKEN, "token_type": "bearer"}),
        ("api.github.com", "/copilot_internal/v2/token"): _json(
            {"token": COPILOT_TOKEN, "expires_at": int(time.time()) + 1800}
        ),
        ("api.individual.githubcopilot.com", "/models"): _json(
            {"data": [{"id": first, "model_picker_enabled": True, "policy": {"state": "enabled"}}]}
        ),
    }
    hosts = ["github.com", "api.github.com", "api.individual.githubcopilot.com"]
    with Interceptor(tmp_path / "tls", hosts, [_json({})], route=lambda r: routes.get((r["host"], r["path"]))) as box:
        async with acp_agent(faux=False, env={**box.proxy_env(), "BROWSER": "true"}) as run:
            init = await run.initialize()  # no elicitation capability
            assert "login:github-copilot" in [m.id for m in init.auth_methods]
            with anyio.fail_after(DEADLINE_S):
                assert await run.conn.authenticate(method_id="login:github-copilot") is not None
            stored = json.loads((run.agent_dir / "auth.json").read_text())["github-copilot"]
            raw = json.dumps(run.raw)
    assert run.client.elicitations == []
    assert (stored["refresh"], stored["access"], stored["availableModelIds"]) == (GITHUB_TOKEN, COPILOT_TOKEN, [first])
    assert "enterpriseUrl" not in stored  # the default: github.com
    assert [(r["host"], r["path"]) for r in box.requests][:2] == [
        ("github.com", "/login/device/code"),
        ("github.com", "/login/oauth/access_token"),
    ]
    for secret in (GITHUB_TOKEN, "SENTINEL-ACP-COPILOT-2718"):
        assert secret not in raw


async def test_a_question_nobody_can_answer_fails_authenticate_at_once(acp_agent, tmp_path: Path) -> None:
    """OpenAI Codex's browser sign-in with its callback port (1455) taken: only the pasted
    redirect URL could complete it, and this client cannot be asked for it."""
    with holding_port(1455), socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", 1455))
        taken.listen()
        async with acp_agent(faux=False, env={"BROWSER": "true"}) as run:
            await run.initialize()
            with anyio.fail_after(DEADLINE_S), pytest.raises(RequestError) as failed:
                await run.conn.authenticate(method_id="login:openai-codex")
            # The agent keeps serving.
            assert (await run.initialize()).auth_methods
    details = str(failed.value.data)
    assert "Login failed for openai-codex" in details
    assert "cannot be asked" in details and "elicitation" in details
    assert not (run.agent_dir / "auth.json").exists()
