"""OpenAI Codex's account sign-in (ChatGPT Plus/Pro; ``pi-ai/dist/auth/oauth/openai-codex.js``):
``browser`` -- PKCE with a hex ``state``, a callback server on ``localhost:1455/auth/callback``
(shared with the Codex CLI: when taken, only the pasted redirect URL), the code exchanged at
``auth.openai.com/oauth/token``; ``device_code`` -- a user code from ``deviceauth/usercode`` to
enter at ``auth.openai.com/codex/device``, polled at ``deviceauth/token`` until it yields an
authorization code and verifier, exchanged the same way. Stored ``{type, access, refresh,
expires: now + expires_in·1000, accountId}`` (the account id from the access token's JWT)."""

from __future__ import annotations

import secrets
import time
from typing import Any
from urllib.parse import urlencode

import anyio
import orjson

from pi_rpc.ai.auth.login import CANCELLED, LoginError, LoginInteraction
from pi_rpc.ai.auth.login.anthropic import parse_authorization_input, pkce
from pi_rpc.ai.auth.login.callback_server import CallbackServer, wait_for_callback_or_manual
from pi_rpc.ai.auth.login.device_code import poll_device_code
from pi_rpc.ai.auth.login.http import Answer, post
from pi_rpc.ai.auth.login.redact import redact

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
AUTH_BASE = "https://auth.openai.com"
AUTHORIZE_URL = f"{AUTH_BASE}/oauth/authorize"
TOKEN_URL = f"{AUTH_BASE}/oauth/token"
REDIRECT_URI = "http://localhost:1455/auth/callback"
DEVICE_USER_CODE_URL = f"{AUTH_BASE}/api/accounts/deviceauth/usercode"
DEVICE_TOKEN_URL = f"{AUTH_BASE}/api/accounts/deviceauth/token"
DEVICE_VERIFICATION_URI = f"{AUTH_BASE}/codex/device"
DEVICE_REDIRECT_URI = f"{AUTH_BASE}/deviceauth/callback"
DEVICE_CODE_TIMEOUT_S = 15 * 60
SCOPE = "openid profile email offline_access"
JWT_CLAIM = "https://api.openai.com/auth"
METHODS = [
    {"id": "browser", "label": "Browser login (default)"},
    {"id": "device_code", "label": "Device code login (headless)"},
]


def _json_text(value: Any) -> str:
    return redact(orjson.dumps(value).decode())


def _tokens(answer: Answer, operation: str) -> dict[str, Any]:
    if not answer.ok:
        raise LoginError(f"OpenAI Codex token {operation} failed ({answer.status}): {redact(answer.text) or 'error'}")
    body = answer.body
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    if not access or not refresh or isinstance(expires_in, bool) or not isinstance(expires_in, (int, float)):
        raise LoginError(f"OpenAI Codex token {operation} response missing fields: {_json_text(body)}")
    return {"access": access, "refresh": refresh, "expires": int(time.time() * 1000 + expires_in * 1000)}


def _account_id(access: Any) -> str | None:
    from pi_rpc.ai.auth.oauth.base import decode_jwt_payload

    payload = decode_jwt_payload(access) if isinstance(access, str) else None
    claim = payload.get(JWT_CLAIM) if isinstance(payload, dict) else None
    account = claim.get("chatgpt_account_id") if isinstance(claim, dict) else None
    return account if isinstance(account, str) and account else None


async def _exchange(code: str, verifier: str, redirect_uri: str) -> dict[str, Any]:
    form = {
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
    }
    token = _tokens(await post(TOKEN_URL, form=form), "exchange")
    account = _account_id(token["access"])
    if account is None:
        raise LoginError("Failed to extract accountId from token")
    return {"type": "oauth", **token, "accountId": account}


