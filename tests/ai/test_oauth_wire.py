"""Stored OAuth credentials through the whole program, side by side with upstream pi 1.6 on the
same stubs (``oauth_wire``): per provider a valid, an expiring (4 minutes left) and an expired
credential give the same token requests (or none), the same API request auth headers and
system/tool shapes, and the same rewritten ``auth.json`` (``expires`` masked, then checked
against the clock); a failing refresh ends the turn with upstream's error and no fallback to an
environment key. Without upstream (/tmp/pi-node) the comparisons skip; the expectations that do
not need it (no request for a valid token, one for an expired one, the error, no fallback) run
on our program alone.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.ai.oauth_wire import (
    Run,
    anthropic_sse,
    anthropic_tool_sse,
    completions_sse,
    json_reply,
    jwt,
    run_oauth,
)
from tests.ai.provider_wire import UPSTREAM, needs_upstream
from tests.ai.stub_server import Reply
from tests.support.pi_process import OURS, PiProcess, isolated_env

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl CLI is not installed")

HOUR_MS = 3600 * 1000


def _now() -> int:
    return int(time.time() * 1000)


_EXPIRY = {"valid": HOUR_MS, "expiring": 4 * 60 * 1000, "expired": -1000}


# ---------------------------------------------------------------------------- providers


def _anthropic(state: str) -> dict[str, Any]:
    return {
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "auth": {
            "anthropic": {
                "type": "oauth",
                "refresh": "rt-old",
                "access": "sk-ant-oat01-old",
                "expires": _now() + _EXPIRY[state],
            }
        },
        "token_route": {
            ("platform.claude.com", "/v1/oauth/token"): json_reply(
                {"access_token": "sk-ant-oat01-new", "refresh_token": "rt-new", "expires_in": 28800}
            )
        },
        "api_replies": [Reply(anthropic_sse())],
        "expires": (28800 * 1000 - 5 * 60 * 1000),
    }


_CODEX_ACCESS = jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-new"}, "exp": 1})


def _codex(state: str) -> dict[str, Any]:
    old = jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-old"}})
    return {
        "provider": "openai-codex",
        "model": "gpt-5.6-luna",
        "auth": {
            "openai-codex": {
                "type": "oauth",
                "access": old,
                "refresh": "rt-codex-old",
                "expires": _now() + _EXPIRY[state],
                "accountId": "acct-old",
            }
        },
        "token_route": {
            ("auth.openai.com", "/oauth/token"): json_reply(
                {"access_token": _CODEX_ACCESS, "refresh_token": "rt-codex-new", "expires_in": 864000}
            )
        },
        # The Codex API is another part's; only the refresh is compared here.
        "api_replies": [Reply(b'{"error":{"message":"stub"}}', 400, content_type="application/json")],
        "expires": 864000 * 1000,
        "api_compared": False,
    }


_COPILOT_OLD = "tid=1;exp=1;proxy-ep=proxy.individual.githubcopilot.com;sku=free"
_COPILOT_NEW = "tid=2;exp=2;proxy-ep=proxy.business.githubcopilot.com;sku=business"


def _copilot(state: str) -> dict[str, Any]:
    expires_at = _now() // 1000 + 1800
    models = {
        "data": [
            {"id": "gemini-3.8-flash", "model_picker_enabled": True, "policy": {"state": "enabled"}},
            {"id": "kimi-k3", "model_picker_enabled": True, "capabilities": {"supports": {"tool_calls": False}}},
            {"id": "gemini-4-neon", "model_picker_enabled": False},
        ]
    }
    return {
        "provider": "github-copilot",
        "model": "gemini-3.8-flash",
        "auth": {
            "github-copilot": {
                "type": "oauth",
                "refresh": "ghu_github_token",
                "access": _COPILOT_OLD,
                "expires": _now() + _EXPIRY[state],
                "availableModelIds": ["gemini-3.8-flash"],
            }
        },
        "token_route": {
            ("api.github.com", "/copilot_internal/v2/token"): json_reply(
                {"token": _COPILOT_NEW, "expires_at": expires_at, "refresh_in": 1500}
            ),
            ("api.business.githubcopilot.com", "/models"): json_reply(models),
            ("api.business.githubcopilot.com", "/chat/completions"): Reply(completions_sse()),
            ("api.individual.githubcopilot.com", "/chat/completions"): Reply(completions_sse()),
        },
        "api_base_path": None,  # the base URL comes from the token
        "expires_exact": expires_at * 1000 - 5 * 60 * 1000,
    }


def _copilot_claude(state: str) -> dict[str, Any]:
    """A Copilot model on anthropic-messages: the Copilot token as Bearer, no Claude Code identity."""
    spec = _copilot(state)
    spec["model"] = "claude-fable-5"
    spec["auth"]["github-copilot"]["availableModelIds"] = ["claude-fable-5"]
    models = {"data": [{"id": "claude-fable-5", "model_picker_enabled": True}]}
    spec["token_route"][("api.business.githubcopilot.com", "/models")] = json_reply(models)
    for host in ("api.business.githubcopilot.com", "api.individual.githubcopilot.com"):
        spec["token_route"][(host, "/v1/messages")] = Reply(anthropic_sse())
    return spec


def _copilot_enterprise(state: str) -> dict[str, Any]:
    """A GitHub Enterprise login: the exchange at ``api.<domain>``; a token without ``proxy-ep``
    sends to ``copilot-api.<domain>``."""
    spec = _copilot(state)
    spec["auth"]["github-copilot"]["enterpriseUrl"] = "https://ghe.example.com/"
    spec["auth"]["github-copilot"]["access"] = "tid=1;exp=1;sku=enterprise"
    expires_at = _now() // 1000 + 1800
    spec["expires_exact"] = expires_at * 1000 - 5 * 60 * 1000
    models = {"data": [{"id": "gemini-3.8-flash", "model_picker_enabled": True}]}
    spec["token_route"] = {
        ("api.ghe.example.com", "/copilot_internal/v2/token"): json_reply(
            {"token": "tid=3;exp=3;sku=enterprise", "expires_at": expires_at}
        ),
        ("copilot-api.ghe.example.com", "/models"): json_reply(models),
        ("copilot-api.ghe.example.com", "/chat/completions"): Reply(completions_sse()),
    }
    return spec


def _simple(provider: str, model: str, host: str, path: str, answer: dict[str, Any], **extra: Any) -> Any:
    def make(state: str) -> dict[str, Any]:
        stored = {"type": "oauth", "access": f"{provider}-access-old", "refresh": f"{provider}-refresh-old"}
        stored["expires"] = _now() + _EXPIRY[state]
        stored.update(extra.get("stored", {}))
        return {
            "provider": provider,
            "model": model,
            "auth": {provider: stored},
            "token_route": {(host, path): json_reply(answer)},
            "api_replies": [Reply(b'{"error":{"message":"stub"}}', 400, content_type="application/json")],
            "api_compared": "auth-only",
            "expires": extra.get("expires"),
        }

    return make


PROVIDERS = {
    "anthropic": _anthropic,
    "openai-codex": _codex,
    "github-copilot": _copilot,
    "github-copilot/anthropic-messages": _copilot_claude,
    "github-copilot/enterprise": _copilot_enterprise,
    "openai": _simple(
        "openai",
        "gpt-4.1",
        "auth.openai.com",
        "/api/accounts/oauth/token",
        {
            "access_token": "oa-new",
            "refresh_token": "or-new",
            "expires_in": 3600,
            "scope": "openid chatgpt.tokens.use.direct",
        },
        stored={"clientId": "client-123", "scopes": ["chatgpt.tokens.use.direct"]},
        expires=3600 * 1000 - 3 * 60 * 1000,
    ),
    "xai": _simple(
        "xai",
        "grok-4.3",
        "auth.x.ai",
        "/oauth2/token",
        {"access_token": "xai-new"},
        expires=3600 * 1000 - 5 * 60 * 1000,
    ),
    "kimi-coding": _simple(
        "kimi-coding",
        "k3",
        "auth.kimi.com",
        "/api/oauth/token",
        {"access_token": "kimi-new", "refresh_token": "kimi-r-new", "expires_in": 900},
        expires=900 * 1000,
    ),
    "meta": _simple(
        "meta", "muse-spark-1.1", "api.meta.ai", "/muse-code/key", {"api_key": "meta-key-new"}, expires=24 * HOUR_MS
    ),
    # A minted key that never expires: an expired one is "refreshed" unchanged, with no request.
    "openrouter": _simple(
        "openrouter", "~anthropic/claude-haiku-latest", "openrouter.ai", "/api/v1/auth/keys", {}, stored={"refresh": ""}
    ),
    "radius": _simple(
        "radius",
        "balanced",
        "radius.pi.dev",
        "/v1/oauth/token",
        {"access_token": "rad-new", "refresh_token": "rad-r-new", "expires_in": 600, "scope": "gateway"},
        expires=600 * 1000 - 60 * 1000,
    ),
}


def _run(argv: list[str], root: Path, spec: dict[str, Any], **overrides: Any) -> Run:
    kwargs = {
        k: spec[k] for k in ("provider", "model", "auth", "token_route", "api_replies", "api_base_path") if k in spec
    }
    kwargs.update(overrides)
    return run_oauth(argv, root, **kwargs)


def _check_expires(run: Run, spec: dict[str, Any]) -> None:
    """The refreshed ``expires`` is upstream's formula, now + lifetime − skew, or exact."""
    stored = run.auth[spec["provider"]]["expires"]
    if "expires_exact" in spec:
        assert stored == spec["expires_exact"]
    elif spec.get("expires") is not None:
        assert run.started_ms + spec["expires"] <= stored <= run.ended_ms + spec["expires"]


