"""Radius gateway OAuth (``pi-ai/dist/auth/oauth/radius.js``, built-in gateway
``https://radius.pi.dev``): ``POST <gateway>/v1/oauth/token``, form ``grant_type``,
``client_id=pi-gateway``, ``refresh_token``. Stored: ``{type, access, refresh, expires, scope}``
with ``expires`` = now + ``expires_in`` s − 60 s (fields the answer lacks are not written, as
``JSON.stringify`` drops ``undefined``)."""

from __future__ import annotations

import json
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

DEFAULT_GATEWAY = "https://radius.pi.dev"
OAUTH_CLIENT_ID = "pi-gateway"
TOKEN_EXPIRY_SKEW_MS = 60_000


def response_error(status: int, text: str, message: str) -> RuntimeError:
    """``readOAuthResponseError``: ``<message>: <error>[: <description>]`` (or the body, or the status)."""
    oauth_error: str | None = None
    description: str | None = None
    if text:
        try:
            data = json.loads(text)
            if isinstance(data, dict):
                oauth_error = data["error"] if isinstance(data.get("error"), str) else None
                description = data["error_description"] if isinstance(data.get("error_description"), str) else None
        except ValueError:
            description = redact_answer(text)
    if oauth_error:
        detail = f"{oauth_error}: {description}" if description else oauth_error
    else:
        detail = description or str(status)
    return RuntimeError(f"{message}: {detail}")


async def request_oauth_token(gateway: str, fields: dict[str, str], timeout_s: float) -> Credential:
    """``requestOAuthToken``."""
    try:
        reply = await http_request(
            "POST",
            f"{gateway}/v1/oauth/token",
            headers={"accept": "application/json", "content-type": "application/x-www-form-urlencoded"},
            body=form_body(fields),
            timeout_s=timeout_s,
        )
    except FetchError as exc:
        if exc.name == "TimeoutError":
            raise RuntimeError("Login cancelled") from None
        raise
    if not reply.ok:
        raise response_error(reply.status, reply.text, "Radius OAuth token request failed")
    return credential_from_token_answer(reply.json())


def credential_from_token_answer(data: Any) -> Credential:
    """What a Radius token answer is stored as (the login's and the refresh's): the fields it
    has, ``expires`` = now + ``expires_in`` − skew (null when absent: upstream's NaN)."""
    body = data if isinstance(data, dict) else {}
    stored: Credential = {"type": "oauth"}
    for source, target in (("access_token", "access"), ("refresh_token", "refresh")):
        if source in body:
            stored[target] = body[source]
    expires_in = body.get("expires_in")
    if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool):
        stored["expires"] = now_ms() + expires_in * 1000 - TOKEN_EXPIRY_SKEW_MS
    else:
        stored["expires"] = None  # NaN: JSON.stringify writes null
    if "scope" in body:
        stored["scope"] = body["scope"]
    return stored


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    fields = {
        "grant_type": "refresh_token",
        "client_id": OAUTH_CLIENT_ID,
        "refresh_token": str(credential.get("refresh")),
    }
    return await request_oauth_token(DEFAULT_GATEWAY, fields, timeout_s)


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


PROVIDER = OAuthProvider(id="radius", name="Radius", is_subscription=False, refresh=_refresh, to_auth=_to_auth)
