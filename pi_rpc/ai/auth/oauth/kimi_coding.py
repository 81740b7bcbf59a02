"""Kimi Code OAuth: the refresh of upstream's ``pi-ai/dist/auth/oauth/kimi-coding.js``.

``POST <host>/api/oauth/token`` (host ``https://auth.kimi.com``, or ``KIMI_CODE_OAUTH_HOST`` /
``KIMI_OAUTH_HOST``), form ``client_id``, ``grant_type``, ``refresh_token``; up to 3 retries
(1, 2, 4 s) on 429, 5xx and network errors; 401/403/``invalid_grant`` is final. Stored:
``{type, access, refresh, expires}`` with ``expires`` = now + ``expires_in`` s. Requests carry
``Authorization: Bearer <access>`` as a header, not as a key (``toAuth``).
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

from pi_rpc.ai.auth.oauth.base import (
    Credential,
    FetchError,
    OAuthAuth,
    OAuthProvider,
    form_body,
    http_request,
    now_ms,
)
from pi_rpc.ai.auth.oauth.refresh import redact_answer

CLIENT_ID = "17e5f671-d194-4dfb-9706-5516cb48c098"
DEFAULT_OAUTH_HOST = "https://auth.kimi.com"
REFRESH_MAX_RETRIES = 3
_REQUEST_TIMEOUT_S = 30.0


def oauth_host() -> str:
    """``getOauthHost``."""
    override = os.environ.get("KIMI_CODE_OAUTH_HOST") or os.environ.get("KIMI_OAUTH_HOST")
    return (override or DEFAULT_OAUTH_HOST).rstrip("/")


def _js_stringify(value: Any) -> str:
    from pi_rpc.ai.jsjson import stringify

    return stringify(value).decode("utf-8")


def has_token_fields(body: dict[str, Any]) -> bool:
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


def parse_token_response(data: Any, operation: str) -> Credential:
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


PROVIDER = OAuthProvider(
    id="kimi-coding", name="Kimi Code (subscription)", is_subscription=True, refresh=_refresh, to_auth=_to_auth
)
