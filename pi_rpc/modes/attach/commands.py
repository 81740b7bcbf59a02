"""The slash commands whose work is the server's, for ``pi attach`` (``RemoteSession.
slash_overrides``; the interactive app looks a command up there first).

- ``/tree``, ``/resume``: the interactive commands themselves, after reading what they show from
  the server (``get_tree``; ``list_sessions`` for both scopes); their actions are commands
  (``navigate_tree``, ``set_label``, ``switch_session``, ``rename_session``, ``delete_session``).
- ``/export [path]``: ``export_html``; the server writes the file, on its machine (a relative
  path is the server's cwd's); the path it reports is shown, marked as the server's when the
  server is not on this machine.
- ``/login``, ``/logout``: ``auth_login`` (its questions come as extension UI dialogs and are
  answered here, an API key in a masked field) and ``auth_logout``; the credential is stored in
  the server's ``auth.json``.
- ``/reload``: ``reload`` (the server's extensions, skills, prompt templates, themes and
  context files, as ``/reload`` in ``pi``), then the terminal's keybindings and theme and the
  server's lists again.
- ``/trust``, ``/import``: the interactive commands when the server runs on this machine (a
  Unix socket or a loopback address: its trust file and session directory are this user's);
  refused with the reason otherwise.
- ``/scoped-models``: the picker of ``pi`` on the server's scope (``get_scoped_models``), the
  choice sent with ``set_scoped_models`` ("Save" keeps it in the server's settings.json).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.interactive.commands import SlashCommand, builtin_commands

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

Record = dict[str, Any]


def _remote(app: PiApp) -> Any:
    return app.session


async def _request(app: PiApp, type_: str, **fields: object) -> Mapping[str, Any]:
    """A command to the attached session (its handle named unless it is the default one)."""
    from pi_rpc.modes.wire.protocol.names import DEFAULT_HANDLE

    remote = _remote(app)
    command: Record = {"type": type_, **fields}
    if remote.handle != DEFAULT_HANDLE:
        command["handle"] = remote.handle
    data: Mapping[str, Any] | None = await remote.connection.request(command)
    return data or {}


async def tree(app: PiApp, args: str) -> None:
    await _remote(app).load_tree()
    await builtin_commands()["tree"].run(app, args)


async def resume(app: PiApp, args: str) -> None:
    await _remote(app).load_sessions(args or None)
    await builtin_commands()["resume"].run(app, args)


async def export(app: PiApp, args: str) -> None:
    """A path typed here is this terminal's when the server is on this machine (a relative one
    is resolved against the terminal's cwd, as ``/export`` in ``pi``); for a server on another
    machine it is the server's, as the server reports it."""
    import os

    remote = _remote(app)
    path = args.strip().strip("'\"") or None
    if path is not None and remote.local:
        path = os.path.join(os.getcwd(), os.path.expanduser(path))
    written = str((await remote.export_html(path)).get("path"))
    notes = []
    if not os.path.isabs(os.path.expanduser(written)):
        notes.append("in the server's working directory")
    if not remote.local:
        notes.append("on the server's machine")
    await app.say(f"Exported to {written}{' (' + ', '.join(notes) + ')' if notes else ''}")


async def reload(app: PiApp, args: str) -> None:
    """As ``/reload`` in ``pi``, the server reloading its own resources (``reload``)."""
    from pi_rpc.modes.attach.connection import CommandFailed

    try:
        data = await _request(app, "reload")
    except CommandFailed as exc:  # streaming, compacting: the server's words, as in pi
        await app.say(str(exc), "warning")
        return
    app.install_keys()  # the terminal's keybindings.json and theme
    await _remote(app).reload_lists()
    app.refresh_footer()
    for warning in data.get("warnings") or []:
        await app.say(str(warning), "warning")
    await app.say("Reloaded keybindings, extensions, skills, prompts, themes, and context files")


def _local_only(name: str, why: str) -> object:
    async def run(app: PiApp, args: str) -> None:
        remote = _remote(app)
        if not remote.local:
            await app.say(f"/{name} is not available over `pi attach` to another machine: {why}", "error")
            return
        await builtin_commands()[name].run(app, args)

    return run


async def scoped_models(app: PiApp, args: str) -> None:
    """The picker of ``pi`` on the server's scope; the choice is the server's."""
    from pi_rpc.modes.attach.connection import CommandFailed
    from pi_rpc.modes.interactive.commands.settings import pick_scope, say_scope

    current = await _request(app, "get_scoped_models")
    result = await pick_scope(app, _remote(app).get_available_models(), set(current.get("models") or []))
    if result is None:
        return
    keys, save = result
    try:
        data = await _request(app, "set_scoped_models", models=keys, save=save)
    except CommandFailed as exc:
        await app.say(str(exc), "error")
        return
    await app.say(say_scope([str(k) for k in data.get("models") or []], save))


