"""OpenRouter OAuth (``pi-ai/dist/auth/oauth/openrouter.js``): the login mints an API key that
does not expire (``expires`` = ``Number.MAX_SAFE_INTEGER``, ``refresh`` = ``""``); a refresh
returns the credential unchanged and sends nothing.

The sign-in (``PROVIDER.login``):
OpenRouter's sign-in (``pi-ai/dist/auth/oauth/openrouter.js``): PKCE, a callback server on
an ephemeral port with a random path (no ``state``), the code exchanged for a permanent API key
at ``openrouter.ai/api/v1/auth/keys`` before the browser's page is answered; the pasted redirect
URL (or code) as the other way in. Stored ``{type, access: the key, refresh: "", expires:
Number.MAX_SAFE_INTEGER}``."""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import MAX_SAFE_INTEGER
from pi_rpc.ai.auth.oauth.callback_server import CallbackServer, run_with_callback_server, wait_for_callback_or_manual
from pi_rpc.ai.auth.oauth.http import post
from pi_rpc.ai.auth.oauth.pkce import pkce
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    return credential


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


AUTHORIZE_URL = "https://openrouter.ai/auth"
TOKEN_URL = "https://openrouter.ai/api/v1/auth/keys"


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


def _detail(body: dict[str, object]) -> str | None:
    for key in ("error_description", "message", "error"):
        if isinstance(body.get(key), str):
            return str(body[key])
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return None


async def exchange(code: str, verifier: str) -> dict[str, object]:
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


async def login_openrouter(interaction: LoginInteraction) -> dict[str, object]:
    verifier, challenge = pkce()

    async def complete(code: str) -> dict[str, object]:
        return await exchange(code, verifier)

    async def steps(callback: CallbackServer | None) -> dict[str, object]:
        assert callback is not None  # port 0 always binds
        params = {"callback_url": callback.redirect_uri, "code_challenge": challenge, "code_challenge_method": "S256"}
        interaction.notify(
            {"type": "progress", "message": f"Listening for OpenRouter OAuth callback on {callback.redirect_uri}"}
        )
        interaction.notify(
            {
                "type": "auth_url",
                "url": f"{AUTHORIZE_URL}?{urlencode(params)}",
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
            credential: dict[str, object] = value
            return credential
        code = parse_code(value)
        if not code:
            raise LoginError("Missing authorization code")
        interaction.notify({"type": "progress", "message": "Exchanging authorization code for an API key..."})
        return await exchange(code, verifier)

    with anyio.move_on_after(5 * 60):  # LOGIN_TIMEOUT_MS
        path = f"/oauth/callback/{uuid.uuid4()}"
        return await run_with_callback_server("OpenRouter", (0,), path, None, steps, complete=complete)
    raise LoginError("OpenRouter sign-in timed out")


PROVIDER = OAuthProvider(
    id="openrouter",
    name="OpenRouter OAuth",
    is_subscription=False,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_openrouter,
)
