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

The sign-in (``PROVIDER.login``):
GitHub Copilot's sign-in (``pi-ai/dist/auth/oauth/github-copilot.js`` ``loginGitHubCopilot``):
the GitHub Enterprise domain asked first (blank: github.com), GitHub's device flow (client
``Iv1.b507a08c87ecfe98``, scope ``read:user``), the GitHub token traded for a Copilot token
(``copilot_internal/v2/token``, ``pi_rpc.ai.auth.oauth.github_copilot.exchange_token``), the
account's models read (``<base>/models``) and the models whose policy is ``unconfigured`` enabled
(``POST <base>/models/<id>/policy``, best effort; a rate limit stops the batch). Stored
``{type, refresh: GitHub token, access: Copilot token, expires, enterpriseUrl?,
availableModelIds}``."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse, urlsplit

import anyio

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import http_request
from pi_rpc.ai.auth.oauth.device_code import poll_device_code
from pi_rpc.ai.auth.oauth.redact import redact
from pi_rpc.ai.auth.oauth.refresh import redact_answer
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

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


def available_model_ids(raw: object, allow_policy_fallback: bool) -> list[str]:
    """``parseGitHubCopilotModelCatalog``'s ``availableModelIds``: models with tool calls that
    the picker enables and policy does not disable (with the individual endpoint's fallback to
    policy-enabled models when none is)."""
    data = _as_record(raw) or {}
    items = data.get("data")
    if not isinstance(items, list):
        raise RuntimeError("Invalid Copilot models response")
    account: list[tuple[str, bool, object]] = []
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


CLIENT_ID = "Iv1.b507a08c87ecfe98"


async def _fetch_json(method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> object:
    from pi_rpc.ai.auth.oauth.base import FetchError, http_request

    try:
        reply = await http_request(method, url, headers=headers, body=body, timeout_s=30.0)
    except FetchError as exc:
        raise LoginError(f"Request to {url} failed: {exc}") from None
    if not reply.ok:
        raise LoginError(redact(f"{reply.status} {reply.status_text}: {reply.text}"))
    try:
        return reply.json()
    except ValueError:
        raise LoginError(f"Invalid JSON from {url}") from None


def _model_ids(raw: object, allow_policy_fallback: bool) -> tuple[list[str], list[str]]:
    """``parseGitHubCopilotModelCatalog``: (availableModelIds, policyModelIds)."""
    from pi_rpc.ai.models.catalog import builtin_models

    available = available_model_ids(raw, allow_policy_fallback)
    known = {m["id"] for m in builtin_models("github-copilot")}
    items = raw.get("data") if isinstance(raw, dict) else None
    picker_any = False
    account: list[tuple[str, bool, object]] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        supports = ((item.get("capabilities") or {}) if isinstance(item.get("capabilities"), dict) else {}).get(
            "supports"
        )
        if isinstance(supports, dict) and supports.get("tool_calls") is False:
            continue
        raw_policy = item.get("policy")
        policy: dict[str, object] = raw_policy if isinstance(raw_policy, dict) else {}
        enabled = item.get("model_picker_enabled") is True
        account.append((item["id"], enabled, policy.get("state")))
        picker_any = picker_any or (enabled and policy.get("state") != "disabled")
    fallback = allow_policy_fallback and not picker_any
    policy_ids = [
        mid for mid, enabled, state in account if state == "unconfigured" and mid in known and (enabled or fallback)
    ]
    return available, policy_ids


async def _enable(token: str, base: str, model_id: str) -> bool:
    """``enableGitHubCopilotModel``: POST the policy; a 429 that outlives two retries within
    5 s is an error (it stops the batch), any other failure only skips this model."""
    from pi_rpc.ai.auth.oauth.base import FetchError, http_request, json_body

    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
        **COPILOT_HEADERS,
        "openai-intent": "chat-policy",
        "x-interaction-type": "chat-policy",
    }
    deadline = anyio.current_time() + 5.0
    for retry in range(3):
        try:
            reply = await http_request(
                "POST",
                f"{base}/models/{model_id}/policy",
                headers=headers,
                body=json_body({"state": "enabled"}),
                timeout_s=5.0,
            )
        except FetchError:
            return False
        if reply.status != 429 or retry == 2:
            break
        delay = 0.5 * 2**retry
        retry_after = reply.headers.get("retry-after")
        if retry_after:
            try:
                delay = float(retry_after)
            except ValueError:
                break
        if delay >= deadline - anyio.current_time():
            break
        await anyio.sleep(max(0.0, delay))
    if reply.status == 429:
        raise LoginError(f"429 {reply.status_text}")
    return reply.ok


