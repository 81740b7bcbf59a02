"""A stored OAuth credential made fresh enough for ``pi auth``: ``check`` refreshes within the
5-minute window (``getAuth``), ``print-bearer-token`` within ``--min-expiry`` (30 minutes by
default) and fails when the new token still expires sooner. The refresh is
``pi_rpc.ai.auth.oauth.resolve_stored_oauth``: the provider's request, under the auth.json
lock, double-checked (another process may have refreshed meanwhile)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from pi_rpc.errors import PiError

if TYPE_CHECKING:
    from pi_rpc.ai.auth.store import AuthStore


class OAuthRefreshError(PiError):
    """The stored credential is not OAuth, or it could not be refreshed."""


def ensure_fresh(store: AuthStore, provider: str, min_validity_ms: int | None) -> dict[str, object]:
    """The provider's stored OAuth entry, refreshed when it expires within
    ``max(5 min, min_validity_ms)``; with ``min_validity_ms`` a refreshed token that still
    expires sooner is an error (after it was saved, as upstream)."""
    from pi_rpc.ai.auth.oauth import get_oauth_provider, resolve_stored_oauth

    store.reload()
    entry = store.entry(provider)
    oauth = get_oauth_provider(provider)
    if entry is None or entry.get("type") != "oauth" or oauth is None:
        raise OAuthRefreshError(f"No OAuth credential stored for {provider}")

    async def resolve() -> dict[str, object] | None:
        return await resolve_stored_oauth(store, oauth, entry, min_validity_ms=min_validity_ms)

    fresh = anyio.run(resolve)
    if fresh is None:
        raise OAuthRefreshError(f"No OAuth credential stored for {provider}")
    return fresh
