"""Meta (Muse subscription) OAuth: the "refresh" of upstream's ``pi-ai/dist/auth/oauth/meta.js``
(``mintApiKey``). The identity token is stored as ``refresh`` and the minted key as ``access``;
a refresh mints a new key: ``POST https://api.meta.ai/muse-code/key`` with
``Authorization: Bearer <identity token>``, ``x-api-version: 1.0.0`` and body ``{}``. 401/403
means the session is dead. Stored: ``{type, refresh, access, expires}`` with ``expires`` =
now + 24 h.

The sign-in (``PROVIDER.login``):
Meta's sign-in (Muse subscription; ``pi-ai/dist/auth/oauth/meta.js`` ``loginMeta``): RFC 8628
against ``auth.meta.com`` (form posts, JSON answers) for an identity token, which is then
exchanged for a Model API key at ``api.meta.ai/muse-code/key``
(``pi_rpc.ai.auth.oauth.meta.mint_api_key``, the same request a refresh makes). Stored
``{type, refresh: identity token, access: API key, expires: now + 24 h}``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import orjson

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import http_request, now_ms
from pi_rpc.ai.auth.oauth.device_code import poll_device_code
from pi_rpc.ai.auth.oauth.http import post
from pi_rpc.ai.auth.oauth.redact import redact
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

API_KEY_MINT_URL = "https://api.meta.ai/muse-code/key"
API_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000
_REQUEST_TIMEOUT_S = 30.0


def error_detail(data: object) -> str:
    """``errorDetail``."""
    if isinstance(data, dict):
        for key in ("error_description", "detail", "message", "error"):
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return f": {value.strip()}"
    return ""


def _trusted_http_url(value: object) -> str | None:
    from urllib.parse import urlsplit

    if not isinstance(value, str):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    return value if parts.scheme in ("http", "https") and parts.netloc else None


async def mint_api_key(identity_token: str, timeout_s: float) -> Credential:
    """``mintApiKey``."""
    reply = await http_request(
        "POST",
        API_KEY_MINT_URL,
        headers={
            "Accept": "application/json",
            "Authorization": f"Bearer {identity_token}",
            "Content-Type": "application/json",
            "x-api-version": "1.0.0",
        },
        body=b"{}",
        timeout_s=min(timeout_s, _REQUEST_TIMEOUT_S),
    )
    try:
        parsed = reply.json()
        data = parsed if isinstance(parsed, dict) else None
    except ValueError:
        data = None
    if reply.status in (401, 403):
        raise RuntimeError(
            f"Meta session expired (status {reply.status}). Run `/login meta` to sign in again.{error_detail(data)}"
        )
    if not reply.ok:
        raise RuntimeError(f"Meta API key mint failed with status {reply.status}{error_detail(data)}")
    api_key = (data or {}).get("api_key")
    if not isinstance(api_key, str) or not api_key:
        action = _trusted_http_url((data or {}).get("action_url"))
        raise RuntimeError("Meta did not issue an API key." + (f" Complete setup at {action}" if action else ""))
    return {"type": "oauth", "refresh": identity_token, "access": api_key, "expires": now_ms() + API_KEY_LIFETIME_MS}


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    return await mint_api_key(str(credential.get("refresh")), timeout_s)


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


CLIENT_ID = "1031625952748946"
AUTH_HOST = "https://auth.meta.com"
DEVICE_AUTHORIZATION_URL = f"{AUTH_HOST}/oidc/device/authorization/"
DEVICE_TOKEN_URL = f"{AUTH_HOST}/oidc/device/token/"


def _positive(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None


def _http_url(value: object) -> str | None:
    return value if isinstance(value, str) and urlparse(value).scheme in ("http", "https") else None


async def login_meta(interaction: LoginInteraction) -> dict[str, object]:

    answer = await post(DEVICE_AUTHORIZATION_URL, form={"client_id": CLIENT_ID})
    if not answer.ok:
        raise LoginError(f"Meta device authorization failed with status {answer.status}{error_detail(answer.body)}")
    body = answer.body
    device_code, user_code = body.get("device_code"), body.get("user_code")
    uri = _http_url(body.get("verification_uri_complete")) or _http_url(body.get("verification_uri"))
    if (
        not isinstance(device_code, str)
        or not device_code
        or not isinstance(user_code, str)
        or not user_code
        or not uri
    ):
        raise LoginError(f"Invalid Meta device authorization response: {redact(orjson.dumps(body).decode())}")
    interaction.notify({"type": "device_code", "userCode": user_code, "verificationUri": uri})

    async def poll() -> tuple[str, object]:
        reply = await post(
            DEVICE_TOKEN_URL,
            form={
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                "device_code": device_code,
                "client_id": CLIENT_ID,
            },
        )
        token = reply.body.get("access_token")
        if reply.ok and isinstance(token, str) and token:
            return "complete", token
        error = reply.body.get("error")
        if error == "authorization_pending":
            return "pending", None
        if error == "slow_down":
            return "slow_down", _positive(reply.body.get("interval"))
        if error == "access_denied":
            return "failed", "Meta login was denied."
        if error == "expired_token":
            return "failed", "Meta device authorization expired. Please restart login."
        return "failed", f"Meta device token request failed with status {reply.status}{error_detail(reply.body)}"

    identity: str = await poll_device_code(
        poll, _positive(body.get("interval")), _positive(body.get("expires_in")), wait_first=True
    )
    interaction.notify({"type": "progress", "message": "Enabling Meta Model API access..."})
    try:
        return await mint_api_key(identity, 30.0)
    except Exception as exc:  # noqa: BLE001 - the mint's errors (upstream's texts) end the login
        raise LoginError(redact(str(exc), (identity,))) from None


PROVIDER = OAuthProvider(
    id="meta",
    name="Meta (Muse subscription)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_meta,
)