class LoginDialogs:
    """Answers ``auth_login``'s extension UI questions in the terminal (``RemoteSession.
    dialogs.login``): a select is a picker, an input a text field (masked when it asks for a
    key, a token or a secret), a notice a notice. A dismissed dialog cancels the login."""

    def __init__(self, app: PiApp) -> None:
        self.app = app

    async def __call__(self, record: Record) -> Record | None:
        from pi_rpc.modes.interactive.commands.auth import SecretScreen

        method = record.get("method")
        title = str(record.get("title") or "")
        if method == "notify":
            self.app.say_soon(str(record.get("message") or ""))
            return None
        if method == "select":
            options = [str(o) for o in record.get("options") or []]
            value = await self.app.pick(title, [(o, o) for o in options])
        elif any(word in title.lower() for word in ("key", "token", "secret", "password")):
            value = await self.app.show_modal(SecretScreen(title, record.get("placeholder")))
        else:
            value = await self.app.ask_text(title, record.get("placeholder"))
        if not isinstance(value, str) or not value.strip():
            return {"cancelled": True}
        return {"value": value.strip()}


async def _auth_status(app: PiApp) -> list[Record]:
    data = await _remote(app).connection.request({"type": "get_auth_status"})
    return list((data or {}).get("providers") or [])


async def login(app: PiApp, args: str) -> None:
    from pi_rpc.modes.interactive.commands.auth import ACCOUNT, API_KEY

    remote = _remote(app)
    providers = {str(p["provider"]): p for p in await _auth_status(app)}
    provider = args.strip() or None
    if provider is not None:
        methods = list((providers.get(provider) or {}).get("loginMethods") or [])
        if not methods:
            await app.say(f'No login for provider "{provider}"', "error")
            return
        method = methods[0]
        if len(methods) > 1:
            method = await app.pick("Login", [(ACCOUNT, "oauth"), (API_KEY, "api_key")])
            if method is None:
                return
    else:
        method = await app.pick("Login", [(ACCOUNT, "oauth"), (API_KEY, "api_key")])
        if method is None:
            return
        choices = [
            (str(p.get("name") or key), key) for key, p in providers.items() if method in (p.get("loginMethods") or [])
        ]
        provider = await app.pick("Select provider", choices)
        if provider is None:
            return
    name = str((providers.get(provider) or {}).get("name") or provider)
    remote.dialogs.login = LoginDialogs(app)
    try:
        await remote.connection.request({"type": "auth_login", "provider": provider, "method": method})
    except Exception as exc:  # noqa: BLE001 - the server's reason ("Login failed for …: …")
        text = str(exc)
        if text.endswith("Login cancelled"):
            await app.say("Login cancelled", "warning")
        else:
            await app.say(text, "error")
        return
    finally:
        remote.dialogs.login = None
    await remote.reload_lists()
    await app.say(f"Logged in to {name}" if method == "oauth" else f"Saved API key for {name}")
    app.refresh_footer()


async def logout(app: PiApp, args: str) -> None:
    remote = _remote(app)
    stored = {str(p["provider"]): p for p in await _auth_status(app) if p.get("source") == "auth.json"}
    if not stored:
        await app.say(
            "No stored credentials to remove. /logout only removes credentials saved by /login; "
            "environment variables and models.json config are unchanged."
        )
        return
    options = [
        (f"{p.get('name') or key} ({'account' if p.get('authType') == 'oauth' else 'API key'})", key)
        for key, p in stored.items()
    ]
    provider = args.strip() if args.strip() in stored else await app.pick("Log out of", options)
    if provider is None:
        return
    data: Mapping[str, object] = await remote.connection.request({"type": "auth_logout", "provider": provider}) or {}
    await remote.reload_lists()
    name = str(stored[provider].get("name") or provider)
    if data.get("authType") == "oauth":
        await app.say(f"Logged out of {name}")
    else:
        await app.say(f"Removed stored API key for {name}. Environment variables and models.json config are unchanged.")
    app.refresh_footer()


@cache
def remote_commands() -> dict[str, SlashCommand]:
    """The variants, under the built-ins' names and descriptions."""
    builtins = builtin_commands()
    variants: dict[str, Any] = {
        "tree": tree,
        "resume": resume,
        "export": export,
        "reload": reload,
        "login": login,
        "logout": logout,
        "scoped-models": scoped_models,
        "trust": _local_only("trust", "the trust file belongs to the server's machine"),
        "import": _local_only("import", "the file would have to be copied to the server's session directory"),
    }
    return {name: SlashCommand(name, builtins[name].description, run) for name, run in variants.items()}
