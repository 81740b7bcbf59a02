"""OpenAI Codex (ChatGPT Plus/Pro) OAuth: the refresh of upstream's
``pi-ai/dist/auth/oauth/openai-codex.js`` (``refreshOpenAICodexToken``).

``POST https://auth.openai.com/oauth/token``, form ``grant_type=refresh_token``,
``refresh_token``, ``client_id``; the answer must carry ``access_token``, ``refresh_token`` and a
numeric ``expires_in``; ``accountId`` is read again from the access token's JWT claim
``https://api.openai.com/auth``.``chatgpt_account_id``. Stored: ``{type, access, refresh,
expires, accountId}`` with ``expires`` = now + ``expires_in`` s (no skew).

The sign-in (``PROVIDER.login``):
OpenAI Codex's account sign-in (ChatGPT Plus/Pro; ``pi-ai/dist/auth/oauth/openai-codex.js``):
``browser`` -- PKCE with a hex ``state``, a callback server on ``localhost:1455/auth/callback``
(shared with the Codex CLI: when taken, only the pasted redirect URL), the code exchanged at
``auth.openai.com/oauth/token``; ``device_code`` -- a user code from ``deviceauth/usercode`` to
enter at ``auth.openai.com/codex/device``, polled at ``deviceauth/token`` until it yields an
authorization code and verifier, exchanged the same way. Stored ``{type, access, refresh,
expires: now + expires_in·1000, accountId}`` (the account id from the access token's JWT)."""

from __future__ import annotations

import secrets
import time
from urllib.parse import urlencode

import orjson

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import FetchError, decode_jwt_payload, form_body, http_request, now_ms
from pi_rpc.ai.auth.oauth.callback_server import CallbackServer, run_with_callback_server, wait_for_callback_or_manual
from pi_rpc.ai.auth.oauth.device_code import poll_device_code
from pi_rpc.ai.auth.oauth.http import Answer, post
from pi_rpc.ai.auth.oauth.pkce import parse_authorization_input, pkce
from pi_rpc.ai.auth.oauth.redact import redact
from pi_rpc.ai.auth.oauth.refresh import redact_answer
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
TOKEN_URL = "https://auth.openai.com/oauth/token"
JWT_CLAIM_PATH = "https://api.openai.com/auth"


def account_id(access_token: str) -> str | None:
    """The ChatGPT account id in an access token (``getAccountId``), ``None`` without one."""
    payload = decode_jwt_payload(access_token)
    auth = payload.get(JWT_CLAIM_PATH) if isinstance(payload, dict) else None
    value = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    return value if isinstance(value, str) and value else None


def _js_stringify(value: object) -> str:
    from pi_rpc.ai.jsjson import stringify

    return stringify(value).decode("utf-8")


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    params = {"grant_type": "refresh_token", "refresh_token": str(credential.get("refresh")), "client_id": CLIENT_ID}
    try:
        reply = await http_request(
            "POST",
            TOKEN_URL,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            body=form_body(params),
            timeout_s=timeout_s,
        )
    except FetchError as exc:
        raise RuntimeError(f"OpenAI Codex token refresh error: {exc.message}") from None
    if not reply.ok:
        raise RuntimeError(
            f"OpenAI Codex token refresh failed ({reply.status}): {redact_answer(reply.text) or reply.status_text}"
        )
    data = reply.json()
    if (
        not isinstance(data, dict)
        or not data.get("access_token")
        or not data.get("refresh_token")
        or not isinstance(data.get("expires_in"), (int, float))
        or isinstance(data.get("expires_in"), bool)
    ):
        raise RuntimeError(f"OpenAI Codex token refresh response missing fields: {_js_stringify(data)}")
    access = data["access_token"]
    account = account_id(access) if isinstance(access, str) else None
    if not account:
        raise RuntimeError("Failed to extract accountId from token")
    return {
        "type": "oauth",
        "access": access,
        "refresh": data["refresh_token"],
        "expires": now_ms() + data["expires_in"] * 1000,
        "accountId": account,
    }


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


AUTH_BASE = "https://auth.openai.com"
AUTHORIZE_URL = f"{AUTH_BASE}/oauth/authorize"
REDIRECT_URI = "http://localhost:1455/auth/callback"
DEVICE_USER_CODE_URL = f"{AUTH_BASE}/api/accounts/deviceauth/usercode"
DEVICE_TOKEN_URL = f"{AUTH_BASE}/api/accounts/deviceauth/token"
DEVICE_VERIFICATION_URI = f"{AUTH_BASE}/codex/device"
DEVICE_REDIRECT_URI = f"{AUTH_BASE}/deviceauth/callback"
DEVICE_CODE_TIMEOUT_S = 15 * 60
SCOPE = "openid profile email offline_access"
METHODS = [
    {"id": "browser", "label": "Browser login (default)"},
    {"id": "device_code", "label": "Device code login (headless)"},
]


def _json_text(value: object) -> str:
    return redact(orjson.dumps(value).decode())


def _tokens(answer: Answer, operation: str) -> dict[str, object]:
    if not answer.ok:
        raise LoginError(f"OpenAI Codex token {operation} failed ({answer.status}): {redact(answer.text) or 'error'}")
    body = answer.body
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    if not access or not refresh or isinstance(expires_in, bool) or not isinstance(expires_in, (int, float)):
        raise LoginError(f"OpenAI Codex token {operation} response missing fields: {_json_text(body)}")
    return {"access": access, "refresh": refresh, "expires": int(time.time() * 1000 + expires_in * 1000)}


async def _exchange(code: str, verifier: str, redirect_uri: str) -> dict[str, object]:
    form = {
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
    }
    token = _tokens(await post(TOKEN_URL, form=form), "exchange")
    access = token["access"]
    account = account_id(access) if isinstance(access, str) else None
    if account is None:
        raise LoginError("Failed to extract accountId from token")
    return {"type": "oauth", **token, "accountId": account}


async def login_openai_codex(interaction: LoginInteraction) -> dict[str, object]:
    method = await interaction.prompt(
        {"type": "select", "message": "Select OpenAI Codex login method:", "options": METHODS}
    )
    if method == "device_code":
        return await _device_code(interaction)
    if method != "browser":
        raise LoginError(f"Unknown OpenAI Codex login method: {method}")
    verifier, challenge = pkce()
    state = secrets.token_hex(16)

    async def steps(callback: CallbackServer | None) -> dict[str, object]:
        return await _browser_steps(interaction, callback, verifier, challenge, state)

    # Only port 1455: the Codex CLI may hold it, and then the pasted URL still works.
    return await run_with_callback_server("OpenAI", (1455,), "/auth/callback", state, steps)


async def _browser_steps(
    interaction: LoginInteraction, callback: CallbackServer | None, verifier: str, challenge: str, state: str
) -> dict[str, object]:
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


async def _device_code(interaction: LoginInteraction) -> dict[str, object]:
    answer = await post(DEVICE_USER_CODE_URL, json={"client_id": CLIENT_ID})
    if not answer.ok:
        if answer.status == 404:
            raise LoginError(
                "OpenAI Codex device code login is not enabled for this server. Use browser login or verify the server URL."
            )
        detail = f": {redact(answer.text)}" if answer.text else ""
        raise LoginError(f"OpenAI Codex device code request failed with status {answer.status}{detail}")
    body = answer.body
    interval: object = body.get("interval")
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

    async def poll() -> tuple[str, object]:
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


PROVIDER = OAuthProvider(
    id="openai-codex",
    name="OpenAI (ChatGPT Plus/Pro)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_openai_codex,
)
