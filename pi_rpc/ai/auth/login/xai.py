"""xAI's device-code login (``pi-ai/dist/auth/oauth/xai.js``): the device code from
``auth.x.ai/oauth2/device/code``, the user enters it at the verification URI, the token endpoint
is polled; stored as ``{type, access, refresh, expires: now + expires_in·1000 − 5 min}``."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlparse

from pi_rpc.ai.auth.login import LoginError, LoginInteraction
from pi_rpc.ai.auth.login.device_code import poll_device_code
from pi_rpc.ai.auth.login.http import Answer, post

CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
SCOPE = "openid profile email offline_access grok-cli:access api:access"
DEVICE_CODE_URL = "https://auth.x.ai/oauth2/device/code"
TOKEN_URL = "https://auth.x.ai/oauth2/token"
REFRESH_SKEW_MS = 5 * 60 * 1000
DEFAULT_LIFETIME_S = 3600


def _string(body: dict[str, Any], field: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value:
        raise LoginError(f"Invalid xAI OAuth response field: {field}")
    return value


def _positive(body: dict[str, Any], field: str) -> float:
    value = body.get(field)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise LoginError(f"Invalid xAI OAuth response field: {field}")
    return float(value)


def _https(raw: str) -> str:
    # The URI is shown to be opened: only an https URL (a hostile answer cannot launch anything else).
    if urlparse(raw).scheme != "https":
        raise LoginError("Untrusted verification URI in xAI OAuth response")
    return raw


def _failure(action: str, answer: Answer) -> str:
    error = answer.body.get("error") if isinstance(answer.body.get("error"), str) else None
    description = answer.body.get("error_description")
    detail = ": ".join(x for x in (error, description if isinstance(description, str) else None) if x)
    return f"xAI OAuth {action} failed (HTTP {answer.status})" + (f": {detail}" if detail else "")


def _checked(answer: Answer) -> Answer:
    if not answer.json_ok and answer.text.strip() and not answer.text.strip().startswith(("{", "[")):
        raise LoginError(f"xAI OAuth returned invalid JSON (HTTP {answer.status})")
    return answer


def credential_from_tokens(body: dict[str, Any], previous_refresh: str | None = None) -> dict[str, Any]:
    access = _string(body, "access_token")
    refresh = (
        previous_refresh if body.get("refresh_token") is None and previous_refresh else _string(body, "refresh_token")
    )
    seconds = DEFAULT_LIFETIME_S if body.get("expires_in") is None else _positive(body, "expires_in")
    return {
        "type": "oauth",
        "access": access,
        "refresh": refresh,
        "expires": int(time.time() * 1000 + seconds * 1000 - REFRESH_SKEW_MS),
    }


async def login_xai(interaction: LoginInteraction) -> dict[str, Any]:
    answer = _checked(await post(DEVICE_CODE_URL, form={"client_id": CLIENT_ID, "scope": SCOPE, "referrer": "pi"}))
    if not answer.ok:
        raise LoginError(_failure("device authorization", answer))
    body = answer.body
    interval = body.get("interval")
    interval_s = (
        float(interval)
        if isinstance(interval, (int, float)) and not isinstance(interval, bool) and interval > 0
        else None
    )
    complete = body.get("verification_uri_complete")
    device_code = _string(body, "device_code")
    user_code = _string(body, "user_code")
    verification = _https(_string(body, "verification_uri"))
    if isinstance(complete, str) and complete:
        verification = _https(complete)
    expires_in = _positive(body, "expires_in")
    interaction.notify({"type": "device_code", "userCode": user_code, "verificationUri": verification})

    async def poll() -> tuple[str, Any]:
        reply = _checked(
            await post(
                TOKEN_URL,
                form={
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    "client_id": CLIENT_ID,
                    "device_code": device_code,
                },
            )
        )
        if reply.ok:
            return "complete", credential_from_tokens(reply.body)
        error = reply.body.get("error")
        if error == "authorization_pending":
            return "pending", None
        if error == "slow_down":
            return "slow_down", reply.body.get("interval")
        if error in ("access_denied", "authorization_denied"):
            return "failed", "xAI device authorization was denied"
        if error == "expired_token":
            return "failed", "xAI device code expired"
        return "failed", _failure("device token polling", reply)

    result: dict[str, Any] = await poll_device_code(poll, interval_s, expires_in, wait_first=True)
    return result
