"""Every known provider's credential state without a secret (RPC ``get_auth_status``, ACP's
``authMethods``): ``authType`` (``oauth`` | ``api_key`` | null), ``status`` (``ready``,
``expiring`` -- an OAuth token inside the 5-minute refresh window, ``expired``, ``missing``,
``error`` -- a stored entry upstream rejects or cannot use), ``expiresAt`` (epoch ms, OAuth) and
``source`` (``runtime`` | ``auth.json`` | ``models.json`` | ``environment``). ``!command`` keys
are not run: a stored or configured one counts as present (as ``has_auth``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pi_rpc.ai.auth.login import login_methods
from pi_rpc.ai.auth.login.providers import PROVIDERS, display_name
from pi_rpc.ai.auth.store import credential_valid

if TYPE_CHECKING:
    from pi_rpc.ai.models.registry import ModelRegistry

REFRESH_WINDOW_MS = 5 * 60_000


def known_providers(registry: ModelRegistry) -> list[str]:
    """Upstream's built-in providers (sorted), then the ones models.json or extensions add."""
    builtin = sorted(PROVIDERS)
    return builtin + [p for p in registry.providers() if p not in PROVIDERS]


def provider_status(registry: ModelRegistry, provider: str, now_ms: float | None = None) -> dict[str, object]:
    from pi_rpc.ai.models.registry import ENV_API_KEYS, OAUTH_PROVIDERS

    now = time.time() * 1000 if now_ms is None else now_ms
    out: dict[str, object] = {"provider": provider, "name": display_name(provider)}
    entry = registry.auth_store.data.get(provider)
    config = registry._config.get(provider) or {}  # noqa: SLF001 - the merged models.json config
    if provider in registry._runtime_keys:  # noqa: SLF001 - the --api-key override
        out.update(authType="api_key", status="ready", source="runtime")
    elif entry is not None:
        out["source"] = "auth.json"
        kind = entry.get("type") if isinstance(entry, dict) else None
        out["authType"] = kind if kind in ("oauth", "api_key") else None
        if not credential_valid(entry):
            out["status"] = "error"
        elif kind == "oauth":
            expires = entry["expires"]
            out["expiresAt"] = expires
            if provider not in OAUTH_PROVIDERS and not config.get("oauth"):
                out["status"] = "error"  # a provider without an OAuth login cannot use it
            elif expires <= now:
                out["status"] = "expired"
            elif expires <= now + REFRESH_WINDOW_MS:
                out["status"] = "expiring"
            else:
                out["status"] = "ready"
        else:
            out["status"] = "ready" if registry.has_auth(provider) else "missing"
    elif registry.has_auth(provider):
        configured = isinstance(config.get("apiKey"), str) and config.get("apiKey")
        out.update(authType="api_key", status="ready", source="models.json" if configured else "environment")
        if not configured and not ENV_API_KEYS.get(provider):
            out["source"] = "ambient"
    else:
        out.update(authType=None, status="missing")
    out["loginMethods"] = login_methods(provider)
    order = ("provider", "name", "authType", "status", "expiresAt", "source", "loginMethods")
    return {key: out[key] for key in order if key in out}


def auth_status(registry: ModelRegistry, provider: str | None = None) -> list[dict[str, object]]:
    registry.auth_store.reload()
    registry.reload()
    now = time.time() * 1000
    providers = [provider] if provider is not None else known_providers(registry)
    return [provider_status(registry, p, now) for p in providers]
