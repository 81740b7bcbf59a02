"""Anthropic (Claude Pro/Max) OAuth: the refresh request and stored fields of upstream's
``pi-ai/dist/auth/oauth/anthropic.js`` (``refreshAnthropicToken``).

``POST https://platform.claude.com/v1/oauth/token`` with JSON
``{"grant_type":"refresh_token","client_id":…,"refresh_token":…}``; the credential stored is
``{type, refresh, access, expires}`` (other fields dropped, as upstream) with ``expires`` =
now + ``expires_in`` s − 5 min. Error texts are upstream's up to its ``; stack=`` part (a Node
stack trace, not reproduced).
"""

from __future__ import annotations

from pi_rpc.ai.auth.oauth.base import (
    Credential,
    FetchError,
    OAuthAuth,
    OAuthProvider,
    http_request,
    js_error_name,
    js_error_text,
    json_body,
    now_ms,
)
from pi_rpc.ai.auth.oauth.refresh import redact_answer

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


PROVIDER = OAuthProvider(
    id="anthropic",
    name="Anthropic (Claude Pro/Max)",
    is_subscription=True,
    refresh=_refresh,
    to_auth=_to_auth,
)
