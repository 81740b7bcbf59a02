"""Radius gateway OAuth (``pi-ai/dist/auth/oauth/radius.js``, built-in gateway
``https://radius.pi.dev``): ``POST <gateway>/v1/oauth/token``, form ``grant_type``,
``client_id=pi-gateway``, ``refresh_token``. Stored: ``{type, access, refresh, expires, scope}``
with ``expires`` = now + ``expires_in`` s − 60 s (fields the answer lacks are not written, as
``JSON.stringify`` drops ``undefined``).

The sign-in (``PROVIDER.login``):
Radius's account sign-in (``pi-ai/dist/auth/oauth/radius.js`` ``createRadiusOAuth().login``)
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

import json
import uuid
from urllib.parse import urlencode, urlsplit

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import FetchError, form_body, http_request, now_ms
from pi_rpc.ai.auth.oauth.callback_server import CallbackServer, run_with_callback_server
from pi_rpc.ai.auth.oauth.device_code import poll_device_code
from pi_rpc.ai.auth.oauth.pkce import pkce
from pi_rpc.ai.auth.oauth.redact import redact
from pi_rpc.ai.auth.oauth.refresh import redact_answer
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

DEFAULT_GATEWAY = "https://radius.pi.dev"
OAUTH_CLIENT_ID = "pi-gateway"
TOKEN_EXPIRY_SKEW_MS = 60_000


def response_error(status: int, text: str, message: str) -> RuntimeError:
    """``readOAuthResponseError``: ``<message>: <error>[: <description>]`` (or the body, or the status)."""
    oauth_error: str | None = None
    description: str | None = None
    if text:
        try:
            data = json.loads(text)
            if isinstance(data, dict):
                oauth_error = data["error"] if isinstance(data.get("error"), str) else None
                description = data["error_description"] if isinstance(data.get("error_description"), str) else None
        except ValueError:
            description = redact_answer(text)
    if oauth_error:
        detail = f"{oauth_error}: {description}" if description else oauth_error
    else:
        detail = description or str(status)
    return RuntimeError(f"{message}: {detail}")


async def request_oauth_token(gateway: str, fields: dict[str, str], timeout_s: float) -> Credential:
    """``requestOAuthToken``."""
    try:
        reply = await http_request(
            "POST",
            f"{gateway}/v1/oauth/token",
            headers={"accept": "application/json", "content-type": "application/x-www-form-urlencoded"},
            body=form_body(fields),
            timeout_s=timeout_s,
        )
    except FetchError as exc:
        if exc.name == "TimeoutError":
            raise RuntimeError("Login cancelled") from None
        raise
    if not reply.ok:
        raise response_error(reply.status, reply.text, "Radius OAuth token request failed")
    return credential_from_token_answer(reply.json())


def credential_from_token_answer(data: object) -> Credential:
    """What a Radius token answer is stored as (the login's and the refresh's): the fields it
    has, ``expires`` = now + ``expires_in`` − skew (null when absent: upstream's NaN)."""
    body = data if isinstance(data, dict) else {}
    stored: Credential = {"type": "oauth"}
    for source, target in (("access_token", "access"), ("refresh_token", "refresh")):
        if source in body:
            stored[target] = body[source]
    expires_in = body.get("expires_in")
    if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool):
        stored["expires"] = now_ms() + expires_in * 1000 - TOKEN_EXPIRY_SKEW_MS
    else:
        stored["expires"] = None  # NaN: JSON.stringify writes null
    if "scope" in body:
        stored["scope"] = body["scope"]
    return stored


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    fields = {
        "grant_type": "refresh_token",
        "client_id": OAUTH_CLIENT_ID,
        "refresh_token": str(credential.get("refresh")),
    }
    return await request_oauth_token(DEFAULT_GATEWAY, fields, timeout_s)


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


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


def trusted_http_url(value: object) -> str | None:
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


async def _fetch(method: str, url: str, fields: dict[str, str] | None) -> tuple[int, str, object]:
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

    oauth_error: str | None = None
    try:
        data = orjson.loads(text) if text else None
        oauth_error = data["error"] if isinstance(data, dict) and isinstance(data.get("error"), str) else None
    except orjson.JSONDecodeError:
        pass
    return _OAuthAnswerError(redact(str(response_error(status, text, message))), oauth_error)


async def _token(gateway: str, fields: dict[str, str]) -> dict[str, object]:
    """``requestOAuthToken``, the credential as the refresh stores it."""

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


async def _browser(gateway: str, endpoint: str, interaction: LoginInteraction) -> dict[str, object]:
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

    async def complete(code: str) -> dict[str, object]:
        fields = {
            "grant_type": "authorization_code",
            "client_id": OAUTH_CLIENT_ID,
            "redirect_uri": REDIRECT_URI,
            "code": code,
            "code_verifier": verifier,
        }
        return await _token(gateway, fields)

    async def steps(callback: CallbackServer | None) -> dict[str, object]:
        assert callback is not None  # port_taken: no server, no steps
        interaction.notify({"type": "progress", "message": f"Listening for OAuth callback on {REDIRECT_URI}"})
        interaction.notify(
            {"type": "auth_url", "url": f"{base}?{urlencode(params)}", "instructions": "Continue in your browser."}
        )
        credential: dict[str, object] | None = await callback.wait()
        if not credential:
            raise LoginError("OAuth callback did not complete.")
        return credential

    return await run_with_callback_server(
        "Radius",
        (CALLBACK_PORT,),
        CALLBACK_PATH,
        state,
        steps,
        complete=complete,
        host=CALLBACK_HOST,
        port_taken=f"listen EADDRINUSE: address already in use {CALLBACK_HOST}:{CALLBACK_PORT}",
    )


async def _device_code(gateway: str, interaction: LoginInteraction) -> dict[str, object]:
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
    event: dict[str, object] = {
        "type": "device_code",
        "userCode": body["user_code"],
        "verificationUri": verification_uri,
        "expiresInSeconds": body["expires_in"],
    }
    if interval is not None:
        event["intervalSeconds"] = interval
    interaction.notify(event)
    device_code = str(body["device_code"])

    async def poll() -> tuple[str, object]:
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
    result: dict[str, object] = await poll_device_code(poll, interval_s, expires_s)
    return result


async def login_radius(interaction: LoginInteraction) -> dict[str, object]:

    gateway = DEFAULT_GATEWAY.rstrip("/")
    method = await interaction.prompt({"type": "select", "message": "Sign in to Radius:", "options": METHODS})
    if method == "device-code":
        return await _device_code(gateway, interaction)
    if method == "browser":
        return await _browser(gateway, await _discover(gateway), interaction)
    raise LoginError(f"Unknown Radius sign-in method: {method}")


PROVIDER = OAuthProvider(
    id="radius", name="Radius", is_subscription=False, refresh=_refresh, to_auth=_to_auth, login=login_radius
)
