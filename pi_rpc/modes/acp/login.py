"""ACP ``authenticate`` with a provider sign-in (beyond upstream, which has no ACP mode): the
agent advertises one auth method per account sign-in pi_rpc can run (``login:<provider>``,
e.g. ``login:anthropic``) next to ``pi-configuration``, and ``authenticate`` runs the flow of
``pi_rpc.ai.auth.login`` in the agent process.

ACP has no channel to the user outside a session, so the flow talks as a local terminal
program does: the sign-in URL (or the device code's page) is opened in the user's browser
(Python's ``webbrowser``, honouring ``BROWSER``) and written to stderr, which editors keep as
the agent's log, together with the device code. The browser sign-in completes through its
localhost callback; a pasted code is asked through a form elicitation when the client
advertises ``elicitation.form``. Without it an optional question (GitHub Copilot's Enterprise
domain) takes its default and a question only the user can answer fails ``authenticate`` at
once with the question named. The credential is stored in auth.json under upstream's lock and
never leaves the process."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import anyio

from pi_rpc.modes.acp.jsonrpc import JsonRpcPeer, PeerClosed, RpcError

METHOD_PREFIX = "login:"


def login_auth_methods() -> list[dict[str, Any]]:
    """One ``authMethods`` entry per provider with an account sign-in pi_rpc runs."""
    from pi_rpc.ai.auth.login.providers import PROVIDERS
    from pi_rpc.ai.auth.oauth import OAUTH_PROVIDER_IDS

    methods = []
    for provider in sorted(OAUTH_PROVIDER_IDS):
        info = PROVIDERS[provider]
        methods.append(
            {
                "id": f"{METHOD_PREFIX}{provider}",
                "name": f"Sign in: {info.oauth_name}",
                "description": f"Sign in to {info.name} with your account in the browser; "
                "the credential is saved to <agent dir>/auth.json.",
            }
        )
    return methods


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _open(url: str) -> None:
    import threading
    import webbrowser

    threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()


class AcpLoginInteraction:
    """The flow's questions: the method choice takes the browser sign-in (the first option);
    text is asked by form elicitation. Without that capability (or when the client does not
    answer a form), a question is settled at once: an optional one takes its default (blank),
    one the browser's callback also completes is left to the callback, and any other fails the
    sign-in with the question named, since nobody can answer it (issue #31 item 13: it used to
    wait forever)."""

    def __init__(self, peer: JsonRpcPeer | None, elicitation: bool) -> None:
        self.peer = peer
        self.elicitation = elicitation

    async def prompt(self, prompt: Mapping[str, Any]) -> str:
        from pi_rpc.ai.auth.login import CANCELLED, LoginError

        if prompt.get("type") == "select":
            options = list(prompt.get("options") or [])
            if not options:
                raise LoginError(CANCELLED)
            return str(options[0]["id"])
        title = str(prompt.get("message") or "Value")
        if not self.elicitation or self.peer is None:
            return await self._unasked(prompt, title)
        field: dict[str, object] = {"type": "string", "title": title}
        if prompt.get("placeholder"):
            field["description"] = str(prompt["placeholder"])
        schema: dict[str, object] = {"type": "object", "properties": {"value": field}}
        if not prompt.get("optional"):
            schema["required"] = ["value"]
        try:
            answer = await self.peer.request(
                "elicitation/create", {"mode": "form", "message": title, "requestedSchema": schema}
            )
        except (RpcError, PeerClosed):
            return await self._unasked(prompt, title)
        action = answer.get("action") if isinstance(answer, dict) else None
        content = answer.get("content") if isinstance(answer, dict) and action == "accept" else None
        value = content.get("value") if isinstance(content, dict) else None
        if isinstance(value, str):
            return value
        if action == "accept" and prompt.get("optional"):
            return ""  # accepted with the optional field left out: its default
        if prompt.get("alternative"):
            await anyio.sleep_forever()  # declined: the browser callback may still come
        raise LoginError(CANCELLED)

    @staticmethod
    async def _unasked(prompt: Mapping[str, object], title: str) -> str:
        """The answer to a question this client cannot be asked."""
        from pi_rpc.ai.auth.login import LoginError

        if prompt.get("optional"):
            return ""
        if prompt.get("alternative"):
            await anyio.sleep_forever()  # only the browser callback can finish this step
        raise LoginError(
            f'this sign-in needs an answer to "{title}", and the client cannot be asked: '
            "it does not offer form elicitation (clientCapabilities.elicitation.form)"
        )

    def notify(self, event: Mapping[str, object]) -> None:
        kind = event.get("type")
        if kind == "auth_url":
            _say(f"Open this URL to sign in:\n  {event['url']}")
            _open(str(event["url"]))
        elif kind == "device_code":
            _say(f"Open {event['verificationUri']} and enter code: {event['userCode']}")
            _open(str(event["verificationUri"]))
        else:
            _say(str(event.get("message", "")))


async def authenticate_with_login(provider: str, peer: JsonRpcPeer | None, elicitation: bool) -> None:
    """Run ``provider``'s account sign-in and store the credential; ``RpcError`` when it fails."""
    from pi_rpc.ai.auth.login import LoginError, login
    from pi_rpc.ai.auth.store import AuthStore
    from pi_rpc.config import paths
    from pi_rpc.modes.acp.jsonrpc import INTERNAL_ERROR

    store = AuthStore(paths.agent_dir() / "auth.json")
    try:
        await login(store, provider, "oauth", AcpLoginInteraction(peer, elicitation))
    except LoginError as exc:
        raise RpcError(INTERNAL_ERROR, "Internal error", {"details": f"Login failed for {provider}: {exc}"}) from None