async def login_github_copilot(interaction: LoginInteraction) -> dict[str, object]:
    from pi_rpc.ai.auth.oauth.base import form_body

    text = await interaction.prompt(
        {
            "type": "text",
            "message": "GitHub Enterprise URL/domain (blank for github.com)",
            "placeholder": "company.ghe.com",
            "optional": True,  # blank: github.com
        }
    )
    enterprise = normalize_domain(text)
    if text.strip() and not enterprise:
        raise LoginError("Invalid GitHub Enterprise URL/domain")
    domain = enterprise or "github.com"
    form_headers = {
        "Accept": "application/json",
        "Content-Type": "application/x-www-form-urlencoded",
        "User-Agent": "GitHubCopilotChat/0.35.0",
    }
    data = await _fetch_json(
        "POST",
        f"https://{domain}/login/device/code",
        form_headers,
        form_body({"client_id": CLIENT_ID, "scope": "read:user"}),
    )
    if not isinstance(data, dict):
        raise LoginError("Invalid device code response")
    device_code, user_code, uri = data.get("device_code"), data.get("user_code"), data.get("verification_uri")
    interval, expires_in = data.get("interval"), data.get("expires_in")
    if (
        not isinstance(device_code, str)
        or not isinstance(user_code, str)
        or not isinstance(uri, str)
        or (interval is not None and (isinstance(interval, bool) or not isinstance(interval, (int, float))))
        or isinstance(expires_in, bool)
        or not isinstance(expires_in, (int, float))
    ):
        raise LoginError("Invalid device code response fields")
    if urlparse(uri).scheme not in ("http", "https"):
        raise LoginError("Untrusted verification_uri in device code response")
    interaction.notify({"type": "device_code", "userCode": user_code, "verificationUri": uri})

    async def poll() -> tuple[str, object]:
        body = form_body(
            {
                "client_id": CLIENT_ID,
                "device_code": device_code,
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            }
        )
        raw = await _fetch_json("POST", f"https://{domain}/login/oauth/access_token", form_headers, body)
        if isinstance(raw, dict) and isinstance(raw.get("access_token"), str):
            return "complete", raw["access_token"]
        if isinstance(raw, dict) and isinstance(raw.get("error"), str):
            error = raw["error"]
            if error == "authorization_pending":
                return "pending", None
            if error == "slow_down":
                return "slow_down", raw.get("interval")
            description = raw.get("error_description")
            return "failed", f"Device flow failed: {error}" + (f": {description}" if description else "")
        return "failed", "Invalid device token response"

    github_token: str = await poll_device_code(
        poll, float(interval) if interval is not None else None, float(expires_in), wait_first=True
    )
    try:
        credential = await exchange_token(github_token, enterprise, 30.0)
    except RuntimeError as exc:
        raise LoginError(redact(str(exc), (github_token,))) from None
    token = credential["access"]
    base = base_url(token, enterprise)
    models = await _fetch_json(
        "GET",
        f"{base}/models",
        {
            "Accept": "application/json",
            "Authorization": f"Bearer {token}",
            **COPILOT_HEADERS,
            "X-GitHub-Api-Version": COPILOT_API_VERSION,
        },
    )
    try:
        available, policy_ids = _model_ids(models, base == INDIVIDUAL_BASE_URL)
    except RuntimeError as exc:
        raise LoginError(str(exc)) from None
    enabled: list[str] = []
    if policy_ids:
        interaction.notify({"type": "progress", "message": "Enabling models..."})
        for model_id in policy_ids:
            try:
                if await _enable(token, base, model_id):
                    enabled.append(model_id)
            except LoginError:
                break  # rate limited: the rest stay as they are
    return {**credential, "availableModelIds": list(dict.fromkeys([*available, *enabled]))}


PROVIDER = OAuthProvider(
    id="github-copilot",
    name="GitHub Copilot",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_github_copilot,
)
