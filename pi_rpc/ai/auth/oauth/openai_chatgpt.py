"""OpenAI "Sign in with ChatGPT" OAuth (provider ``openai``): the refresh of upstream's
``pi-ai/dist/auth/oauth/openai-chatgpt.js`` (``refreshAccessToken``).

``POST https://auth.openai.com/api/accounts/oauth/token``, form ``grant_type``, ``client_id`` (the
client id issued at login and stored as ``clientId``), ``refresh_token``, ``resource``; the answer
must carry ``access_token``, ``refresh_token``, a ``scope`` including
``chatgpt.tokens.use.direct`` and a positive ``expires_in``. Stored: ``{type, access, refresh,
expires, clientId, scopes}`` with ``expires`` = now + ``expires_in`` s − 3 min.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pi_rpc.ai.auth.oauth.base import Credential, OAuthAuth, OAuthProvider, form_body, http_request, now_ms
from pi_rpc.ai.auth.oauth.refresh import redact_answer

TOKEN_URL = "https://auth.openai.com/api/accounts/oauth/token"
RESOURCE = "https://api.openai.com/v1"
DIRECT_TOKEN_SCOPE = "chatgpt.tokens.use.direct"
EXPIRY_MARGIN_MS = 3 * 60 * 1000


def _token_string(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RuntimeError(f"OpenAI OAuth token response has invalid {name}")
    return value


def credential_from_token_response(token: dict[str, Any], client_id: str) -> Credential:
    """``credentialFromTokenResponse``."""
    access = _token_string(token.get("access_token"), "access_token")
    refresh = _token_string(token.get("refresh_token"), "refresh_token")
    scope = _token_string(token.get("scope"), "scope")
    expires_in = token.get("expires_in")
    if (
        not isinstance(expires_in, (int, float))
        or isinstance(expires_in, bool)
        or not math.isfinite(expires_in)
        or expires_in <= 0
    ):
        raise RuntimeError("OpenAI OAuth token response has invalid expires_in")
    scopes = [s for s in re.split(r"\s+", scope.strip()) if s]
    if DIRECT_TOKEN_SCOPE not in scopes:
        raise RuntimeError(f"OpenAI OAuth grant did not include {DIRECT_TOKEN_SCOPE}")
    return {
        "type": "oauth",
        "access": access,
        "refresh": refresh,
        "expires": now_ms() + expires_in * 1000 - EXPIRY_MARGIN_MS,
        "clientId": client_id,
        "scopes": scopes,
    }


async def request_token(params: dict[str, str], timeout_s: float) -> dict[str, Any]:
    """``requestToken``: the token endpoint's answer as an object."""
    reply = await http_request(
        "POST",
        TOKEN_URL,
        headers={"accept": "application/json", "content-type": "application/x-www-form-urlencoded"},
        body=form_body(params),
        timeout_s=timeout_s,
    )
    if not reply.ok:
        raise RuntimeError(
            f"OpenAI OAuth token request failed ({reply.status}): {redact_answer(reply.text) or reply.status_text}"
        )
    data = reply.json()
    if not isinstance(data, dict):
        raise RuntimeError("OpenAI OAuth token response must be an object")
    return data


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    client_id = credential.get("clientId")
    if not isinstance(client_id, str) or not client_id.strip():
        raise RuntimeError("Stored OpenAI OAuth credential does not contain an issued client ID; reconnect ChatGPT")
    params = {
        "grant_type": "refresh_token",
        "client_id": client_id,
        "refresh_token": str(credential.get("refresh")),
        "resource": RESOURCE,
    }
    return credential_from_token_response(await request_token(params, timeout_s), client_id)


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


PROVIDER = OAuthProvider(
    id="openai",
    name="OpenAI (ChatGPT subscription)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
)