async def login_openai_codex(interaction: LoginInteraction) -> dict[str, Any]:
    method = await interaction.prompt(
        {"type": "select", "message": "Select OpenAI Codex login method:", "options": METHODS}
    )
    if method == "device_code":
        return await _device_code(interaction)
    if method != "browser":
        raise LoginError(f"Unknown OpenAI Codex login method: {method}")
    outcome: list[dict[str, Any]] = []
    failure: list[LoginError] = []
    async with anyio.create_task_group() as tg:
        verifier, challenge = pkce()
        state = secrets.token_hex(16)
        try:
            callback: CallbackServer | None = await CallbackServer.start(tg, "OpenAI", 1455, "/auth/callback", state)
        except OSError:
            callback = None  # the Codex CLI may hold the port: the pasted URL still works
        try:
            outcome.append(await _browser_steps(interaction, callback, verifier, challenge, state))
        except LoginError as exc:
            failure.append(exc)  # kept out of the task group's exception group
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
    interaction: LoginInteraction, callback: CallbackServer | None, verifier: str, challenge: str, state: str
) -> dict[str, Any]:
    params = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "scope": SCOPE,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "id_token_add_organizations": "true",
        "codex_cli_simplified_flow": "true",
        "originator": "pi",
    }
    interaction.notify(
        {
            "type": "auth_url",
            "url": f"{AUTHORIZE_URL}?{urlencode(params)}",
            "instructions": "A browser window should open. Complete login to finish.",
        }
    )
    kind, value = await wait_for_callback_or_manual(
        interaction,
        callback,
        "Complete login in your browser, or paste the authorization code / redirect URL here:",
        REDIRECT_URI,
    )
    if kind == "callback":
        code: str | None = value
    else:
        code, pasted_state = parse_authorization_input(value)
        if pasted_state and pasted_state != state:
            raise LoginError("State mismatch")
    if not code:
        raise LoginError("Missing authorization code")
    return await _exchange(code, verifier, REDIRECT_URI)


async def _device_code(interaction: LoginInteraction) -> dict[str, Any]:
    answer = await post(DEVICE_USER_CODE_URL, json={"client_id": CLIENT_ID})
    if not answer.ok:
        if answer.status == 404:
            raise LoginError(
                "OpenAI Codex device code login is not enabled for this server. Use browser login or verify the server URL."
            )
        detail = f": {redact(answer.text)}" if answer.text else ""
        raise LoginError(f"OpenAI Codex device code request failed with status {answer.status}{detail}")
    body = answer.body
    interval: Any = body.get("interval")
    if isinstance(interval, str):
        try:
            interval = float(interval.strip())
        except ValueError:
            interval = None
    device_auth_id, user_code = body.get("device_auth_id"), body.get("user_code")
    if (
        not device_auth_id
        or not user_code
        or isinstance(interval, bool)
        or not isinstance(interval, (int, float))
        or interval < 0
    ):
        raise LoginError(f"Invalid OpenAI Codex device code response: {_json_text(body)}")
    interaction.notify({"type": "device_code", "userCode": user_code, "verificationUri": DEVICE_VERIFICATION_URI})

    async def poll() -> tuple[str, Any]:
        reply = await post(DEVICE_TOKEN_URL, json={"device_auth_id": device_auth_id, "user_code": user_code})
        if reply.ok:
            code, verifier = reply.body.get("authorization_code"), reply.body.get("code_verifier")
            if not code or not verifier:
                return "failed", f"Invalid OpenAI Codex device auth token response: {_json_text(reply.body)}"
            return "complete", (str(code), str(verifier))
        if reply.status in (403, 404):
            return "pending", None
        error = reply.body.get("error")
        code_name = error.get("code") if isinstance(error, dict) else error
        if code_name == "deviceauth_authorization_pending":
            return "pending", None
        if code_name == "slow_down":
            return "slow_down", None
        detail = f": {redact(reply.text)}" if reply.text else ""
        return "failed", f"OpenAI Codex device auth failed with status {reply.status}{detail}"

    code, verifier = await poll_device_code(poll, float(interval), DEVICE_CODE_TIMEOUT_S)
    return await _exchange(code, verifier, DEVICE_REDIRECT_URI)
