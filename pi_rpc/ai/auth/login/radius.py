"""Radius's account sign-in (``pi-ai/dist/auth/oauth/radius.js`` ``createRadiusOAuth().login``)
against the built-in gateway (``https://radius.pi.dev``, the one its refresh uses):

- ``browser``: the authorize endpoint discovered at ``GET <gateway>/v1/oauth``
  (``authorizationEndpoint``, an http(s) URL), PKCE with ``client_id=pi-gateway``, ``scope=gateway
  offline_access``, ``handoff=url`` and a UUID ``state``; the browser comes back to
  ``http://127.0.0.1:1456/oauth/callback`` and the code is exchanged at ``<gateway>/v1/oauth/token``
  before the page answers. There is no pasted-code step.
- ``device-code``: ``POST <gateway>/v1/oauth/device``, the user code shown, the token endpoint
  polled with the device-code grant (``authorization_pending`` / ``slow_down`` / ``expired_token``
  / ``access_denied``).

Stored as the refresh stores it: ``{type, access, refresh, expires: now + expires_in·1000 − 60 s,
scope}``. After ``pi auth login radius`` upstream points the Radius MCP server of the global
``mcp.json`` at this login (``pi_rpc.mcp.radius``)."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlencode, urlsplit

import anyio

from pi_rpc.ai.auth.login import CANCELLED, LoginError, LoginInteraction
from pi_rpc.ai.auth.login.anthropic import pkce
from pi_rpc.ai.auth.login.callback_server import CallbackServer
from pi_rpc.ai.auth.login.device_code import poll_device_code
from pi_rpc.ai.auth.login.redact import redact

CALLBACK_HOST = "127.0.0.1"
CALLBACK_PORT = 1456
CALLBACK_PATH = "/oauth/callback"
REDIRECT_URI = f"http://{CALLBACK_HOST}:{CALLBACK_PORT}{CALLBACK_PATH}"
OAUTH_CLIENT_ID = "pi-gateway"
OAUTH_SCOPE = "gateway offline_access"
DEVICE_CODE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
REQUEST_TIMEOUT_S = 60.0
METHODS = [
    {"id": "browser", "label": "Sign in with browser (recommended)"},
    {"id": "device-code", "label": "Sign in with device code (when signing in from another device)"},
]


def trusted_http_url(value: Any) -> str | None:
    """``trustedHttpUrl``: an http(s) URL (a server-supplied URL the browser may be sent to), else None."""
    if not isinstance(value, str):
        return None
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return value.strip() if parts.path else value.strip() + "/"  # WHATWG's href adds the root path


class _OAuthAnswerError(LoginError):
    def __init__(self, message: str, oauth_error: str | None) -> None:
        super().__init__(message)
        self.oauth_error = oauth_error


async def _fetch(method: str, url: str, fields: dict[str, str] | None) -> tuple[int, str, Any]:
    from pi_rpc.ai.auth.oauth.base import FetchError, form_body, http_request

    headers = {"accept": "application/json"}
    if fields is not None:
        headers["content-type"] = "application/x-www-form-urlencoded"
    try:
        reply = await http_request(
            method,
            url,
            headers=headers,
            body=form_body(fields) if fields is not None else None,
            timeout_s=REQUEST_TIMEOUT_S,
        )
    except FetchError as exc:
        raise LoginError(f"Request to {url} failed: {exc}") from None
    try:
        data = reply.json() if reply.ok else None
    except ValueError:
        raise LoginError(f"Invalid JSON from {url}") from None
    return reply.status, reply.text, data


def _answer_error(status: int, text: str, message: str) -> _OAuthAnswerError:
    import orjson

    from pi_rpc.ai.auth.oauth.radius import response_error

    oauth_error: str | None = None
    try:
        data = orjson.loads(text) if text else None
        oauth_error = data["error"] if isinstance(data, dict) and isinstance(data.get("error"), str) else None
    except orjson.JSONDecodeError:
        pass
    return _OAuthAnswerError(redact(str(response_error(status, text, message))), oauth_error)


async def _token(gateway: str, fields: dict[str, str]) -> dict[str, Any]:
    """``requestOAuthToken``, the credential as the refresh stores it."""
    from pi_rpc.ai.auth.oauth.radius import credential_from_token_answer

    status, text, data = await _fetch("POST", f"{gateway}/v1/oauth/token", fields)
    if not 200 <= status < 300:
        raise _answer_error(status, text, "Radius OAuth token request failed")
    return dict(credential_from_token_answer(data))


async def _discover(gateway: str) -> str:
    status, text, data = await _fetch("GET", f"{gateway}/v1/oauth", None)
    if not 200 <= status < 300:
        raise LoginError(f"Could not load Radius OAuth config from {gateway}: {status} {redact(text)}")
    endpoint = trusted_http_url(data.get("authorizationEndpoint") if isinstance(data, dict) else None)
    if endpoint is None:
        raise LoginError(f"Invalid Radius OAuth config from {gateway}")
    return endpoint


async def _browser(gateway: str, endpoint: str, interaction: LoginInteraction) -> dict[str, Any]:
    verifier, challenge = pkce()
    state = str(uuid.uuid4())
    params = {
        "response_type": "code",
        "client_id": OAUTH_CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "scope": OAUTH_SCOPE,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "handoff": "url",
        "state": state,
    }
    base = endpoint.split("?", 1)[0].split("#", 1)[0]  # upstream replaces the endpoint's query

    async def complete(code: str) -> dict[str, Any]:
        fields = {
            "grant_type": "authorization_code",
            "client_id": OAUTH_CLIENT_ID,
            "redirect_uri": REDIRECT_URI,
            "code": code,
            "code_verifier": verifier,
        }
        return await _token(gateway, fields)

    outcome: list[dict[str, Any]] = []
    failure: list[LoginError] = []
    async with anyio.create_task_group() as tg:
        try:
            callback = await CallbackServer.start(
                tg, "Radius", CALLBACK_PORT, CALLBACK_PATH, state, complete, host=CALLBACK_HOST
            )
        except OSError:
            failure.append(LoginError(f"listen EADDRINUSE: address already in use {CALLBACK_HOST}:{CALLBACK_PORT}"))
        else:
            try:
                interaction.notify({"type": "progress", "message": f"Listening for OAuth callback on {REDIRECT_URI}"})
                interaction.notify(
                    {
                        "type": "auth_url",
                        "url": f"{base}?{urlencode(params)}",
                        "instructions": "Continue in your browser.",
                    }
                )
                credential = await callback.wait()
                if not credential:
                    raise LoginError("OAuth callback did not complete.")
                outcome.append(credential)
            except LoginError as exc:
                failure.append(exc)
            finally:
                await callback.aclose()
        tg.cancel_scope.cancel()
    if failure:
        raise failure[0]
    if not outcome:
        raise LoginError(CANCELLED)
    return outcome[0]


async def _device_code(gateway: str, interaction: LoginInteraction) -> dict[str, Any]:
    status, text, data = await _fetch(
        "POST", f"{gateway}/v1/oauth/device", {"client_id": OAUTH_CLIENT_ID, "scope": OAUTH_SCOPE}
    )
    if not 200 <= status < 300:
        raise _answer_error(status, text, "Radius OAuth device authorization failed")
    body = data if isinstance(data, dict) else {}
    if not all(body.get(k) for k in ("device_code", "user_code", "verification_uri", "expires_in")):
        raise LoginError("Radius OAuth device authorization response is missing required fields")
    verification_uri = trusted_http_url(body["verification_uri"])
    if verification_uri is None:
        raise LoginError("Untrusted verification_uri in Radius OAuth device authorization response")
    interval = body.get("interval")
    interval_s = float(interval) if isinstance(interval, (int, float)) and not isinstance(interval, bool) else None
    event: dict[str, Any] = {
        "type": "device_code",
        "userCode": body["user_code"],
        "verificationUri": verification_uri,
        "expiresInSeconds": body["expires_in"],
    }
    if interval is not None:
        event["intervalSeconds"] = interval
    interaction.notify(event)
    device_code = str(body["device_code"])

    async def poll() -> tuple[str, Any]:
        fields = {"grant_type": DEVICE_CODE_GRANT_TYPE, "client_id": OAUTH_CLIENT_ID, "device_code": device_code}
        try:
            return "complete", await _token(gateway, fields)
        except _OAuthAnswerError as exc:
            if exc.oauth_error == "authorization_pending":
                return "pending", None
            if exc.oauth_error == "slow_down":
                return "slow_down", None
            if exc.oauth_error == "expired_token":
                return "failed", "Device authorization expired."
            if exc.oauth_error == "access_denied":
                return "failed", "Device authorization was denied."
            raise

    expires = body["expires_in"]
    expires_s = float(expires) if isinstance(expires, (int, float)) and not isinstance(expires, bool) else None
    result: dict[str, Any] = await poll_device_code(poll, interval_s, expires_s)
    return result


async def login_radius(interaction: LoginInteraction) -> dict[str, Any]:
    from pi_rpc.ai.auth.oauth.radius import DEFAULT_GATEWAY

    gateway = DEFAULT_GATEWAY.rstrip("/")
    method = await interaction.prompt({"type": "select", "message": "Sign in to Radius:", "options": METHODS})
    if method == "device-code":
        return await _device_code(gateway, interaction)
    if method == "browser":
        return await _browser(gateway, await _discover(gateway), interaction)
    raise LoginError(f"Unknown Radius sign-in method: {method}")
