"""GitHub Copilot OAuth: the token exchange of upstream's
``pi-ai/dist/auth/oauth/github-copilot.js`` (``refreshGitHubCopilotToken``) and the base URL a
Copilot token names (``getGitHubCopilotBaseUrl``).

The stored ``refresh`` is the GitHub OAuth token; "refreshing" exchanges it for a Copilot token:
``GET https://api.<github.com | enterprise>/copilot_internal/v2/token`` with
``Authorization: Bearer <GitHub token>`` and the editor headers, then
``GET <base>/models`` (+ ``X-GitHub-Api-Version``) for the account's model ids. Stored:
``{type, refresh, access, expires, enterpriseUrl?, availableModelIds}`` with ``expires`` =
``expires_at`` s − 5 min. API requests go to the base URL derived from the token's
``proxy-ep`` (``proxy.X`` → ``https://api.X``), else ``https://copilot-api.<enterprise>``, else
``https://api.individual.githubcopilot.com``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pi_rpc.ai.auth.oauth.base import Credential, OAuthAuth, OAuthProvider, http_request
from pi_rpc.ai.auth.oauth.refresh import redact_answer

COPILOT_HEADERS = {
    "User-Agent": "GitHubCopilotChat/0.35.0",
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
COPILOT_API_VERSION = "2026-06-01"
INDIVIDUAL_BASE_URL = "https://api.individual.githubcopilot.com"
_MODELS_TIMEOUT_S = 5.0  # fetchWithRateLimitRetry's per-request AbortSignal.timeout(5000)


def normalize_domain(text: str) -> str | None:
    """``normalizeDomain``: the host name of a URL or bare domain, ``None`` when there is none."""
    trimmed = text.strip()
    if not trimmed:
        return None
    try:
        parts = urlsplit(trimmed if "://" in trimmed else f"https://{trimmed}")
        host = parts.hostname
    except ValueError:
        return None
    return host or None


def enterprise_domain(credential: Credential) -> str | None:
    """``copilotEnterpriseDomain``: the stored ``enterpriseUrl`` as a domain."""
    url = credential.get("enterpriseUrl")
    if not isinstance(url, str) or not url:
        return None
    return normalize_domain(url)


def base_url(token: str | None, enterprise: str | None) -> str:
    """``getGitHubCopilotBaseUrl``."""
    if token:
        match = re.search(r"proxy-ep=([^;]+)", token)
        if match:
            return "https://" + re.sub(r"^proxy\.", "api.", match.group(1))
    if enterprise:
        return f"https://copilot-api.{enterprise}"
    return INDIVIDUAL_BASE_URL


def _as_record(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def available_model_ids(raw: Any, allow_policy_fallback: bool) -> list[str]:
    """``parseGitHubCopilotModelCatalog``'s ``availableModelIds``: models with tool calls that
    the picker enables and policy does not disable (with the individual endpoint's fallback to
    policy-enabled models when none is)."""
    data = _as_record(raw) or {}
    items = data.get("data")
    if not isinstance(items, list):
        raise RuntimeError("Invalid Copilot models response")
    account: list[tuple[str, bool, Any]] = []
    for raw_item in items:
        item = _as_record(raw_item)
        if item is None or not isinstance(item.get("id"), str):
            continue
        supports = _as_record((_as_record(item.get("capabilities")) or {}).get("supports")) or {}
        if supports.get("tool_calls") is False:
            continue
        policy = _as_record(item.get("policy")) or {}
        account.append((item["id"], item.get("model_picker_enabled") is True, policy.get("state")))
    picker = [mid for mid, enabled, state in account if enabled and state != "disabled"]
    if picker or not allow_policy_fallback:
        return picker
    return [mid for mid, _enabled, state in account if state == "enabled"]


async def exchange_token(github_token: str, enterprise: str | None, timeout_s: float) -> Credential:
    """``refreshGitHubCopilotAccessToken``: the Copilot token for a GitHub token."""
    url = f"https://api.{enterprise or 'github.com'}/copilot_internal/v2/token"
    reply = await http_request(
        "GET",
        url,
        headers={"Accept": "application/json", "Authorization": f"Bearer {github_token}", **COPILOT_HEADERS},
        timeout_s=timeout_s,
    )
    if not reply.ok:
        raise RuntimeError(f"{reply.status} {reply.status_text}: {redact_answer(reply.text)}")
    raw = reply.json()
    if not isinstance(raw, dict):
        raise RuntimeError("Invalid Copilot token response")
    token, expires_at = raw.get("token"), raw.get("expires_at")
    if not isinstance(token, str) or not isinstance(expires_at, (int, float)) or isinstance(expires_at, bool):
        raise RuntimeError("Invalid Copilot token response fields")
    credential: Credential = {
        "type": "oauth",
        "refresh": github_token,
        "access": token,
        "expires": expires_at * 1000 - 5 * 60 * 1000,
    }
    if enterprise is not None:
        credential["enterpriseUrl"] = enterprise
    return credential


async def fetch_available_model_ids(copilot_token: str, enterprise: str | None, timeout_s: float) -> list[str]:
    """``fetchGitHubCopilotModels`` without retries (what a refresh does)."""
    base = base_url(copilot_token, enterprise)
    reply = await http_request(
        "GET",
        f"{base}/models",
        headers={
            "Accept": "application/json",
            "Authorization": f"Bearer {copilot_token}",
            **COPILOT_HEADERS,
            "X-GitHub-Api-Version": COPILOT_API_VERSION,
        },
        timeout_s=min(timeout_s, _MODELS_TIMEOUT_S),
    )
    if not reply.ok:
        raise RuntimeError(f"{reply.status} {reply.status_text}: {redact_answer(reply.text)}")
    return available_model_ids(reply.json(), base == INDIVIDUAL_BASE_URL)


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    import time

    deadline = time.monotonic() + timeout_s
    enterprise = enterprise_domain(credential)
    exchanged = await exchange_token(str(credential.get("refresh")), enterprise, timeout_s)
    left = max(0.001, deadline - time.monotonic())
    ids = await fetch_available_model_ids(exchanged["access"], enterprise, left)
    return {**exchanged, "availableModelIds": ids}


def _to_auth(credential: Credential) -> OAuthAuth:
    access = credential["access"]
    return OAuthAuth(api_key=access, base_url=base_url(access, enterprise_domain(credential)))


PROVIDER = OAuthProvider(
    id="github-copilot",
    name="GitHub Copilot",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
)