def _api_compared(run: Run, spec: dict[str, Any]) -> Any:
    mode = spec.get("api_compared", True)
    if mode is False:
        return None
    if mode == "auth-only":
        return [r["headers"].get("authorization") for r in run.api_requests]
    return run.api_requests


# ---------------------------------------------------------------------------- side by side


@needs_upstream
@pytest.mark.parametrize("state", ["valid", "expiring", "expired"])
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_same_as_upstream(tmp_path: Path, provider: str, state: str) -> None:
    assert UPSTREAM is not None
    spec = PROVIDERS[provider](state)
    theirs = _run(UPSTREAM, tmp_path / "upstream", spec)
    spec = PROVIDERS[provider](state)  # the same fixture, its clock-relative expiry taken anew
    ours = _run(OURS, tmp_path / "ours", spec)
    assert ours.token_requests == theirs.token_requests
    assert _api_compared(ours, spec) == _api_compared(theirs, spec)
    if spec.get("api_compared", True) is True:
        assert ours.outcome == theirs.outcome
    assert ours.auth_text == theirs.auth_text
    if state != "valid":
        _check_expires(ours, spec)


@needs_upstream
def test_anthropic_tool_names_both_ways_as_upstream(tmp_path: Path) -> None:
    """A tool call answered as Claude Code's ``Read`` runs pi's ``read`` and is replayed as
    ``Read``; the tool list is re-cased."""
    assert UPSTREAM is not None
    runs = []
    for name, argv in (("upstream", UPSTREAM), ("ours", OURS)):
        spec = _anthropic("valid")
        runs.append(
            _run(
                argv,
                tmp_path / name,
                spec,
                api_replies=[Reply(anthropic_tool_sse("Read")), Reply(anthropic_sse("Done."))],
                files={"note.txt": "hi\n"},
            )
        )
    theirs, ours = runs
    assert ours.api_requests == theirs.api_requests
    assert ours.api_requests[1]["tool_use_names"] == ["Read"]
    assert [o["content"] for o in ours.outcome] == [o["content"] for o in theirs.outcome]
    assert ours.outcome[0]["content"] == [["toolCall", "read"]]


