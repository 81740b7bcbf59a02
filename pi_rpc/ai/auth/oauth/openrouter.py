"""OpenRouter OAuth (``pi-ai/dist/auth/oauth/openrouter.js``): the login mints an API key that
does not expire (``expires`` = ``Number.MAX_SAFE_INTEGER``, ``refresh`` = ``""``); a refresh
returns the credential unchanged and sends nothing."""

from __future__ import annotations

from pi_rpc.ai.auth.oauth.base import Credential, OAuthAuth, OAuthProvider


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    return credential


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


PROVIDER = OAuthProvider(
    id="openrouter", name="OpenRouter OAuth", is_subscription=False, refresh=_refresh, to_auth=_to_auth
)
