"""OpenAI Codex (ChatGPT Plus/Pro) OAuth: the refresh of upstream's
``pi-ai/dist/auth/oauth/openai-codex.js`` (``refreshOpenAICodexToken``).

``POST https://auth.openai.com/oauth/token``, form ``grant_type=refresh_token``,
``refresh_token``, ``client_id``; the answer must carry ``access_token``, ``refresh_token`` and a
numeric ``expires_in``; ``accountId`` is read again from the access token's JWT claim
``https://api.openai.com/auth``.``chatgpt_account_id``. Stored: ``{type, access, refresh,
expires, accountId}`` with ``expires`` = now + ``expires_in`` s (no skew).
"""

from __future__ import annotations

from typing import Any

from pi_rpc.ai.auth.oauth.base import (
    Credential,
    FetchError,
    OAuthAuth,
    OAuthProvider,
    decode_jwt_payload,
    form_body,
    http_request,
    now_ms,
)
from pi_rpc.ai.auth.oauth.refresh import redact_answer

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
TOKEN_URL = "https://auth.openai.com/oauth/token"
JWT_CLAIM_PATH = "https://api.openai.com/auth"


def account_id(access_token: str) -> str | None:
    """The ChatGPT account id in an access token (``getAccountId``), ``None`` without one."""
    payload = decode_jwt_payload(access_token)
    auth = payload.get(JWT_CLAIM_PATH) if isinstance(payload, dict) else None
    value = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    return value if isinstance(value, str) and value else None


def _js_stringify(value: Any) -> str:
    from pi_rpc.ai.jsjson import stringify

    return stringify(value).decode("utf-8")


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    params = {"grant_type": "refresh_token", "refresh_token": str(credential.get("refresh")), "client_id": CLIENT_ID}
    try:
        reply = await http_request(
            "POST",
            TOKEN_URL,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            body=form_body(params),
            timeout_s=timeout_s,
        )
    except FetchError as exc:
        raise RuntimeError(f"OpenAI Codex token refresh error: {exc.message}") from None
    if not reply.ok:
        raise RuntimeError(
            f"OpenAI Codex token refresh failed ({reply.status}): {redact_answer(reply.text) or reply.status_text}"
        )
    data = reply.json()
    if (
        not isinstance(data, dict)
        or not data.get("access_token")
        or not data.get("refresh_token")
        or not isinstance(data.get("expires_in"), (int, float))
        or isinstance(data.get("expires_in"), bool)
    ):
        raise RuntimeError(f"OpenAI Codex token refresh response missing fields: {_js_stringify(data)}")
    access = data["access_token"]
    account = account_id(access) if isinstance(access, str) else None
    if not account:
        raise RuntimeError("Failed to extract accountId from token")
    return {
        "type": "oauth",
        "access": access,
        "refresh": data["refresh_token"],
        "expires": now_ms() + data["expires_in"] * 1000,
        "accountId": account,
    }


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


PROVIDER = OAuthProvider(
    id="openai-codex",
    name="OpenAI (ChatGPT Plus/Pro)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
)
