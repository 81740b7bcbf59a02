"""xAI (SuperGrok or X Premium) OAuth: the refresh of upstream's
``pi-ai/dist/auth/oauth/xai.js`` (``refreshXaiToken``).

``POST https://auth.x.ai/oauth2/token``, form ``grant_type``, ``client_id``, ``refresh_token``;
an answer without ``refresh_token`` keeps the old one, without ``expires_in`` lasts 3600 s.
Stored: ``{type, access, refresh, expires}`` with ``expires`` = now + s − 5 min.

The sign-in (``PROVIDER.login``):
xAI's device-code login (``pi-ai/dist/auth/oauth/xai.js``): the device code from
``auth.x.ai/oauth2/device/code``, the user enters it at the verification URI, the token endpoint
is polled; stored as ``{type, access, refresh, expires: now + expires_in·1000 − 5 min}``."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlparse

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import FetchError, form_body, http_request, now_ms
from pi_rpc.ai.auth.oauth.device_code import poll_device_code
from pi_rpc.ai.auth.oauth.http import Answer, post
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
TOKEN_URL = "https://auth.x.ai/oauth2/token"
SKEW_MS = 5 * 60 * 1000
DEFAULT_LIFETIME_S = 3600


def required_string(body: dict[str, object], name: str, error: type[Exception] = RuntimeError) -> str:
    """``requiredString``: a non-empty string field (the login flow raises its own ``error``)."""
    value = body.get(name)
    if not isinstance(value, str) or not value:
        raise error(f"Invalid xAI OAuth response field: {name}")
    return value


def positive_number(body: dict[str, object], name: str, error: type[Exception] = RuntimeError) -> float:
    """``positiveNumber``: a finite number above 0."""
    value = body.get(name)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise error(f"Invalid xAI OAuth response field: {name}")
    return value


def credentials_from_token_response(
    body: dict[str, object], previous_refresh: str | None, error: type[Exception] = RuntimeError
) -> Credential:
    """``credentialsFromTokenResponse`` (the refresh's and the login's; ``error``: the type a
    bad answer raises)."""
    access = required_string(body, "access_token", error)
    if "refresh_token" not in body and previous_refresh:
        refresh = previous_refresh
    else:
        refresh = required_string(body, "refresh_token", error)
    seconds = DEFAULT_LIFETIME_S if "expires_in" not in body else positive_number(body, "expires_in", error)
    return {"type": "oauth", "access": access, "refresh": refresh, "expires": now_ms() + seconds * 1000 - SKEW_MS}


async def post_form(url: str, fields: dict[str, str], timeout_s: float) -> tuple[bool, int, dict[str, Any]]:
    """``postForm``: (ok, status, the answer's object or ``{}``)."""
    try:
        reply = await http_request(
            "POST",
            url,
            headers={"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"},
            body=form_body(fields),
            timeout_s=timeout_s,
        )
    except FetchError as exc:
        if exc.name == "TimeoutError":
            raise RuntimeError("Login cancelled") from None  # the signal fired (upstream's text)
        raise
    try:
        parsed = reply.json()
    except ValueError:
        raise RuntimeError(f"xAI OAuth returned invalid JSON (HTTP {reply.status})") from None
    return reply.ok, reply.status, parsed if isinstance(parsed, dict) else {}


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    refresh = str(credential.get("refresh"))
    fields = {"grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": refresh}
    ok, status, body = await post_form(TOKEN_URL, fields, timeout_s)
    if not ok:
        error = body.get("error") if isinstance(body.get("error"), str) else None
        description = body.get("error_description") if isinstance(body.get("error_description"), str) else None
        detail = ": ".join(p for p in (error, description) if p)
        raise RuntimeError(f"xAI OAuth token refresh failed (HTTP {status})" + (f": {detail}" if detail else ""))
    return credentials_from_token_response(body, refresh)


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


SCOPE = "openid profile email offline_access grok-cli:access api:access"
DEVICE_CODE_URL = "https://auth.x.ai/oauth2/device/code"


def _string(body: dict[str, object], field: str) -> str:
    return required_string(body, field, LoginError)


def _positive(body: dict[str, object], field: str) -> float:
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


async def login_xai(interaction: LoginInteraction) -> dict[str, object]:
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

    async def poll() -> tuple[str, object]:
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

    result: dict[str, object] = await poll_device_code(poll, interval_s, expires_in, wait_first=True)
    return result


PROVIDER = OAuthProvider(
    id="xai",
    name="xAI (Grok/X subscription)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_xai,
)
