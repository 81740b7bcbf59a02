"""``/login [provider]`` and ``/logout``: upstream's menus (an account or an API key, then the
provider) over the login flows of ``pi_rpc.ai.auth.login``. A flow's questions become dialogs
(an API key is typed into a masked field), its sign-in URL and device code become notices;
Escape in a dialog cancels the login. Nothing here shows or logs a credential."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual.widgets import Input

from pi_rpc.modes.interactive.commands import command
from pi_rpc.modes.interactive.dialogs import InputScreen

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

ACCOUNT = "Sign in with an account"
API_KEY = "Sign in with an API key"


class SecretScreen(InputScreen):
    """An input whose characters are masked (API keys, tokens)."""

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.password = True
        field.focus()


class TerminalLoginInteraction:
    """``LoginInteraction`` for the terminal: dialogs for questions, notices for instructions."""

    def __init__(self, app: PiApp) -> None:
        self.app = app

    async def prompt(self, prompt: Mapping[str, Any]) -> str:
        from pi_rpc.ai.auth.login import CANCELLED, LoginError

        message = str(prompt.get("message", ""))
        if prompt.get("type") == "select":
            options = [(str(o["label"]), str(o["id"])) for o in prompt.get("options") or []]
            chosen = await self.app.pick(message, options)
        elif prompt.get("type") == "secret":
            chosen = await self.app.show_modal(SecretScreen(message, prompt.get("placeholder")))
        else:
            chosen = await self.app.ask_text(message, prompt.get("placeholder"))
        if not isinstance(chosen, str) or not chosen.strip():
            raise LoginError(CANCELLED)
        return chosen.strip()

    def notify(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "auth_url":
            text = f"Open this URL to sign in:\n{event['url']}"
            if event.get("instructions"):
                text += f"\n{event['instructions']}"
        elif kind == "device_code":
            text = f"Open {event['verificationUri']} and enter code: {event['userCode']}"
        else:
            text = str(event.get("message", ""))
        self.app.say_soon(text)


def _choices(auth_type: str) -> list[tuple[str, str]]:
    from pi_rpc.ai.auth.login import login_methods
    from pi_rpc.ai.auth.login.providers import login_providers, provider_auth

    out = []
    for provider in login_providers():
        info = provider_auth(provider)
        if info is None or auth_type not in login_methods(provider):
            continue
        label = (info.oauth_name if auth_type == "oauth" else info.name) or info.name
        out.append((label, provider))
    return out


@command("login", "Add provider authentication")
async def login_(app: PiApp, args: str) -> None:
    from pi_rpc.ai.auth.login import CANCELLED, LoginError, login, login_methods
    from pi_rpc.ai.auth.login.providers import display_name

    provider = args.strip() or None
    if provider is not None:
        methods = login_methods(provider)
        if not methods:
            await app.say(f'No login for provider "{provider}"', "error")
            return
        auth_type = methods[0]
        if len(methods) > 1:
            picked = await app.pick("Login", [(ACCOUNT, "oauth"), (API_KEY, "api_key")])
            if picked is None:
                return
            auth_type = picked
    else:
        auth_type = await app.pick("Login", [(ACCOUNT, "oauth"), (API_KEY, "api_key")])
        if auth_type is None:
            return
        provider = await app.pick("Select provider", _choices(auth_type))
        if provider is None:
            return
    registry = app.session.registry
    name = display_name(provider)
    try:
        await login(registry.auth_store, provider, auth_type, TerminalLoginInteraction(app))
    except LoginError as exc:
        if str(exc) == CANCELLED:
            await app.say("Login cancelled", "warning")
        else:
            await app.say(f"Login failed for {name}: {exc}", "error")
        return
    registry.reload()
    await app.say(f"Logged in to {name}" if auth_type == "oauth" else f"Saved API key for {name}")
    app.refresh_footer()


@command("logout", "Remove provider authentication")
async def logout(app: PiApp, args: str) -> None:
    from pi_rpc.ai.auth.login.providers import display_name

    registry = app.session.registry
    store = registry.auth_store
    store.reload()
    stored = {p: e for p, e in store.data.items() if isinstance(e, dict)}
    if not stored:
        await app.say(
            "No stored credentials to remove. /logout only removes credentials saved by /login; "
            "environment variables and models.json config are unchanged."
        )
        return
    options = [
        (f"{display_name(p)} ({'account' if e.get('type') == 'oauth' else 'API key'})", p) for p, e in stored.items()
    ]
    provider = args.strip() if args.strip() in stored else await app.pick("Log out of", options)
    if provider is None:
        return
    kind = stored[provider].get("type")
    await store.delete(provider)
    registry.reload()
    name = display_name(provider)
    if kind == "oauth":
        await app.say(f"Logged out of {name}")
    else:
        await app.say(f"Removed stored API key for {name}. Environment variables and models.json config are unchanged.")
    app.refresh_footer()
