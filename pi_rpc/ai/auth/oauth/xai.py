"""xAI (SuperGrok or X Premium) OAuth: the refresh of upstream's
``pi-ai/dist/auth/oauth/xai.js`` (``refreshXaiToken``).

``POST https://auth.x.ai/oauth2/token``, form ``grant_type``, ``client_id``, ``refresh_token``;
an answer without ``refresh_token`` keeps the old one, without ``expires_in`` lasts 3600 s.
Stored: ``{type, access, refresh, expires}`` with ``expires`` = now + s − 5 min.
"""

from __future__ import annotations

import math
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

CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
TOKEN_URL = "https://auth.x.ai/oauth2/token"
SKEW_MS = 5 * 60 * 1000
DEFAULT_LIFETIME_S = 3600


def required_string(body: dict[str, Any], name: str, error: type[Exception] = RuntimeError) -> str:
    """``requiredString``: a non-empty string field (the login flow raises its own ``error``)."""
    value = body.get(name)
    if not isinstance(value, str) or not value:
        raise error(f"Invalid xAI OAuth response field: {name}")
    return value


def positive_number(body: dict[str, Any], name: str, error: type[Exception] = RuntimeError) -> float:
    """``positiveNumber``: a finite number above 0."""
    value = body.get(name)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise error(f"Invalid xAI OAuth response field: {name}")
    return value


def credentials_from_token_response(
    body: dict[str, Any], previous_refresh: str | None, error: type[Exception] = RuntimeError
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


PROVIDER = OAuthProvider(
    id="xai", name="xAI (Grok/X subscription)", is_subscription=True, refresh=_refresh, to_auth=_to_auth
)
