"""GitHub Copilot's sign-in (``pi-ai/dist/auth/oauth/github-copilot.js`` ``loginGitHubCopilot``):
the GitHub Enterprise domain asked first (blank: github.com), GitHub's device flow (client
``Iv1.b507a08c87ecfe98``, scope ``read:user``), the GitHub token traded for a Copilot token
(``copilot_internal/v2/token``, ``pi_rpc.ai.auth.oauth.github_copilot.exchange_token``), the
account's models read (``<base>/models``) and the models whose policy is ``unconfigured`` enabled
(``POST <base>/models/<id>/policy``, best effort; a rate limit stops the batch). Stored
``{type, refresh: GitHub token, access: Copilot token, expires, enterpriseUrl?,
availableModelIds}``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import anyio

from pi_rpc.ai.auth.login import LoginError, LoginInteraction
from pi_rpc.ai.auth.login.device_code import poll_device_code
from pi_rpc.ai.auth.login.redact import redact

CLIENT_ID = "Iv1.b507a08c87ecfe98"


async def _fetch_json(method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> Any:
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


def _model_ids(raw: Any, allow_policy_fallback: bool) -> tuple[list[str], list[str]]:
    """``parseGitHubCopilotModelCatalog``: (availableModelIds, policyModelIds)."""
    from pi_rpc.ai.auth.oauth.github_copilot import available_model_ids
    from pi_rpc.ai.models.catalog import builtin_models

    available = available_model_ids(raw, allow_policy_fallback)
    known = {m["id"] for m in builtin_models("github-copilot")}
    items = raw.get("data") if isinstance(raw, dict) else None
    picker_any = False
    account: list[tuple[str, bool, Any]] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        supports = ((item.get("capabilities") or {}) if isinstance(item.get("capabilities"), dict) else {}).get(
            "supports"
        )
        if isinstance(supports, dict) and supports.get("tool_calls") is False:
            continue
        raw_policy = item.get("policy")
        policy: dict[str, Any] = raw_policy if isinstance(raw_policy, dict) else {}
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
    from pi_rpc.ai.auth.oauth.github_copilot import COPILOT_HEADERS

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


async def login_github_copilot(interaction: LoginInteraction) -> dict[str, Any]:
    from pi_rpc.ai.auth.oauth.base import form_body
    from pi_rpc.ai.auth.oauth.github_copilot import (
        COPILOT_API_VERSION,
        COPILOT_HEADERS,
        INDIVIDUAL_BASE_URL,
        base_url,
        exchange_token,
        normalize_domain,
    )

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

    async def poll() -> tuple[str, Any]:
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
