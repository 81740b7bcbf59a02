"""Kimi Code's device-code login (``pi-ai/dist/auth/oauth/kimi-coding.js``): RFC 8628 against
``https://auth.kimi.com`` (``KIMI_CODE_OAUTH_HOST`` / ``KIMI_OAUTH_HOST`` override the host),
JSON answers; stored ``{type, access, refresh, expires: now + expires_in·1000}``."""

from __future__ import annotations

import os
import time
from typing import Any
from urllib.parse import urlparse

import orjson

from pi_rpc.ai.auth.login import LoginError, LoginInteraction
from pi_rpc.ai.auth.login.device_code import poll_device_code
from pi_rpc.ai.auth.login.http import post
from pi_rpc.ai.auth.login.redact import redact

CLIENT_ID = "17e5f671-d194-4dfb-9706-5516cb48c098"
DEFAULT_HOST = "https://auth.kimi.com"
DEVICE_CODE_TIMEOUT_S = 15 * 60
DEFAULT_INTERVAL_S = 5


def oauth_host() -> str:
    override = os.environ.get("KIMI_CODE_OAUTH_HOST") or os.environ.get("KIMI_OAUTH_HOST")
    return (override or DEFAULT_HOST).rstrip("/")


def _http_url(value: Any) -> str | None:
    """``trustedHttpUrl``: only an http(s) URL is opened."""
    return value if isinstance(value, str) and urlparse(value).scheme in ("http", "https") else None


def _positive(value: Any, default: float) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return float(value) if ok else default


def _json_text(body: dict[str, Any]) -> str:
    return redact(orjson.dumps(body).decode())


def _tokens(body: dict[str, Any], operation: str) -> dict[str, Any]:
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    if (
        not isinstance(access, str)
        or not access
        or not isinstance(refresh, str)
        or not refresh
        or isinstance(expires_in, bool)
        or not isinstance(expires_in, (int, float))
        or expires_in <= 0
    ):
        raise LoginError(f"Kimi Code token {operation} response missing fields: {_json_text(body)}")
    return {
        "type": "oauth",
        "access": access,
        "refresh": refresh,
        "expires": int(time.time() * 1000 + expires_in * 1000),
    }


async def login_kimi_coding(interaction: LoginInteraction) -> dict[str, Any]:
    host = oauth_host()
    answer = await post(f"{host}/api/oauth/device_authorization", form={"client_id": CLIENT_ID})
    if not answer.ok:
        detail = f": {redact(answer.text)}" if answer.text else ""
        raise LoginError(f"Kimi Code device authorization failed with status {answer.status}{detail}")
    body = answer.body
    device_code, user_code = body.get("device_code"), body.get("user_code")
    verification, complete = _http_url(body.get("verification_uri")), _http_url(body.get("verification_uri_complete"))
    if not isinstance(device_code, str) or not isinstance(user_code, str) or not verification or not complete:
        raise LoginError(f"Invalid Kimi Code device authorization response: {_json_text(body)}")
    interval = _positive(body.get("interval"), DEFAULT_INTERVAL_S)
    expires_in = _positive(body.get("expires_in"), DEVICE_CODE_TIMEOUT_S)
    interaction.notify({"type": "device_code", "userCode": user_code, "verificationUri": complete})

    async def poll() -> tuple[str, Any]:
        reply = await post(
            f"{host}/api/oauth/token",
            form={
                "client_id": CLIENT_ID,
                "device_code": device_code,
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            },
        )
        if reply.status >= 500:
            detail = f": {redact(reply.text)}" if reply.text else ""
            return "failed", f"Kimi Code device token request failed with status {reply.status}{detail}"
        if reply.ok and isinstance(reply.body.get("access_token"), str):
            try:
                return "complete", _tokens(reply.body, "poll")
            except LoginError as exc:
                return "failed", str(exc)
        error = reply.body.get("error")
        description = reply.body.get("error_description")
        suffix = f": {description}" if isinstance(description, str) else ""
        if error == "authorization_pending":
            return "pending", None
        if error == "slow_down":
            return "slow_down", reply.body.get("interval")
        if error == "expired_token":
            return "failed", "Kimi Code device authorization expired. Please restart login."
        if error == "access_denied":
            return "failed", "Kimi Code login was denied."
        named = f": {error}{suffix}" if isinstance(error, str) else ""
        return "failed", f"Kimi Code device token request failed (status {reply.status}){named}"

    result: dict[str, Any] = await poll_device_code(poll, interval, expires_in, wait_first=True)
    return result
