"""OpenAI "Sign in with ChatGPT" OAuth (provider ``openai``): the refresh of upstream's
``pi-ai/dist/auth/oauth/openai-chatgpt.js`` (``refreshAccessToken``).

``POST https://auth.openai.com/api/accounts/oauth/token``, form ``grant_type``, ``client_id`` (the
client id issued at login and stored as ``clientId``), ``refresh_token``, ``resource``; the answer
must carry ``access_token``, ``refresh_token``, a ``scope`` including
``chatgpt.tokens.use.direct`` and a positive ``expires_in``. Stored: ``{type, access, refresh,
expires, clientId, scopes}`` with ``expires`` = now + ``expires_in`` s − 3 min.

The sign-in (``PROVIDER.login``):
OpenAI's account sign-in, "Sign in with ChatGPT" (``pi-ai/dist/auth/oauth/openai-chatgpt.js``
``loginOpenAIChatGPT``): a public client registered anew by every login. The authorize URL
(``auth.openai.com/api/accounts/authorize``) carries ``client_id=dynamic_agent_client``, the
agent name ``Pi``, ``ext_agent_host_id=urn:uuid:<deviceId>``, PKCE, a base64url ``state`` and
``nonce``; the browser comes back to ``http://127.0.0.1:1455/auth/callback`` (host from
``PI_OAUTH_CALLBACK_HOST``) with the code and the issued ``client_id``, or the user pastes that
URL. The code is exchanged at ``api/accounts/oauth/token`` (``resource`` the API); the answer
must hold an ID token and the ``chatgpt.tokens.use.direct`` scope. Stored ``{type, access,
refresh, expires: now + expires_in·1000 − 3 min, clientId, scopes}``.

The device id is the installation's stable UUID, ``deviceId`` in the global ``settings.json``,
created on first use as upstream's ``SettingsManager.getOrCreateDeviceId`` does (project settings
are never read for it)."""

from __future__ import annotations

import math
import os
import re
import secrets
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.oauth.base import form_body, http_request, now_ms
from pi_rpc.ai.auth.oauth.callback_server import CallbackServer, run_with_callback_server, wait_for_callback_or_manual
from pi_rpc.ai.auth.oauth.pkce import pkce
from pi_rpc.ai.auth.oauth.redact import redact
from pi_rpc.ai.auth.oauth.refresh import redact_answer
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider

TOKEN_URL = "https://auth.openai.com/api/accounts/oauth/token"
RESOURCE = "https://api.openai.com/v1"
DIRECT_TOKEN_SCOPE = "chatgpt.tokens.use.direct"
EXPIRY_MARGIN_MS = 3 * 60 * 1000


