"""A stored OAuth credential made fresh enough for ``pi auth`` (``check`` refreshes within the
5-minute window, ``print-bearer-token`` within ``--min-expiry``, 30 minutes by default).

The refresh itself is the per-provider request of ``pi_rpc.ai.auth.oauth`` (refresh under the
lock, double-checked: another process may have refreshed meanwhile). Until that package is
present a credential that needs a refresh is reported as one that could not be refreshed,
which is what upstream reports when its token endpoint fails: nothing is sent, nothing written.
"""

from __future__ import annotations

import importlib
import time
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.errors import PiError

if TYPE_CHECKING:
    from pi_rpc.ai.auth.store import AuthStore


class OAuthRefreshError(PiError):
    """The stored credential is not OAuth, or it could not be refreshed."""


def needs_refresh(entry: dict[str, Any], min_validity_ms: int, now_ms: float | None = None) -> bool:
    """``Date.now() + minValidity >= expires`` (``resolveStoredOAuth``)."""
    now = time.time() * 1000 if now_ms is None else now_ms
    expires = entry.get("expires")
    return not isinstance(expires, (int, float)) or now + min_validity_ms >= expires


def ensure_fresh(store: AuthStore, provider: str, min_validity_ms: int) -> dict[str, Any]:
    """The provider's stored OAuth entry, refreshed when it expires within ``min_validity_ms``."""
    store.reload()
    entry = store.entry(provider)
    if entry is None or entry.get("type") != "oauth":
        raise OAuthRefreshError(f"No OAuth credential stored for {provider}")
    if not needs_refresh(entry, min_validity_ms):
        return entry
    try:
        oauth = importlib.import_module("pi_rpc.ai.auth.oauth")
    except ImportError:
        raise OAuthRefreshError(f"OAuth refresh failed for {provider}") from None
    refreshed: dict[str, Any] = anyio.run(oauth.refresh_stored, store, provider, min_validity_ms)
    return refreshed
