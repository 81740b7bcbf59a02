"""Logging in to a provider, as upstream pi 1.6's login flows do (``pi-ai/dist/auth/oauth/*.js``,
``pi-ai/dist/auth/helpers.js`` ``envApiKeyAuth``), with the front-end left open: ``pi auth
login`` talks to a terminal, RPC's ``auth_login`` and ACP's ``authenticate`` to the client.

This module is the dispatcher; each account sign-in is its provider's ``login``
(``pi_rpc.ai.auth.oauth.<provider>``, found through ``pi_rpc.ai.auth.oauth.get_oauth_provider``),
the shapes are ``pi_rpc.ai.auth.types``. A flow gets a ``LoginInteraction``: ``prompt`` asks one question (``select`` a method, a
``secret`` API key, a ``manual_code`` pasted from the browser) and ``notify`` shows what the user
must do (``auth_url`` with the sign-in URL, ``device_code`` with the code and where to enter it,
``progress``). Cancelling the task that runs ``login`` (an anyio cancel scope) cancels the flow;
the credential is written only when the flow completed (``AuthStore.modify``, under upstream's
lock). Nothing here prints or logs a credential; errors that quote an endpoint's answer pass
through ``redact``.

Flows: ``anthropic`` (PKCE: browser with a localhost callback, or the copy-code page),
``openai-codex`` (PKCE browser with the localhost callback, or device code), ``github-copilot``
(GitHub's device flow, then the Copilot token and models), ``xai``, ``kimi-coding`` and ``meta``
(device code), ``openrouter`` (PKCE with a callback on an ephemeral port, a key minted),
``openai`` (Sign in with ChatGPT: a dynamically registered client, the installation's
``deviceId`` from the global settings), ``radius`` (gateway discovery; browser or device code),
the API key login of every provider whose key is one value, and the several questions of
Bedrock, Vertex and Cloudflare (``api_key``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.types import CANCELLED, LoginInteraction

if TYPE_CHECKING:
    from pi_rpc.ai.auth.store import AuthStore

__all__ = ["CANCELLED", "LoginError", "LoginInteraction", "describe", "login", "login_methods", "obtain_credential"]


def login_methods(provider: str) -> list[str]:
    """The login kinds pi_rpc can run for ``provider``: ``oauth`` and/or ``api_key``."""
    from pi_rpc.ai.auth.login.providers import provider_auth
    from pi_rpc.ai.auth.oauth import OAUTH_PROVIDER_IDS
    from pi_rpc.ai.auth.oauth.extension import registered

    info = provider_auth(provider)
    methods: list[str] = []
    if (info is not None and info.oauth_name and provider in OAUTH_PROVIDER_IDS) or registered(provider) is not None:
        methods.append("oauth")
    if info is not None and info.api_key_name:
        methods.append("api_key")
    return methods


async def obtain_credential(provider: str, auth_type: str, interaction: LoginInteraction) -> dict[str, object]:
    """Run the flow and return the credential to store (not yet stored): the API key questions,
    or the provider's own sign-in (``OAuthProvider.login``)."""
    from pi_rpc.ai.auth.login.api_key import MULTI_VALUE_PROVIDERS, login_multi_value_api_key
    from pi_rpc.ai.auth.login.providers import provider_auth
    from pi_rpc.ai.auth.oauth import get_oauth_provider

    info = provider_auth(provider)
    if auth_type == "api_key":
        if info is None or not info.api_key_name:
            raise LoginError(f"pi_rpc has no API key login for {provider}")
        if provider in MULTI_VALUE_PROVIDERS:
            return await login_multi_value_api_key(provider, interaction)
        key = await interaction.prompt({"type": "secret", "message": f"Enter {info.api_key_name}"})
        return {"type": "api_key", "key": key}
    oauth = get_oauth_provider(provider)
    if oauth is None:
        raise LoginError(f"pi_rpc cannot sign in to {provider} with an account yet")
    return await oauth.login(interaction)


async def login(store: AuthStore, provider: str, auth_type: str, interaction: LoginInteraction) -> dict[str, object]:
    """Log in and store the credential under the lock; returns what was stored."""
    credential = await obtain_credential(provider, auth_type, interaction)
    stored = await store.modify(provider, lambda _current: credential)
    return stored or credential


def describe(credential: Mapping[str, object]) -> dict[str, object]:
    """What a response may say about a stored credential: its type and expiry, no secret."""
    out: dict[str, object] = {"authType": credential.get("type")}
    expires = credential.get("expires")
    if credential.get("type") == "oauth" and isinstance(expires, (int, float)):
        out["expiresAt"] = expires
    return out
