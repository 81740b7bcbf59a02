"""Upstream 1.6's OAuth providers (``pi-ai/dist/auth/oauth/``): their refresh requests, the
fields they store, and what a stored credential gives an API request.

Public API (the login dispatcher and ``pi auth`` import these):

- ``OAUTH_PROVIDER_IDS``: the provider ids, in upstream's order.
- ``get_oauth_provider(id)``: the ``OAuthProvider`` (``pi_rpc.ai.auth.types``: ``id``, ``name``,
  ``is_subscription``, ``login(interaction)``, ``refresh(credential, timeout_s)``,
  ``to_auth(credential)``), or ``None``; each provider's module is imported only when asked for.

One module per provider (``<provider>.py``, as upstream's ``oauth/<provider>.ts``) defines its
``PROVIDER``: the sign-in, the refresh, and what the credential gives a request. What the sign-ins
share is here too: the browser callback and the callback-or-paste race (``callback_server``), the
device-code polling (``device_code``), PKCE (``pkce``), the JSON/form posts (``http``), the
redaction of quoted answers (``redact``). ``_MODULES`` below is the one list of OAuth providers:
the login dispatcher, ``pi auth``, the model registry and ACP's ``authMethods`` derive from it.
- ``resolve_stored_oauth(store, provider, stored, signal=, min_validity_ms=)``: the stored
  credential, refreshed under the ``auth.json`` lock when it expires within 5 minutes
  (``refresh``); ``refresh_stored_credential`` is the under-lock step alone.
- ``expires_within(credential, min_validity_ms)``: whether a credential is due for refresh.
- ``OAuthError``: a failed refresh with upstream's message (``OAuth refresh failed for <id>: …``).
- ``pending_credential_writes()``: refreshes started and not yet written.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pi_rpc.ai.auth.oauth.refresh import (
    OAuthError,
    expires_within,
    pending_credential_writes,
    refresh_stored_credential,
    resolve_stored_oauth,
    to_auth,
    to_auth_async,
)

if TYPE_CHECKING:
    from pi_rpc.ai.auth.types import OAuthProvider

__all__ = [
    "OAUTH_PROVIDER_IDS",
    "OAuthError",
    "expires_within",
    "get_oauth_provider",
    "pending_credential_writes",
    "refresh_stored_credential",
    "resolve_stored_oauth",
    "to_auth",
    "to_auth_async",
]

# provider id -> the module defining its ``PROVIDER`` (upstream's ``auth/oauth/load.js``).
_MODULES = {
    "anthropic": "anthropic",
    "openai-codex": "openai_codex",
    "openai": "openai_chatgpt",
    "github-copilot": "github_copilot",
    "xai": "xai",
    "kimi-coding": "kimi_coding",
    "meta": "meta",
    "openrouter": "openrouter",
    "radius": "radius",
}

OAUTH_PROVIDER_IDS: tuple[str, ...] = tuple(_MODULES)


def get_oauth_provider(provider_id: str) -> OAuthProvider | None:
    """The OAuth provider ``provider_id`` (``None`` for a provider without an OAuth login)."""
    module_name = _MODULES.get(provider_id)
    if module_name is None:
        # An extension's provider with an ``oauth`` block (``extension``), if one registered it.
        from pi_rpc.ai.auth.oauth.extension import registered

        return registered(provider_id)
    module = importlib.import_module(f"pi_rpc.ai.auth.oauth.{module_name}")
    provider: OAuthProvider = module.PROVIDER
    return provider