def _token_string(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RuntimeError(f"OpenAI OAuth token response has invalid {name}")
    return value


def credential_from_token_response(token: dict[str, object], client_id: str) -> Credential:
    """``credentialFromTokenResponse``."""
    access = _token_string(token.get("access_token"), "access_token")
    refresh = _token_string(token.get("refresh_token"), "refresh_token")
    scope = _token_string(token.get("scope"), "scope")
    expires_in = token.get("expires_in")
    if (
        not isinstance(expires_in, (int, float))
        or isinstance(expires_in, bool)
        or not math.isfinite(expires_in)
        or expires_in <= 0
    ):
        raise RuntimeError("OpenAI OAuth token response has invalid expires_in")
    scopes = [s for s in re.split(r"\s+", scope.strip()) if s]
    if DIRECT_TOKEN_SCOPE not in scopes:
        raise RuntimeError(f"OpenAI OAuth grant did not include {DIRECT_TOKEN_SCOPE}")
    return {
        "type": "oauth",
        "access": access,
        "refresh": refresh,
        "expires": now_ms() + expires_in * 1000 - EXPIRY_MARGIN_MS,
        "clientId": client_id,
        "scopes": scopes,
    }


async def request_token(params: dict[str, str], timeout_s: float) -> dict[str, object]:
    """``requestToken``: the token endpoint's answer as an object."""
    reply = await http_request(
        "POST",
        TOKEN_URL,
        headers={"accept": "application/json", "content-type": "application/x-www-form-urlencoded"},
        body=form_body(params),
        timeout_s=timeout_s,
    )
    if not reply.ok:
        raise RuntimeError(
            f"OpenAI OAuth token request failed ({reply.status}): {redact_answer(reply.text) or reply.status_text}"
        )
    data = reply.json()
    if not isinstance(data, dict):
        raise RuntimeError("OpenAI OAuth token response must be an object")
    return data


async def _refresh(credential: Credential, timeout_s: float) -> Credential:
    client_id = credential.get("clientId")
    if not isinstance(client_id, str) or not client_id.strip():
        raise RuntimeError("Stored OpenAI OAuth credential does not contain an issued client ID; reconnect ChatGPT")
    params = {
        "grant_type": "refresh_token",
        "client_id": client_id,
        "refresh_token": str(credential.get("refresh")),
        "resource": RESOURCE,
    }
    return credential_from_token_response(await request_token(params, timeout_s), client_id)


def _to_auth(credential: Credential) -> OAuthAuth:
    return OAuthAuth(api_key=credential["access"])


DYNAMIC_CLIENT_ID = "dynamic_agent_client"
AGENT_NAME_HINT = "Pi"
AUTHORIZE_URL = "https://auth.openai.com/api/accounts/authorize"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
REDIRECT_URI = f"http://127.0.0.1:{CALLBACK_PORT}{CALLBACK_PATH}"
SCOPE = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"
UUID_PATTERN = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
EXCHANGE_TIMEOUT_S = 60.0


def get_or_create_device_id(agent_dir: Path | None = None) -> str:
    """The global settings' ``deviceId``, written there (a new UUID v4) when missing. A
    settings file that cannot be read as a JSON object is left alone and the new id is used for
    this login only, as upstream's ``save`` skips a file it failed to load."""
    import json

    from pi_rpc.config import paths
    from pi_rpc.config.settings import Settings

    agent = agent_dir if agent_dir is not None else paths.agent_dir()
    path = paths.settings_path(agent)
    data: object = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
    device_id = str(uuid.uuid4())
    if not isinstance(data, dict):
        return device_id
    existing = data.get("deviceId")
    if existing:
        return str(existing)
    settings = Settings(
        agent_dir=agent, cwd=Path.cwd(), global_data=data, project_data={}, project_trusted=False, warn=None
    )
    settings.set_global("deviceId", device_id)
    return device_id


def agent_host_id(device_id: str | None) -> str:
    if not device_id or not UUID_PATTERN.match(device_id):
        raise LoginError("Sign in with ChatGPT requires a device ID (UUID) for this installation")
    return f"urn:uuid:{device_id.lower()}"


def _random_value() -> str:
    return secrets.token_urlsafe(32)  # 32 bytes, base64url without padding, as randomBytes(32)


def _result_from_query(query: dict[str, str], expected_state: str) -> tuple[str, str]:
    """``authorizationResultFromCallback``: (code, issued client id)."""
    code = query.get("code")
    if not code:
        raise LoginError("Missing authorization code")
    state = query.get("state")
    if not state:
        raise LoginError("Missing OAuth state")
    if state != expected_state:
        raise LoginError("OAuth state mismatch")
    client_id = (query.get("client_id") or "").strip()
    if not client_id:
        raise LoginError("OpenAI OAuth registration callback did not contain an issued client ID")
    return code, client_id


def _query(text: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}


def _result_from_manual_input(text: str, expected_state: str) -> tuple[str, str]:
    """``authorizationResultFromManualInput``: the full callback URL, nothing less."""
    url = urlsplit(text.strip())
    if not url.scheme or not url.netloc:
        raise LoginError("Paste the full callback URL from the browser")
    expected = urlsplit(REDIRECT_URI)
    if (url.scheme.lower(), url.netloc.lower()) != (expected.scheme, expected.netloc) or url.path != expected.path:
        raise LoginError(f"The pasted callback URL must start with {REDIRECT_URI}")
    query = _query(url.query)
    if query.get("error"):
        raise LoginError(f"ChatGPT authorization failed: {query['error']}")
    return _result_from_query(query, expected_state)


async def _exchange(code: str, verifier: str, client_id: str) -> dict[str, object]:
    from pi_rpc.ai.auth.oauth.base import FetchError

    params = {
        "grant_type": "authorization_code",
        "client_id": client_id,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT_URI,
        "resource": RESOURCE,
    }
    try:
        token = await request_token(params, EXCHANGE_TIMEOUT_S)
        id_token = token.get("id_token")
        # pi does not read the ID token; its presence is part of the token answer's contract
        if not isinstance(id_token, str) or not id_token.strip():
            raise RuntimeError("OpenAI OAuth token response did not contain an ID token")
        return dict(credential_from_token_response(token, client_id))
    except (RuntimeError, FetchError) as exc:
        raise LoginError(redact(str(exc))) from None


async def login_openai_chatgpt(
    interaction: LoginInteraction, get_device_id: Callable[[], str] | None = None
) -> dict[str, object]:
    host_id = agent_host_id((get_device_id or get_or_create_device_id)())
    verifier, challenge = pkce()
    state, nonce = _random_value(), _random_value()

    def check(query: dict[str, str]) -> str | None:
        try:
            _result_from_query(query, state)
        except LoginError as exc:
            return str(exc)
        return None

    async def steps(callback: CallbackServer | None) -> dict[str, object]:
        assert callback is not None  # port_taken: no server, no steps
        return await _browser_steps(interaction, callback, host_id, challenge, verifier, state, nonce)

    return await run_with_callback_server(
        "ChatGPT",
        (CALLBACK_PORT,),
        CALLBACK_PATH,
        state,
        steps,
        check=check,
        host=os.environ.get("PI_OAUTH_CALLBACK_HOST") or "127.0.0.1",
        # whoever holds the port would reject the browser's callback as a state mismatch
        port_taken=f"Port {CALLBACK_PORT} is in use, probably by an unfinished login in another pi session or "
        "by the Codex CLI. Cancel that login and try again.",
    )


async def _browser_steps(
    interaction: LoginInteraction,
    callback: CallbackServer,
    host_id: str,
    challenge: str,
    verifier: str,
    state: str,
    nonce: str,
) -> dict[str, object]:
    params = {
        "client_id": DYNAMIC_CLIENT_ID,
        "agent_name_hint": AGENT_NAME_HINT,
        "ext_agent_host_id": host_id,
        "response_type": "code",
        "redirect_uri": REDIRECT_URI,
        "resource": "https://api.openai.com/v1",
        "scope": SCOPE,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "nonce": nonce,
    }
    interaction.notify(
        {
            "type": "auth_url",
            "url": f"{AUTHORIZE_URL}?{urlencode(params)}",
            "instructions": "Complete sign-in in your browser. If the callback does not complete, "
            "paste the final redirect URL here.",
        }
    )
    kind, value = await wait_for_callback_or_manual(
        interaction, callback, "Complete login in your browser, or paste the final redirect URL here:", REDIRECT_URI
    )
    if kind == "callback":
        code, client_id = _result_from_query(callback.query, state)
    else:
        code, client_id = _result_from_manual_input(str(value), state)
    interaction.notify({"type": "progress", "message": "Exchanging authorization code for tokens..."})
    return await _exchange(code, verifier, client_id)


PROVIDER = OAuthProvider(
    id="openai",
    name="OpenAI (ChatGPT subscription)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
    login=login_openai_chatgpt,
)
