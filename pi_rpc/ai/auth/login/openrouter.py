"""OpenRouter's sign-in (``pi-ai/dist/auth/oauth/openrouter.js``): PKCE, a callback server on
an ephemeral port with a random path (no ``state``), the code exchanged for a permanent API key
at ``openrouter.ai/api/v1/auth/keys`` before the browser's page is answered; the pasted redirect
URL (or code) as the other way in. Stored ``{type, access: the key, refresh: "", expires:
Number.MAX_SAFE_INTEGER}``."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio

from pi_rpc.ai.auth.login import CANCELLED, LoginError, LoginInteraction
from pi_rpc.ai.auth.login.anthropic import pkce
from pi_rpc.ai.auth.login.callback_server import CallbackServer, wait_for_callback_or_manual
from pi_rpc.ai.auth.login.http import post

AUTHORIZE_URL = "https://openrouter.ai/auth"
TOKEN_URL = "https://openrouter.ai/api/v1/auth/keys"
MAX_SAFE_INTEGER = 2**53 - 1


def parse_code(text: str) -> str | None:
    value = text.strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme and parts.netloc:
        codes = parse_qs(parts.query).get("code")
        return codes[0] if codes else None
    if "code=" in value:
        codes = parse_qs(value).get("code")
        return codes[0] if codes else None
    return value


def _detail(body: dict[str, Any]) -> str | None:
    for key in ("error_description", "message", "error"):
        if isinstance(body.get(key), str):
            return str(body[key])
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return None


async def exchange(code: str, verifier: str) -> dict[str, Any]:
    answer = await post(TOKEN_URL, json={"code": code, "code_verifier": verifier, "code_challenge_method": "S256"})
    if answer.ok and not answer.json_ok:
        raise LoginError("OpenRouter OAuth returned invalid JSON")
    if not answer.ok:
        detail = _detail(answer.body)
        raise LoginError(
            f"OpenRouter OAuth key exchange failed (HTTP {answer.status})" + (f": {detail}" if detail else "")
        )
    key = answer.body.get("key")
    if not isinstance(key, str) or not key:
        raise LoginError('OpenRouter OAuth response carries no "key"')
    return {"type": "oauth", "access": key, "refresh": "", "expires": MAX_SAFE_INTEGER}


async def login_openrouter(interaction: LoginInteraction) -> dict[str, Any]:
    verifier, challenge = pkce()
    outcome: list[dict[str, Any]] = []
    failure: list[LoginError] = []
    with anyio.move_on_after(5 * 60) as deadline:  # LOGIN_TIMEOUT_MS
        async with anyio.create_task_group() as tg:

            async def complete(code: str) -> dict[str, Any]:
                return await exchange(code, verifier)

            callback = await CallbackServer.start(
                tg, "OpenRouter", 0, f"/oauth/callback/{uuid.uuid4()}", None, complete
            )
            try:
                url = f"{AUTHORIZE_URL}?{urlencode({'callback_url': callback.redirect_uri, 'code_challenge': challenge, 'code_challenge_method': 'S256'})}"
                interaction.notify(
                    {
                        "type": "progress",
                        "message": f"Listening for OpenRouter OAuth callback on {callback.redirect_uri}",
                    }
                )
                interaction.notify(
                    {
                        "type": "auth_url",
                        "url": url,
                        "instructions": "Complete sign-in in your browser. If the browser is on another machine, "
                        "paste the final redirect URL here.",
                    }
                )
                kind, value = await wait_for_callback_or_manual(
                    interaction,
                    callback,
                    "Complete sign-in in your browser, or paste the authorization code / redirect URL here:",
                    callback.redirect_uri,
                )
                if kind == "callback":
                    outcome.append(value)
                else:
                    code = parse_code(value)
                    if not code:
                        raise LoginError("Missing authorization code")
                    interaction.notify(
                        {"type": "progress", "message": "Exchanging authorization code for an API key..."}
                    )
                    outcome.append(await exchange(code, verifier))
            except LoginError as exc:
                failure.append(exc)  # kept out of the task group's exception group
            finally:
                await callback.aclose()
                tg.cancel_scope.cancel()
    if deadline.cancelled_caught and not outcome and not failure:
        raise LoginError("OpenRouter sign-in timed out")
    if failure:
        raise failure[0]
    if not outcome:
        raise LoginError(CANCELLED)
    return outcome[0]
