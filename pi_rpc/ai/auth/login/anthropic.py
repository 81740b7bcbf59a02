"""Anthropic's account sign-in (Claude Pro/Max; ``pi-ai/dist/auth/oauth/anthropic.js``): PKCE
with ``state`` = the verifier. ``browser``: a callback server on localhost:53692 (any free port
when taken), the URL to open, and the pasted redirect URL as the other way in; ``copy_code``:
Anthropic's page shows ``code#state`` to paste. The code is exchanged at
``platform.claude.com/v1/oauth/token``; stored ``{type, refresh, access, expires: now +
expires_in·1000 − 5 min}``."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio

from pi_rpc.ai.auth.login import CANCELLED, LoginError, LoginInteraction
from pi_rpc.ai.auth.login.callback_server import CallbackServer, wait_for_callback_or_manual
from pi_rpc.ai.auth.login.http import post
from pi_rpc.ai.auth.login.redact import redact

CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
AUTHORIZE_URL = "https://claude.ai/oauth/authorize"
TOKEN_URL = "https://platform.claude.com/v1/oauth/token"
CALLBACK_PORT = 53692
CALLBACK_PATH = "/callback"
REDIRECT_URI = f"http://localhost:{CALLBACK_PORT}{CALLBACK_PATH}"
COPY_CODE_REDIRECT_URI = "https://platform.claude.com/oauth/code/callback"
SCOPES = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
METHODS = [
    {"id": "browser", "label": "Browser login (default)"},
    {"id": "copy_code", "label": "Copy code login (headless)"},
]


def pkce() -> tuple[str, str]:
    """(verifier, S256 challenge): 32 random bytes, base64url without padding."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def parse_authorization_input(value: str) -> tuple[str | None, str | None]:
    """(code, state) from a pasted redirect URL, ``code#state``, a query string or a bare code."""
    value = value.strip()
    if not value:
        return None, None
    parts = urlsplit(value)
    if parts.scheme and parts.netloc:
        return _code_and_state(parts.query)
    if "#" in value:
        code, state = value.split("#", 1)
        return code, state
    if "code=" in value:
        return _code_and_state(value)
    return value, None


def _code_and_state(query_text: str) -> tuple[str | None, str | None]:
    query = parse_qs(query_text)
    codes, states = query.get("code"), query.get("state")
    return (codes[0] if codes else None), (states[0] if states else None)


def _authorize_url(challenge: str, verifier: str, redirect_uri: str) -> str:
    params = {
        "code": "true",
        "client_id": CLIENT_ID,
        "response_type": "code",
        "redirect_uri": redirect_uri,
        "scope": SCOPES,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": verifier,
    }
    return f"{AUTHORIZE_URL}?{urlencode(params)}"


async def exchange_code(code: str, state: str, verifier: str, redirect_uri: str) -> dict[str, Any]:
    body = {
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "state": state,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
    }
    answer = await post(TOKEN_URL, json=body)
    if not answer.ok:
        detail = f"HTTP request failed. status={answer.status}; url={TOKEN_URL}; body={answer.text}"
        raise LoginError(
            redact(
                f"Token exchange request failed. url={TOKEN_URL}; redirect_uri={redirect_uri}; "
                f"response_type=authorization_code; details=Error: {detail}",
                (code, verifier),
            )
        )
    data = answer.body
    access, refresh, expires_in = data.get("access_token"), data.get("refresh_token"), data.get("expires_in")
    if not answer.json_ok or not isinstance(access, str) or not isinstance(refresh, str):
        raise LoginError(f"Token exchange returned invalid JSON. url={TOKEN_URL}")
    seconds = float(expires_in) if isinstance(expires_in, (int, float)) else 0.0
    return {
        "type": "oauth",
        "refresh": refresh,
        "access": access,
        "expires": int(time.time() * 1000 + seconds * 1000 - 300_000),
    }


async def login_anthropic(interaction: LoginInteraction) -> dict[str, Any]:
    method = await interaction.prompt(
        {"type": "select", "message": "Select Anthropic login method:", "options": METHODS}
    )
    if method == "copy_code":
        return await _copy_code(interaction)
    if method != "browser":
        raise LoginError(f"Unknown Anthropic login method: {method}")
    return await _browser(interaction)


async def _browser(interaction: LoginInteraction) -> dict[str, Any]:
    verifier, challenge = pkce()
    outcome: list[dict[str, Any]] = []
    failure: list[LoginError] = []
    async with anyio.create_task_group() as tg:
        callback: CallbackServer | None = None
        for port in (CALLBACK_PORT, 0):
            try:
                callback = await CallbackServer.start(tg, "Anthropic", port, CALLBACK_PATH, verifier)
                break
            except OSError:
                continue
        try:
            outcome.append(await _browser_steps(interaction, callback, verifier, challenge))
        except LoginError as exc:
            # Kept out of the task group: its exception group would hide the message.
            failure.append(exc)
        finally:
            if callback is not None:
                await callback.aclose()
            tg.cancel_scope.cancel()
    if failure:
        raise failure[0]
    if not outcome:
        raise LoginError(CANCELLED)
    return outcome[0]


async def _browser_steps(
    interaction: LoginInteraction, callback: CallbackServer | None, verifier: str, challenge: str
) -> dict[str, Any]:
    redirect_uri = callback.redirect_uri if callback is not None else REDIRECT_URI
    interaction.notify(
        {
            "type": "auth_url",
            "url": _authorize_url(challenge, verifier, redirect_uri),
            "instructions": "Complete login in your browser. If the browser is on another machine, "
            "paste the final redirect URL here.",
        }
    )
    kind, value = await wait_for_callback_or_manual(
        interaction,
        callback,
        "Complete login in your browser, or paste the authorization code / redirect URL here:",
        redirect_uri,
    )
    state = verifier
    if kind == "callback":
        code: str | None = value
    else:
        code, pasted_state = parse_authorization_input(value)
        if pasted_state and pasted_state != verifier:
            raise LoginError("OAuth state mismatch")
        state = pasted_state or verifier
    if not code:
        raise LoginError("Missing authorization code")
    interaction.notify({"type": "progress", "message": "Exchanging authorization code for tokens..."})
    return await exchange_code(code, state, verifier, redirect_uri)


async def _copy_code(interaction: LoginInteraction) -> dict[str, Any]:
    verifier, challenge = pkce()
    interaction.notify(
        {
            "type": "auth_url",
            "url": _authorize_url(challenge, verifier, COPY_CODE_REDIRECT_URI),
            "instructions": "Complete login in your browser, then copy the code Anthropic shows and paste it here.",
        }
    )
    text = await interaction.prompt(
        {
            "type": "manual_code",
            "message": "Paste the code Anthropic shows after you sign in:",
            "placeholder": "code#state",
        }
    )
    code, state = parse_authorization_input(text)
    if state and state != verifier:
        raise LoginError("OAuth state mismatch")
    if not code:
        raise LoginError("Missing authorization code")
    interaction.notify({"type": "progress", "message": "Exchanging authorization code for tokens..."})
    return await exchange_code(code, state or verifier, verifier, COPY_CODE_REDIRECT_URI)
