"""OAuth logins that extensions register with a provider (upstream's legacy
``pi.registerProvider(name, {oauth: {name, login, refreshToken, getApiKey}})``, adapted as
upstream's ``provider-composer.js`` ``adaptOAuth`` does).

``from_extension(provider_id, oauth)`` makes an ``OAuthProvider`` of such a block: ``login``
hands the extension's ``login(callbacks)`` upstream's callbacks (``onAuth``, ``onDeviceCode``,
``onPrompt``, ``onProgress``, ``onManualCodeInput``, ``onSelect``, ``signal``) over the
front-end's ``LoginInteraction``; ``refresh`` calls ``refreshToken(credentials, signal)``;
``to_auth`` calls ``getApiKey(credentials)``. Each returned credential gets ``type: "oauth"``
(upstream's spread). The functions may be sync or async (a TypeScript extension's are calls
into Node; its ``login`` takes a login id instead of the callbacks, which the Node side turns
into callbacks that reach ``login_callbacks(id)`` here).

Registered providers are process-wide (``register``/``unregister``), found by
``pi_rpc.ai.auth.oauth.get_oauth_provider`` next to the built-in ones.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Mapping
from typing import Any, cast

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.types import CANCELLED, Credential, LoginInteraction, OAuthAuth, OAuthProvider

_REGISTERED: dict[str, OAuthProvider] = {}
_LOGINS: dict[str, dict[str, object]] = {}
_ids = itertools.count(1)


def register(provider: OAuthProvider) -> None:
    _REGISTERED[provider.id] = provider


def unregister(provider_id: str) -> None:
    _REGISTERED.pop(provider_id, None)


def registered(provider_id: str) -> OAuthProvider | None:
    return _REGISTERED.get(provider_id)


def registered_ids() -> list[str]:
    return list(_REGISTERED)


def login_callbacks(login_id: str) -> dict[str, Any] | None:
    """The callbacks of a running login a TypeScript extension's ``login`` reaches by id."""
    return _LOGINS.get(login_id)


async def _settle(value: object) -> object:
    return await value if inspect.isawaitable(value) else value


def _callbacks(interaction: LoginInteraction) -> dict[str, object]:
    def notify(event: dict[str, object]) -> None:
        interaction.notify(event)

    async def prompt(question: dict[str, object]) -> str:
        return await interaction.prompt(question)

    def info(kind: str) -> object:
        return lambda data=None: notify({"type": kind, **(dict(data) if isinstance(data, Mapping) else {})})

    return {
        "onAuth": info("auth_url"),
        "onDeviceCode": info("device_code"),
        "onPrompt": lambda p=None: prompt({"type": "text", **(dict(p) if isinstance(p, Mapping) else {})}),
        "onProgress": lambda message="": notify({"type": "progress", "message": str(message)}),
        "onManualCodeInput": lambda: prompt({"type": "manual_code", "message": "Paste the authorization code"}),
        "onSelect": lambda p=None: prompt({"type": "select", **(dict(p) if isinstance(p, Mapping) else {})}),
        "signal": None,
    }


def _as_credential(value: object, what: str) -> Credential:
    if not isinstance(value, Mapping):
        raise LoginError(f"{what} returned no credentials")
    return {**dict(value), "type": "oauth"}


def from_extension(provider_id: str, oauth: Mapping[str, Any]) -> OAuthProvider:
    """The ``OAuthProvider`` of an extension's ``oauth`` block (module docstring)."""
    name = str(oauth.get("name") or provider_id)
    login_fn, refresh_fn, key_fn = oauth.get("login"), oauth.get("refreshToken"), oauth.get("getApiKey")
    for key, fn in (("login", login_fn), ("refreshToken", refresh_fn), ("getApiKey", key_fn)):
        if not callable(fn):
            raise ValueError(f'Provider {provider_id}: "oauth.{key}" must be a function.')
    by_id = bool(oauth.get("loginById"))

    async def login(interaction: LoginInteraction) -> Credential:
        callbacks = _callbacks(interaction)
        login_id = f"login{next(_ids)}"
        _LOGINS[login_id] = callbacks
        try:
            result = await _settle(login_fn(login_id) if by_id else login_fn(callbacks))  # type: ignore[misc]
        except LoginError:
            raise
        except Exception as exc:  # noqa: BLE001 - the extension's failure is the login's
            message = str(exc)
            raise LoginError(CANCELLED if message == CANCELLED else message) from None
        finally:
            _LOGINS.pop(login_id, None)
        return _as_credential(result, "login")

    async def refresh(credential: Credential, _timeout_s: float) -> Credential:
        result = await _settle(refresh_fn(dict(credential), None))  # type: ignore[misc]
        if not isinstance(result, Mapping):
            raise RuntimeError("refreshToken returned no credentials")
        return {**dict(result), "type": "oauth"}

    def to_auth(credential: Credential) -> OAuthAuth:
        value = key_fn(dict(credential))  # type: ignore[misc]
        if inspect.isawaitable(value):
            # A TypeScript getApiKey answers later: the caller awaits it (``to_auth_async``).
            async def later() -> OAuthAuth:
                return OAuthAuth(api_key=str(await value or ""))

            return cast(OAuthAuth, later())
        return OAuthAuth(api_key=str(value or ""))

    return OAuthProvider(
        id=provider_id,
        name=name,
        is_subscription=bool(oauth.get("isSubscription")),
        refresh=refresh,
        to_auth=to_auth,
        login=login,
    )