@needs_upstream
@pytest.mark.parametrize(
    "provider",
    [p for p in PROVIDERS if p not in ("openrouter", "github-copilot/anthropic-messages", "github-copilot/enterprise")],
)
def test_failing_refresh_as_upstream(tmp_path: Path, provider: str) -> None:
    """A refused refresh: upstream's error (up to its Node stack), no API request, no fallback
    to the provider's environment key, the stored credential kept."""
    assert UPSTREAM is not None
    runs = []
    for name, argv in (("upstream", UPSTREAM), ("ours", OURS)):
        spec = PROVIDERS[provider]("expired")
        refused = Reply(
            b'{"error":"invalid_grant","error_description":"refresh token revoked"}', 400, "application/json"
        )
        route = {key: refused for key in spec["token_route"]}
        env = {
            "ANTHROPIC_API_KEY": "sk-ant-api-env",
            "COPILOT_GITHUB_TOKEN": "env-copilot",
            "OPENAI_API_KEY": "env-oa",
            "XAI_API_KEY": "env-xai",
            "KIMI_API_KEY": "env-kimi",
            "META_API_KEY": "env-meta",
            "RADIUS_API_KEY": "env-radius",
        }
        runs.append(_run(argv, tmp_path / name, spec, token_route=route, env=env))
    theirs, ours = runs
    assert ours.token_requests == theirs.token_requests
    assert ours.api_requests == theirs.api_requests == []
    their_error = str(theirs.outcome[-1]["errorMessage"]).split("; stack=")[0]
    assert ours.outcome[-1]["stopReason"] == theirs.outcome[-1]["stopReason"] == "error"
    assert ours.outcome[-1]["errorMessage"] == their_error
    assert ours.auth_text == theirs.auth_text


# ---------------------------------------------------------------------------- ours alone


