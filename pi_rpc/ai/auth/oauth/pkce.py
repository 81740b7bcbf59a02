"""PKCE and the pasted authorization answer, shared by the browser sign-ins (upstream's
``auth/oauth/pkce.js`` and ``parseAuthorizationInput``)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlsplit


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
