"""Meta (Muse subscription) OAuth: the "refresh" of upstream's ``pi-ai/dist/auth/oauth/meta.js``
(``mintApiKey``). The identity token is stored as ``refresh`` and the minted key as ``access``;
a refresh mints a new key: ``POST https://api.meta.ai/muse-code/key`` with
``Authorization: Bearer <identity token>``, ``x-api-version: 1.0.0`` and body ``{}``. 401/403
means the session is dead. Stored: ``{type, refresh, access, expires}`` with ``expires`` =
now + 24 h.
"""

from __future__ import annotations

from typing import Any

from pi_rpc.ai.auth.oauth.base import Credential, OAuthAuth, OAuthProvider, http_request, now_ms

API_KEY_MINT_URL = "https://api.meta.ai/muse-code/key"
API_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000
_REQUEST_TIMEOUT_S = 30.0


def error_detail(data: Any) -> str:
    """``errorDetail``."""
    if isinstance(data, dict):
        for key in ("error_description", "detail", "message", "error"):
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return f": {value.strip()}"
    return ""


def _trusted_http_url(value: Any) -> str | None:
    from urllib.parse import urlsplit

    if not isinstance(value, str):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    return value if parts.scheme in ("http", "https") and parts.netloc else None


async def mint_api_key(identity_token: str, timeout_s: float) -> Credential:
    """``mintApiKey``."""
    reply = await http_request(
        "POST",
        API_KEY_MINT_URL,
        headers={
            "Accept": "application/json",
            "Authorization": f"Bearer {identity_token}",
            "Content-Type": "application/json",
            "x-api-version": "1.0.0",
        },
        body=b"{}",
        timeout_s=min(timeout_s, _REQUEST_TIMEOUT_S),
    )
    try:
        parsed = reply.json()
        data = parsed if isinstance(parsed, dict) else None
    except ValueError:
        data = None
    if reply.status in (401, 403):
        raise RuntimeError(
            f"Meta session expired (status {reply.status}). Run `/login meta` to sign in again.{error_detail(data)}"
        )
    if not reply.ok:
        raise RuntimeError(f"Meta API key mint failed with status {reply.status}{error_detail(data)}")
    api_key = (data or {}).get("api_key")
    if not isinstance(api_key, str) or not api_key:
        action = _trusted_http_url((data or {}).get("action_url"))
        raise RuntimeError("Meta did not issue an API key." + (f" Complete setup at {action}" if action else ""))
    return {"type": "oauth", "refresh": identity_token, "access": api_key, "expires": now_ms() + API_KEY_LIFETIME_MS}


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    return await mint_api_key(str(credential.get("refresh")), timeout_s)


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


PROVIDER = OAuthProvider(
    id="meta", name="Meta (Muse subscription)", is_subscription=True, refresh=_refresh, to_auth=_to_auth
)