@pytest.mark.parametrize("state", ["valid", "expired"])
def test_refresh_only_when_due(tmp_path: Path, state: str) -> None:
    spec = _anthropic(state)
    run = _run(OURS, tmp_path, spec)
    assert len(run.token_requests) == (0 if state == "valid" else 1)
    bearer = "Bearer sk-ant-oat01-" + ("old" if state == "valid" else "new")
    assert [r["headers"]["authorization"] for r in run.api_requests] == [bearer]
    assert run.outcome[0]["stopReason"] == "stop"


def test_failing_refresh_error_and_no_fallback(tmp_path: Path) -> None:
    spec = _anthropic("expired")
    refused = Reply(b'{"error":"invalid_grant"}', 400, "application/json")
    before = dict(spec["auth"]["anthropic"])
    run = _run(
        OURS,
        tmp_path,
        spec,
        token_route={("platform.claude.com", "/v1/oauth/token"): refused},
        env={"ANTHROPIC_API_KEY": "sk-ant-api-env"},
    )
    assert run.api_requests == []
    assert run.outcome[-1]["stopReason"] == "error"
    assert run.outcome[-1]["errorMessage"] == (
        "OAuth refresh failed for anthropic: Anthropic token refresh request failed. "
        "url=https://platform.claude.com/v1/oauth/token; details=Error: HTTP request failed. status=400; "
        'url=https://platform.claude.com/v1/oauth/token; body={"error":"invalid_grant"}'
    )
    assert run.auth["anthropic"] == before


@needs_upstream
def test_copilot_github_token_env_as_upstream(tmp_path: Path) -> None:
    """``COPILOT_GITHUB_TOKEN`` is sent as the Copilot bearer token itself: no exchange, the
    catalogue's (here models.json's) base URL, the editor headers."""
    assert UPSTREAM is not None
    runs = []
    for name, argv in (("upstream", UPSTREAM), ("ours", OURS)):
        runs.append(
            run_oauth(
                argv,
                tmp_path / name,
                provider="github-copilot",
                model="gemini-3.8-flash",
                auth={},
                token_route={},
                api_replies=[Reply(completions_sse())],
                env={"COPILOT_GITHUB_TOKEN": "gho_env_token"},
            )
        )
    theirs, ours = runs
    assert ours.token_requests == theirs.token_requests == []
    assert ours.api_requests == theirs.api_requests
    assert ours.api_requests[0]["headers"]["authorization"] == "Bearer gho_env_token"
    assert ours.outcome == theirs.outcome


@needs_upstream
def test_copilot_models_filtered_to_available_ids_as_upstream(tmp_path: Path) -> None:
    """With a Copilot OAuth login only ``availableModelIds`` are available models."""
    assert UPSTREAM is not None
    listed = []
    for name, argv in (("upstream", UPSTREAM), ("ours", OURS)):
        root = tmp_path / name
        env = isolated_env(root, faux=False)
        agent = Path(env["PI_CODING_AGENT_DIR"])
        spec = _copilot("valid")
        spec["auth"]["github-copilot"]["availableModelIds"] = ["gemini-3.8-flash", "claude-fable-5", "no-such-model"]
        (agent / "auth.json").write_text(json.dumps(spec["auth"]))
        (root / "cwd").mkdir()
        proc = PiProcess([*argv, "--mode", "rpc", "--no-session"], env, root / "cwd", root=root)
        try:
            models = proc.ok("get_available_models", timeout=30)["models"]
        finally:
            proc.close()
        listed.append(sorted(m["id"] for m in models if m["provider"] == "github-copilot"))
    assert listed[0] == listed[1] == ["claude-fable-5", "gemini-3.8-flash"]


@needs_upstream
def test_refresh_timeout_as_upstream(tmp_path: Path) -> None:
    """A token endpoint slower than 15 s: the refresh is given up with upstream's error."""
    assert UPSTREAM is not None
    from concurrent.futures import ThreadPoolExecutor

    def run(name: str, argv: list[str]) -> Run:
        spec = _anthropic("expired")
        slow = json_reply(
            {"access_token": "sk-ant-oat01-late", "refresh_token": "rt-late", "expires_in": 60}, delay_s=17
        )
        return _run(argv, tmp_path / name, spec, token_route={("platform.claude.com", "/v1/oauth/token"): slow})

    # side by side, each with its own interceptor and stub: the 15 s wait is spent once, not twice
    with ThreadPoolExecutor(1) as pool:
        upstream_run = pool.submit(run, "upstream", UPSTREAM)
        ours = run("ours", OURS)
        theirs = upstream_run.result()
    assert ours.api_requests == theirs.api_requests == []
    expected = str(theirs.outcome[-1]["errorMessage"]).split("; stack=")[0]
    assert expected.endswith("details=TimeoutError: The operation was aborted due to timeout; code=23")
    assert ours.outcome[-1]["errorMessage"] == expected
    assert ours.auth_text == theirs.auth_text
