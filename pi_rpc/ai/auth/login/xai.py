"""xAI's device-code login (``pi-ai/dist/auth/oauth/xai.js``): the device code from
``auth.x.ai/oauth2/device/code``, the user enters it at the verification URI, the token endpoint
is polled; stored as ``{type, access, refresh, expires: now + expires_in·1000 − 5 min}``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from pi_rpc.ai.auth.login import LoginError, LoginInteraction
from pi_rpc.ai.auth.login.device_code import poll_device_code
from pi_rpc.ai.auth.login.http import Answer, post
from pi_rpc.ai.auth.oauth.xai import (
    CLIENT_ID,
    TOKEN_URL,
    credentials_from_token_response,
    positive_number,
    required_string,
)

SCOPE = "openid profile email offline_access grok-cli:access api:access"
DEVICE_CODE_URL = "https://auth.x.ai/oauth2/device/code"


def _string(body: dict[str, Any], field: str) -> str:
    return required_string(body, field, LoginError)


def _positive(body: dict[str, Any], field: str) -> float:
    return float(positive_number(body, field, LoginError))


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
            return "complete", credentials_from_token_response(reply.body, None, LoginError)
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
