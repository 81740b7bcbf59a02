"""Logging in to a provider, as upstream pi 1.6's login flows do (``pi-ai/dist/auth/oauth/*.js``,
``pi-ai/dist/auth/helpers.js`` ``envApiKeyAuth``), with the front-end left open: ``pi auth
login`` talks to a terminal, RPC's ``auth_login`` and ACP's ``authenticate`` to the client.

A flow gets a ``LoginInteraction``: ``prompt`` asks one question (``select`` a method, a
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
from typing import TYPE_CHECKING, Any, Protocol

from pi_rpc.errors import PiError

if TYPE_CHECKING:
    from pi_rpc.ai.auth.store import AuthStore

CANCELLED = "Login cancelled"


class LoginError(PiError):
    """The login failed (its message is safe to show: tokens are redacted)."""


class LoginInteraction(Protocol):
    async def prompt(self, prompt: Mapping[str, Any]) -> str:
        """Ask the user. ``prompt``: ``{type: "select", message, options: [{id, label}]}``,
        ``{type: "secret" | "text" | "manual_code", message, placeholder?, optional?,
        alternative?}``; returns the chosen option id or the text. Raises
        ``LoginError(CANCELLED)`` when dismissed. ``optional: true``: a blank answer is a valid
        one (the default), so a front-end that cannot ask answers ``""``; ``alternative:
        true``: another way completes the step too (a pasted code next to the browser's
        callback), so a front-end that cannot ask may simply wait."""
        ...

    def notify(self, event: Mapping[str, Any]) -> None:
        """Show ``{type: "auth_url", url, instructions?}``, ``{type: "device_code", userCode,
        verificationUri}`` or ``{type: "progress" | "info", message}``."""
        ...


OAUTH_FLOWS = frozenset(
    {"anthropic", "openai-codex", "openai", "github-copilot", "xai", "kimi-coding", "meta", "openrouter", "radius"}
)


def login_methods(provider: str) -> list[str]:
    """The login kinds pi_rpc can run for ``provider``: ``oauth`` and/or ``api_key``."""
    from pi_rpc.ai.auth.login.providers import provider_auth

    info = provider_auth(provider)
    methods: list[str] = []
    if info is not None and info.oauth_name and provider in OAUTH_FLOWS:
        methods.append("oauth")
    if info is not None and info.api_key_name:
        methods.append("api_key")
    return methods


async def obtain_credential(provider: str, auth_type: str, interaction: LoginInteraction) -> dict[str, Any]:
    """Run the flow and return the credential to store (not yet stored)."""
    from pi_rpc.ai.auth.login.api_key import MULTI_VALUE_PROVIDERS, login_multi_value_api_key
    from pi_rpc.ai.auth.login.providers import provider_auth

    info = provider_auth(provider)
    if auth_type == "api_key":
        if info is None or not info.api_key_name:
            raise LoginError(f"pi_rpc has no API key login for {provider}")
        if provider in MULTI_VALUE_PROVIDERS:
            return await login_multi_value_api_key(provider, interaction)
        key = await interaction.prompt({"type": "secret", "message": f"Enter {info.api_key_name}"})
        return {"type": "api_key", "key": key}
    if provider == "anthropic":
        from pi_rpc.ai.auth.login.anthropic import login_anthropic

        return await login_anthropic(interaction)
    if provider == "xai":
        from pi_rpc.ai.auth.login.xai import login_xai

        return await login_xai(interaction)
    if provider == "openai-codex":
        from pi_rpc.ai.auth.login.openai_codex import login_openai_codex

        return await login_openai_codex(interaction)
    if provider == "github-copilot":
        from pi_rpc.ai.auth.login.github_copilot import login_github_copilot

        return await login_github_copilot(interaction)
    if provider == "openrouter":
        from pi_rpc.ai.auth.login.openrouter import login_openrouter

        return await login_openrouter(interaction)
    if provider == "meta":
        from pi_rpc.ai.auth.login.meta import login_meta

        return await login_meta(interaction)
    if provider == "kimi-coding":
        from pi_rpc.ai.auth.login.kimi_coding import login_kimi_coding

        return await login_kimi_coding(interaction)
    if provider == "openai":
        from pi_rpc.ai.auth.login.openai_chatgpt import login_openai_chatgpt

        return await login_openai_chatgpt(interaction)
    if provider == "radius":
        from pi_rpc.ai.auth.login.radius import login_radius

        return await login_radius(interaction)
    raise LoginError(f"pi_rpc cannot sign in to {provider} with an account yet")


async def login(store: AuthStore, provider: str, auth_type: str, interaction: LoginInteraction) -> dict[str, Any]:
    """Log in and store the credential under the lock; returns what was stored."""
    credential = await obtain_credential(provider, auth_type, interaction)
    stored = await store.modify(provider, lambda _current: credential)
    return stored or credential


def describe(credential: Mapping[str, Any]) -> dict[str, Any]:
    """What a response may say about a stored credential: its type and expiry, no secret."""
    out: dict[str, Any] = {"authType": credential.get("type")}
    expires = credential.get("expires")
    if credential.get("type") == "oauth" and isinstance(expires, (int, float)):
        out["expiresAt"] = expires
    return out
