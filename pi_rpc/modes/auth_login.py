"""``pi auth login <provider> [--api-key] [--no-browser]`` in a terminal (upstream's
``coding-agent/dist/cli/auth-login.js`` ``runAuthLogin``): argument checks and texts, the
account sign-in unless ``--api-key`` (providers without one use their API key login), the method
choice (the browser sign-in first; ``--no-browser`` takes the other method), the sign-in URL
opened with the system browser (Python's ``webbrowser``, which honours ``BROWSER``), the device
code shown, and the credential saved to ``<agentDir>/auth.json`` under upstream's lock.

Needs an interactive terminal (stdin and stdout), as upstream. Ctrl+C cancels (``Login
cancelled.``). The API key is read without echo. Nothing prints a credential.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

import anyio

from pi_rpc.ai.auth.login import CANCELLED, LoginError, login
from pi_rpc.ai.auth.login.providers import PROVIDERS, display_name, login_providers

USAGE = "pi auth login <provider> [--api-key] [--no-browser]"


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def parse_login_args(args: list[str]) -> tuple[str | None, bool, bool, str | None]:
    """(provider, api_key, browser, error) as ``parseLoginRequest``."""
    provider: str | None = None
    api_key, browser = False, True
    for arg in args:
        if arg == "--api-key":
            api_key = True
        elif arg == "--no-browser":
            browser = False
        elif arg.startswith("-") or provider:
            return None, False, True, f"Usage: {USAGE}"
        else:
            provider = arg
    if not provider:
        return None, False, True, f"Usage: {USAGE}"
    if api_key and not browser:
        return None, False, True, "--no-browser only applies to account sign-in; omit it with --api-key."
    return provider, api_key, browser, None


def select_auth_type(provider: str, api_key: bool) -> tuple[str | None, str | None]:
    """(``oauth`` | ``api_key``, None) or (None, why not) as ``selectAuthType``."""
    info = PROVIDERS[provider]
    if not api_key and info.oauth_name:
        return "oauth", None
    if info.api_key_name:
        return "api_key", None
    if api_key and info.oauth_name:
        return None, f"{info.name} has no API key login. Omit --api-key to sign in."
    return None, f"{info.name} is configured outside pi (ambient credentials)."


class TerminalInteraction:
    """The terminal side of a login: prompts on stdin, messages on stdout."""

    def __init__(self, provider: str, auth_type: str, browser: bool) -> None:
        self.provider = provider
        self.browser = browser
        # Account logins take the browser sign-in first, as /login; API key setup asks.
        self.method_choice = "ask" if auth_type == "api_key" else "browser" if browser else "other"
        self.skipped: list[str] = []

    async def prompt(self, prompt: Mapping[str, object]) -> str:
        if prompt.get("type") == "select":
            return await self._select(prompt)
        placeholder = f" ({prompt['placeholder']})" if prompt.get("placeholder") else ""
        message = f"{prompt.get('message', '')}{placeholder}: "
        return await self._ask(message, secret=prompt.get("type") == "secret")

    async def _select(self, prompt: Mapping[str, Any]) -> str:
        options = list(prompt.get("options") or [])
        first, others = (options[0], options[1:]) if options else (None, [])
        if self.method_choice == "ask" or first is None:
            return await self._choose(str(prompt.get("message", "")), options)
        if self.method_choice == "browser":
            self.skipped = [str(o["label"]) for o in others]
            return str(first["id"])
        if not others:
            return str(first["id"])  # the only method still gets used, without the browser
        if len(others) > 1:
            return await self._choose(str(prompt.get("message", "")), others)
        _out(f"{prompt.get('message', '')} {others[0]['label']}")
        return str(others[0]["id"])

    async def _choose(self, message: str, options: list[Mapping[str, object]]) -> str:
        _out(message)
        for index, option in enumerate(options, 1):
            description = f" - {option['description']}" if option.get("description") else ""
            _out(f"  {index}. {option['label']}{description}")
        while True:
            answer = (await self._ask(f"Select 1-{len(options)}: ")).strip()
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return str(options[int(answer) - 1]["id"])
            _out(f"Enter a number from 1 to {len(options)}.")

    async def _ask(self, message: str, *, secret: bool = False) -> str:
        def read() -> str:
            if secret:
                import getpass

                return getpass.getpass(message)
            sys.stdout.write(message)
            sys.stdout.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")

        # A daemon thread: when the browser callback wins, the read it abandons must not keep
        # the process from exiting (a worker thread of anyio's would be joined at exit).
        box: list[str | BaseException] = []
        done = threading.Event()

        def run() -> None:
            try:
                box.append(read())
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting task
                box.append(exc)
            done.set()

        threading.Thread(target=run, daemon=True).start()
        while not done.is_set():
            await anyio.sleep(0.05)
        result = box[0]
        if isinstance(result, EOFError):
            raise LoginError(CANCELLED)
        if isinstance(result, BaseException):
            raise result
        return result

    def notify(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "auth_url":
            _out(f"Open this URL to sign in:\n  {event['url']}")
            if event.get("instructions"):
                _out(str(event["instructions"]))
            if self.browser:
                _open(str(event["url"]))
            rerun = f'"pi auth login {self.provider} --no-browser"'
            if len(self.skipped) == 1:
                _out(f'To use "{self.skipped[0]}" instead, run {rerun}')
            elif self.skipped:
                labels = ", ".join(f'"{label}"' for label in self.skipped)
                _out(f"Other sign-in methods: {labels}. Run {rerun} to choose one.")
        elif kind == "device_code":
            _out(f"Open {event['verificationUri']} and enter code: {event['userCode']}")
            if self.browser:
                _open(str(event["verificationUri"]))
            _out("Waiting for authentication...")
        elif kind == "info":
            _out(str(event.get("message", "")))
            for link in event.get("links") or []:
                label = f"{link['label']}: " if link.get("label") else ""
                _out(f"  {label}{link['url']}")
        else:
            _out(str(event.get("message", "")))


def _open(url: str) -> None:
    """Open ``url`` in the user's browser (``BROWSER`` or the platform default), in the
    background; a failure to open is not an error (the URL is printed)."""
    import webbrowser

    threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()


def run_auth_login(args: list[str]) -> int:
    provider_ref, api_key, browser, error = parse_login_args(args)
    if error is not None or provider_ref is None:
        _err(error or f"Usage: {USAGE}")
        return 1
    provider = next((p for p in PROVIDERS if p == provider_ref), None) or next(
        (p for p in PROVIDERS if p.lower() == provider_ref.lower()), None
    )
    if provider is None:
        _err(f'Unknown provider "{provider_ref}".')
        _err(f"Providers: {', '.join(login_providers())}")
        return 1
    if not (_isatty(0) and _isatty(1)):
        _err(f'"{USAGE}" requires an interactive terminal')
        return 1
    auth_type, why = select_auth_type(provider, api_key)
    if auth_type is None:
        _err(why or "")
        return 1
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.config.paths import agent_dir

    registry = ModelRegistry(agent_dir())
    interaction = TerminalInteraction(provider, auth_type, browser)
    try:
        anyio.run(login, registry.auth_store, provider, auth_type, interaction)
    except KeyboardInterrupt:
        _err("Login cancelled.")
        return 1
    except LoginError as exc:
        _err("Login cancelled." if str(exc) == CANCELLED else f"Failed to log in to {display_name(provider)}: {exc}")
        return 1
    what = (
        f"Logged in to {display_name(provider)}"
        if auth_type == "oauth"
        else f"Saved API key for {display_name(provider)}"
    )
    _out(f"{what}. Credentials saved to {registry.auth_json_path}")
    if provider == "radius":
        from pi_rpc.mcp.radius import configure_radius_mcp_server

        message, failure = configure_radius_mcp_server(provider, display_name(provider), agent_dir(), os.getcwd())
        if message:
            _out(message)
        if failure:
            _err(failure)
    return 0
