"""Meta's sign-in (Muse subscription; ``pi-ai/dist/auth/oauth/meta.js`` ``loginMeta``): RFC 8628
against ``auth.meta.com`` (form posts, JSON answers) for an identity token, which is then
exchanged for a Model API key at ``api.meta.ai/muse-code/key``
(``pi_rpc.ai.auth.oauth.meta.mint_api_key``, the same request a refresh makes). Stored
``{type, refresh: identity token, access: API key, expires: now + 24 h}``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import orjson

from pi_rpc.ai.auth.login import LoginError, LoginInteraction
from pi_rpc.ai.auth.login.device_code import poll_device_code
from pi_rpc.ai.auth.login.http import post
from pi_rpc.ai.auth.login.redact import redact

CLIENT_ID = "1031625952748946"
AUTH_HOST = "https://auth.meta.com"
DEVICE_AUTHORIZATION_URL = f"{AUTH_HOST}/oidc/device/authorization/"
DEVICE_TOKEN_URL = f"{AUTH_HOST}/oidc/device/token/"


def _positive(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None


def _http_url(value: Any) -> str | None:
    return value if isinstance(value, str) and urlparse(value).scheme in ("http", "https") else None


async def login_meta(interaction: LoginInteraction) -> dict[str, Any]:
    from pi_rpc.ai.auth.oauth.meta import error_detail, mint_api_key

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

    async def poll() -> tuple[str, Any]:
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
