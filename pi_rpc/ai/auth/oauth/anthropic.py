"""Anthropic (Claude Pro/Max) OAuth: the refresh request and stored fields of upstream's
``pi-ai/dist/auth/oauth/anthropic.js`` (``refreshAnthropicToken``).

``POST https://platform.claude.com/v1/oauth/token`` with JSON
``{"grant_type":"refresh_token","client_id":…,"refresh_token":…}``; the credential stored is
``{type, refresh, access, expires}`` (other fields dropped, as upstream) with ``expires`` =
now + ``expires_in`` s − 5 min. Error texts are upstream's up to its ``; stack=`` part (a Node
stack trace, not reproduced).

The sign-in (``PROVIDER.login``):
Anthropic's account sign-in (Claude Pro/Max; ``pi-ai/dist/auth/oauth/anthropic.js``): PKCE
with ``state`` = the verifier. ``browser``: a callback server on localhost:53692 (any free port
when taken), the URL to open, and the pasted redirect URL as the other way in; ``copy_code``:
Anthropic's page shows ``code#state`` to paste. The code is exchanged at
``platform.claude.com/v1/oauth/token``; stored ``{type, refresh, access, expires: now +
expires_in·1000 − 5 min}``."""

from __future__ import annotations

import time
from urllib.parse import urlencode

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import FetchError, http_request, js_error_name, js_error_text, json_body, now_ms
from pi_rpc.ai.auth.oauth.callback_server import CallbackServer, run_with_callback_server, wait_for_callback_or_manual
from pi_rpc.ai.auth.oauth.http import post
from pi_rpc.ai.auth.oauth.pkce import parse_authorization_input, pkce
from pi_rpc.ai.auth.oauth.redact import redact
from pi_rpc.ai.auth.oauth.refresh import redact_answer
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
TOKEN_URL = "https://platform.claude.com/v1/oauth/token"
SKEW_MS = 5 * 60 * 1000


class _HttpFailed(Exception):
    pass


def _details(exc: BaseException) -> str:
    """``formatErrorDetails`` without the stack: ``<name>: <message>`` (+ ``cause=``)."""
    if isinstance(exc, FetchError):
        parts = [f"{exc.name}: {exc.message}"]
        if exc.name == "TimeoutError":
            parts.append("code=23")  # the DOMException's legacy code (TIMEOUT_ERR)
        if exc.cause:
            parts.append(f"cause=Error: {exc.cause}")
        return "; ".join(parts)
    return f"{js_error_name(exc)}: {js_error_text(exc)}"


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    body = {"grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": credential.get("refresh")}
    try:
        reply = await http_request(
            "POST",
            TOKEN_URL,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            body=json_body(body),
            timeout_s=timeout_s,
        )
        if not reply.ok:
            raise _HttpFailed(
                f"HTTP request failed. status={reply.status}; url={TOKEN_URL}; body={redact_answer(reply.text)}"
            )
    except (FetchError, _HttpFailed) as exc:
        details = f"Error: {exc}" if isinstance(exc, _HttpFailed) else _details(exc)
        raise RuntimeError(f"Anthropic token refresh request failed. url={TOKEN_URL}; details={details}") from None
    try:
        data = reply.json()
    except ValueError as exc:
        raise RuntimeError(
            f"Anthropic token refresh returned invalid JSON. url={TOKEN_URL}; body={redact_answer(reply.text)}; details={_details(exc)}"
        ) from None
    data = data if isinstance(data, dict) else {}
    stored: Credential = {"type": "oauth"}
    # JSON.stringify drops undefined: a field missing from the answer is not written.
    if "refresh_token" in data:
        stored["refresh"] = data["refresh_token"]
    if "access_token" in data:
        stored["access"] = data["access_token"]
    expires_in = data.get("expires_in")
    if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool):
        stored["expires"] = now_ms() + expires_in * 1000 - SKEW_MS
    else:
        stored["expires"] = None  # NaN: JSON.stringify writes null
    return stored


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


AUTHORIZE_URL = "https://claude.ai/oauth/authorize"
CALLBACK_PORT = 53692
CALLBACK_PATH = "/callback"
REDIRECT_URI = f"http://localhost:{CALLBACK_PORT}{CALLBACK_PATH}"
COPY_CODE_REDIRECT_URI = "https://platform.claude.com/oauth/code/callback"
SCOPES = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
METHODS = [
    {"id": "browser", "label": "Browser login (default)"},
    {"id": "copy_code", "label": "Copy code login (headless)"},
]


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


async def exchange_code(code: str, state: str, verifier: str, redirect_uri: str) -> dict[str, object]:
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
        "expires": int(time.time() * 1000 + seconds * 1000 - SKEW_MS),
    }


async def login_anthropic(interaction: LoginInteraction) -> dict[str, object]:
    method = await interaction.prompt(
        {"type": "select", "message": "Select Anthropic login method:", "options": METHODS}
    )
    if method == "copy_code":
        return await _copy_code(interaction)
    if method != "browser":
        raise LoginError(f"Unknown Anthropic login method: {method}")
    return await _browser(interaction)


async def _browser(interaction: LoginInteraction) -> dict[str, object]:
    verifier, challenge = pkce()

    async def steps(callback: CallbackServer | None) -> dict[str, object]:
        return await _browser_steps(interaction, callback, verifier, challenge)

    # Any free port when 53692 is taken.
    return await run_with_callback_server("Anthropic", (CALLBACK_PORT, 0), CALLBACK_PATH, verifier, steps)


async def _browser_steps(
    interaction: LoginInteraction, callback: CallbackServer | None, verifier: str, challenge: str
) -> dict[str, object]:
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


async def _copy_code(interaction: LoginInteraction) -> dict[str, object]:
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


PROVIDER = OAuthProvider(
    id="anthropic",
    name="Anthropic (Claude Pro/Max)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_anthropic,
)
