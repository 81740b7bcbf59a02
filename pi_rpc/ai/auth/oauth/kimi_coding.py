"""Kimi Code OAuth: the refresh of upstream's ``pi-ai/dist/auth/oauth/kimi-coding.js``.

``POST <host>/api/oauth/token`` (host ``https://auth.kimi.com``, or ``KIMI_CODE_OAUTH_HOST`` /
``KIMI_OAUTH_HOST``), form ``client_id``, ``grant_type``, ``refresh_token``; up to 3 retries
(1, 2, 4 s) on 429, 5xx and network errors; 401/403/``invalid_grant`` is final. Stored:
``{type, access, refresh, expires}`` with ``expires`` = now + ``expires_in`` s. Requests carry
``Authorization: Bearer <access>`` as a header, not as a key (``toAuth``).

The sign-in (``PROVIDER.login``):
Kimi Code's device-code login (``pi-ai/dist/auth/oauth/kimi-coding.js``): RFC 8628 against
``https://auth.kimi.com`` (``KIMI_CODE_OAUTH_HOST`` / ``KIMI_OAUTH_HOST`` override the host),
JSON answers; stored ``{type, access, refresh, expires: now + expires_in·1000}``."""

from __future__ import annotations

import math
import os
import time
from typing import Any
from urllib.parse import urlparse

import orjson

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import FetchError, form_body, http_request, now_ms
from pi_rpc.ai.auth.oauth.device_code import poll_device_code
from pi_rpc.ai.auth.oauth.http import post
from pi_rpc.ai.auth.oauth.redact import redact
from pi_rpc.ai.auth.oauth.refresh import redact_answer
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

CLIENT_ID = "17e5f671-d194-4dfb-9706-5516cb48c098"
DEFAULT_OAUTH_HOST = "https://auth.kimi.com"
REFRESH_MAX_RETRIES = 3
_REQUEST_TIMEOUT_S = 30.0


def oauth_host() -> str:
    """``getOauthHost``."""
    override = os.environ.get("KIMI_CODE_OAUTH_HOST") or os.environ.get("KIMI_OAUTH_HOST")
    return (override or DEFAULT_OAUTH_HOST).rstrip("/")


def _js_stringify(value: object) -> str:
    from pi_rpc.ai.jsjson import stringify

    return stringify(value).decode("utf-8")


def has_token_fields(body: dict[str, object]) -> bool:
    """Whether a token answer carries what ``parseTokenResponse`` requires: non-empty
    ``access_token`` and ``refresh_token`` strings and a finite ``expires_in`` above 0."""
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    return (
        isinstance(access, str)
        and bool(access)
        and isinstance(refresh, str)
        and bool(refresh)
        and isinstance(expires_in, (int, float))
        and not isinstance(expires_in, bool)
        and math.isfinite(expires_in)
        and expires_in > 0
    )


def parse_token_response(data: object, operation: str) -> Credential:
    """``parseTokenResponse`` as the stored credential."""
    body = data if isinstance(data, dict) else {}
    if not has_token_fields(body):
        raise RuntimeError(f"Kimi Code token {operation} response missing fields: {redact_answer(_js_stringify(data))}")
    access, refresh, expires_in = body["access_token"], body["refresh_token"], body["expires_in"]
    return {"type": "oauth", "access": access, "refresh": refresh, "expires": now_ms() + expires_in * 1000}


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    import anyio

    deadline = time.monotonic() + timeout_s
    url = f"{oauth_host()}/api/oauth/token"
    fields = {"client_id": CLIENT_ID, "grant_type": "refresh_token", "refresh_token": str(credential.get("refresh"))}
    last_error: Exception | None = None
    for attempt in range(REFRESH_MAX_RETRIES + 1):
        if attempt > 0:
            delay = 2 ** (attempt - 1)
            if time.monotonic() + delay >= deadline:
                raise RuntimeError("Kimi Code token refresh aborted")  # the signal fires during the sleep
            await anyio.sleep(delay)
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError("Kimi Code token refresh aborted")
        try:
            reply = await http_request(
                "POST",
                url,
                headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
                body=form_body(fields),
                timeout_s=min(left, _REQUEST_TIMEOUT_S),
            )
        except FetchError as exc:
            last_error = RuntimeError(exc.message)
            continue
        try:
            parsed = reply.json()
            data = parsed if isinstance(parsed, dict) else None
        except ValueError:
            data = None
        if reply.ok:
            return parse_token_response(data, "refresh")
        if reply.status in (401, 403) or (data or {}).get("error") == "invalid_grant":
            description = (data or {}).get("error_description")
            suffix = f": {description}" if isinstance(description, str) else ""
            raise RuntimeError(f"Kimi Code token refresh unauthorized (status {reply.status}){suffix}")
        if (reply.status == 429 or reply.status >= 500) and attempt < REFRESH_MAX_RETRIES:
            last_error = RuntimeError(f"Kimi Code token refresh failed with status {reply.status}")
            continue
        text = redact_answer(_js_stringify(data))
        raise RuntimeError(f"Kimi Code token refresh failed with status {reply.status}: {text}")
    raise last_error or RuntimeError("Kimi Code token refresh failed")


def _to_auth(credential: Credential) -> OAuthAuth:
    # Upstream's toAuth gives only the header; the access token is also the key here because
    # the openai-completions client sends a key as exactly that header (same bytes on the wire).
    access = credential["access"]
    return OAuthAuth(api_key=access, headers={"Authorization": f"Bearer {access}"})


DEVICE_CODE_TIMEOUT_S = 15 * 60
DEFAULT_INTERVAL_S = 5


def _http_url(value: object) -> str | None:
    """``trustedHttpUrl``: only an http(s) URL is opened."""
    return value if isinstance(value, str) and urlparse(value).scheme in ("http", "https") else None


def _positive(value: Any, default: float) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return float(value) if ok else default


def _json_text(body: dict[str, object]) -> str:
    return redact(orjson.dumps(body).decode())


def _tokens(body: dict[str, Any], operation: str) -> dict[str, Any]:
    if not has_token_fields(body):
        raise LoginError(f"Kimi Code token {operation} response missing fields: {_json_text(body)}")
    access, refresh, expires_in = body["access_token"], body["refresh_token"], body["expires_in"]
    return {
        "type": "oauth",
        "access": access,
        "refresh": refresh,
        "expires": int(time.time() * 1000 + expires_in * 1000),
    }


async def login_kimi_coding(interaction: LoginInteraction) -> dict[str, object]:
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

    async def poll() -> tuple[str, object]:
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

    result: dict[str, object] = await poll_device_code(poll, interval, expires_in, wait_first=True)
    return result


PROVIDER = OAuthProvider(
    id="kimi-coding",
    name="Kimi Code (subscription)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_kimi_coding,
)
