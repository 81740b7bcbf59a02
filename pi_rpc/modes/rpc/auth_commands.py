"""The credential commands beyond upstream (``get_auth_status``, ``auth_login``,
``auth_logout``), a collaborator of ``RuntimeBackend``. Upstream can log in only in its terminal;
here the login flow runs in the server and talks to the client through the extension UI
sub-protocol it already implements: ``notify`` for the sign-in URL, the device code and
progress, ``select`` for the method when the command did not name one, ``input`` for an API
key or a pasted code. ``abort`` cancels a running login. Responses and records never carry a
token; the response says what was stored (type and expiry)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.errors import CommandError
from pi_rpc.modes.rpc.registry import CommandContext

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession


class RpcLoginInteraction:
    """A login's questions as extension UI dialogs. ``method`` answers the method choice."""

    def __init__(self, ui: Any, method: str | None) -> None:
        self.ui = ui
        self.method = method

    async def prompt(self, prompt: Mapping[str, Any]) -> str:
        from pi_rpc.ai.auth.login import CANCELLED, LoginError

        message = str(prompt.get("message", ""))
        if prompt.get("type") == "select":
            options = list(prompt.get("options") or [])
            ids = [str(o["id"]) for o in options]
            if self.method in ids:
                return str(self.method)
            labels = [str(o["label"]) for o in options]
            chosen = await self.ui.select(message, labels)
            if chosen not in labels:
                raise LoginError(CANCELLED)
            return ids[labels.index(chosen)]
        answer = await self.ui.input(message, prompt.get("placeholder"))
        if not isinstance(answer, str):
            raise LoginError(CANCELLED)
        return answer

    def notify(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "auth_url":
            text = f"Open this URL to sign in:\n{event['url']}"
            if event.get("instructions"):
                text += f"\n{event['instructions']}"
            self.ui.notify(text, "info")
        elif kind == "device_code":
            self.ui.notify(f"Open {event['verificationUri']} and enter code: {event['userCode']}", "info")
        elif kind == "info" and event.get("links"):
            lines = [str(event.get("message", ""))]
            for link in event["links"]:
                lines.append(f"{link['label']}: {link['url']}" if link.get("label") else str(link["url"]))
            self.ui.notify("\n".join(lines), "info")
        else:
            self.ui.notify(str(event.get("message", "")), "info")


class AuthCommands:
    """The credential commands of one session: its model registry (the auth store) and the
    extension UI its login dialogs go through (``login_ui``: created on demand by the backend)."""

    def __init__(self, session: AgentSession, login_ui: Callable[[], object]) -> None:
        self._holder = session.holder
        self._login_ui = login_ui
        self._login_scope: anyio.CancelScope | None = None

    @property
    def session(self) -> AgentSession:
        """The holder's current session (a replacement never leaves these commands on an old one)."""
        return self._holder.current

    def cancel_login(self) -> bool:
        """``abort``: cancel the running login, if any."""
        scope = self._login_scope
        if scope is None:
            return False
        scope.cancel()
        return True

    async def cmd_get_auth_status(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        from pi_rpc.ai.auth.login.status import auth_status

        return {"providers": auth_status(self.session.registry, cmd.get("provider"))}

    async def cmd_auth_logout(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        provider = cmd["provider"]
        registry = self.session.registry
        store = registry.auth_store
        store.reload()
        entry = store.data.get(provider)
        if entry is not None:
            await store.delete(provider)
            registry.reload()
        removed = entry.get("type") if isinstance(entry, dict) else None
        return {"provider": provider, "removed": entry is not None, **({"authType": removed} if removed else {})}

    async def cmd_auth_login(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        from pi_rpc.ai.auth.login import CANCELLED, LoginError, describe, login, login_methods

        provider = cmd["provider"]
        method = cmd.get("method")
        methods = login_methods(provider)
        if not methods:
            raise CommandError(f'No login for provider "{provider}"')
        auth_type = "api_key" if method == "api_key" else "oauth" if "oauth" in methods else "api_key"
        if auth_type not in methods:
            raise CommandError(f'Provider "{provider}" has no {auth_type} login')
        if self._login_scope is not None:
            raise CommandError("A login is already running")
        interaction = RpcLoginInteraction(self._login_ui(), None if method in (None, "oauth", "api_key") else method)
        registry = self.session.registry
        stored: dict[str, object] | None = None
        with anyio.CancelScope() as scope:
            self._login_scope = scope
            try:
                stored = await login(registry.auth_store, provider, auth_type, interaction)
            except LoginError as exc:
                raise CommandError(f"Login failed for {provider}: {exc}") from None
            finally:
                self._login_scope = None
        if stored is None:
            raise CommandError(f"Login failed for {provider}: {CANCELLED}")
        registry.reload()
        return {"provider": provider, **describe(stored)}
