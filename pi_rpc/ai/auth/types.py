"""The shapes every part of ``pi_rpc.ai.auth`` shares, as upstream's ``auth/types.ts``: a stored
credential, what it gives a request (``OAuthAuth``), one OAuth provider (``OAuthProvider``: its
``login``, ``refresh`` and ``to_auth``), and the front-end a login talks to
(``LoginInteraction``). This module imports nothing of ``pi_rpc``, so that the provider modules,
the login dispatcher and the refresh can all depend on it without depending on each other."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

Credential = dict[str, Any]

#: The message of a login the user dismissed (``LoginError(CANCELLED)``).
CANCELLED = "Login cancelled"


class LoginInteraction(Protocol):
    async def prompt(self, prompt: Mapping[str, object]) -> str:
        """Ask the user. ``prompt``: ``{type: "select", message, options: [{id, label}]}``,
        ``{type: "secret" | "text" | "manual_code", message, placeholder?, optional?,
        alternative?}``; returns the chosen option id or the text. Raises
        ``LoginError(CANCELLED)`` when dismissed. ``optional: true``: a blank answer is a valid
        one (the default), so a front-end that cannot ask answers ``""``; ``alternative:
        true``: another way completes the step too (a pasted code next to the browser's
        callback), so a front-end that cannot ask may simply wait."""
        ...

    def notify(self, event: Mapping[str, object]) -> None:
        """Show ``{type: "auth_url", url, instructions?}``, ``{type: "device_code", userCode,
        verificationUri}`` or ``{type: "progress" | "info", message}``."""
        ...


@dataclass(frozen=True)
class OAuthAuth:
    """What a stored OAuth credential contributes to an API request (upstream's ``toAuth``):
    the key, a base URL replacing the model's (GitHub Copilot), extra headers (Kimi)."""

    api_key: str
    base_url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


LoginFn = Callable[[LoginInteraction], Awaitable[Credential]]
RefreshFn = Callable[[Credential, float], Awaitable[Credential]]


@dataclass(frozen=True)
class OAuthProvider:
    """One upstream OAuth provider (``pi-ai/dist/auth/oauth/<id>.js``), defined by its module
    ``pi_rpc.ai.auth.oauth.<id>`` as ``PROVIDER``.

    ``login(interaction)`` runs the account sign-in and returns the credential to store (not yet
    stored); ``refresh(credential, timeout_s)`` returns the credential to store, with upstream's
    fields in upstream's key order (it raises with upstream's error text); ``to_auth(credential)``
    is what an API request carries."""

    id: str
    name: str
    is_subscription: bool
    refresh: RefreshFn
    to_auth: Callable[[Credential], OAuthAuth]
    login: LoginFn
