"""Refreshing a stored OAuth credential as upstream 1.6 does (``pi-ai/dist/auth/resolve.js``
``resolveStoredOAuth`` / ``refreshStoredOAuthCredential``).

- A credential is refreshed when ``now + max(5 min, min_validity_ms) >= expires``.
- The refresh runs inside ``AuthStore.modify``, i.e. under upstream's ``auth.json`` lock; the
  credential is re-read there and nothing is done when it is no longer ``oauth`` (logged out)
  or no longer expiring (another process or request refreshed it): double-checked locking, so
  pi_rpc and upstream processes sharing one file refresh a rotating token once between them.
- The provider's request is bounded by 15 s. The caller's abort signal cancels only the wait
  for the lock: once a refresh has started the provider may already have rotated the refresh
  token, so the request and the write run to the end, shielded from cancellation (a run being
  torn down, the process shutting down: the rotated token is on disk before the task ends,
  which is what upstream's ``settleCredentialWrites`` guarantees before exit).
- A failure raises ``OAuthError`` with upstream's ``ModelsError`` message
  (``OAuth refresh failed for <id>: <cause>``); the stored credential is kept and no other key
  is tried. Unlike upstream, token values in the message (the stored credential's own, and
  token fields of an answer the cause quotes) are replaced by ``[redacted]``: the message
  reaches stdout and the session file.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pi_rpc.errors import PiError

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.auth.store import AuthStore
    from pi_rpc.ai.auth.types import Credential, OAuthProvider

DEFAULT_MIN_VALIDITY_MS = 5 * 60 * 1000
REFRESH_TIMEOUT_S = 15.0

# Refreshes whose result is not yet written (``pending_credential_writes``).
_pending = 0


class OAuthError(PiError):
    """upstream's ``ModelsError`` for credentials: ``code`` is ``"oauth"`` (refresh or
    derivation failed) or ``"auth"`` (the credential store failed); the message is upstream's
    with the cause appended (``withCauseDetail``)."""

    def __init__(
        self, code: str, message: str, cause: BaseException | None = None, secrets: Iterable[object] = ()
    ) -> None:
        detail = _cause_detail(cause)
        text = f"{message}: {detail}" if detail and detail not in message else message
        super().__init__(redact_tokens(text, secrets) if cause is not None else text)
        self.code = code


REDACTED = "[redacted]"
#: The fields whose values are tokens in a token endpoint's answer (a refresh error quotes it);
#: the login flows redact these and more (``pi_rpc.ai.auth.oauth.redact``). Besides these, any
#: field named like a token or a secret (``…_token``, ``…Token``, ``…_secret``, ``…Secret``) is.
TOKEN_FIELDS = (
    "access_token",
    "refresh_token",
    "id_token",
    "api_key",
    "apiKey",
    "token",
    "access",
    "refresh",
)
_TOKEN_LIKE_NAME = r"[A-Za-z0-9_]*(?:_token|Token|_secret|Secret)"


@functools.cache
def _field_patterns(fields: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The JSON (``"field": "…"``, also cut off before its closing quote) and form
    (``field=…``) patterns of ``fields``' values."""
    names = "|".join([*map(re.escape, fields), _TOKEN_LIKE_NAME])
    return (
        re.compile(rf'("(?:{names})"\s*:\s*)"(?:[^"\\]|\\.)*(?:"|\\?\Z)'),
        re.compile(rf"((?:^|[?&\s;])(?:{names})=)[^&\s;]+"),
    )


def redact_tokens(text: str, secrets: Iterable[object] = (), fields: tuple[str, ...] = TOKEN_FIELDS) -> str:
    """``text`` without token values: each of ``secrets`` wherever it occurs, and the values of
    ``fields`` and of token-named fields (JSON ``"access_token": "…"`` or ``"accessToken": "…``
    even when the text ends inside the value, form ``refresh_token=…``)."""
    for secret in secrets:
        if isinstance(secret, str) and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    json_value, form_value = _field_patterns(fields)
    text = json_value.sub(lambda m: f'{m.group(1)}"{REDACTED}"', text)
    return form_value.sub(lambda m: f"{m.group(1)}{REDACTED}", text)


# A run of token characters (JWTs, ``sk-…`` keys, base64, Copilot's ``tid=…;exp=…;…:sig``).
_TOKEN_RUN = re.compile(r"[A-Za-z0-9._~+/=;:-]{16,}")
# Fields of a token answer that never carry a token, whatever their value looks like.
_PLAIN_FIELDS = frozenset(
    ("error", "error_description", "error_uri", "message", "type", "token_type", "scope", "status", "expires_in")
)


def _looks_like_token(text: str) -> bool:
    """Long, no spaces, letters and digits, and not a URL or a dotted name with a path."""
    if _TOKEN_RUN.fullmatch(text) is None or "://" in text or ("." in text and "/" in text):
        return False
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _token_values(value: object, key: str | None = None) -> list[str]:
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _token_values(v, str(k))]
    if isinstance(value, list):
        return [t for v in value for t in _token_values(v, key)]
    if isinstance(value, str) and key not in _PLAIN_FIELDS and _looks_like_token(value):
        return [value]
    return []


def redact_answer(text: str, secrets: Iterable[object] = ()) -> str:
    """A token endpoint's answer as an error may quote it: ``redact_tokens``, and besides the
    token-named fields every token-looking value, since an answer of an unknown shape
    (``{"data": {"credential": "…"}}``) or one that does not parse (cut off mid-string) names
    its tokens in ways no list of field names covers."""
    import json

    redacted = redact_tokens(text, secrets)
    try:
        values = _token_values(json.loads(text))
    except ValueError:
        values = [run for run in _TOKEN_RUN.findall(redacted) if _looks_like_token(run)]
    for value in sorted(set(values), key=len, reverse=True):
        redacted = redacted.replace(value, REDACTED)
        escaped = json.dumps(value)[1:-1]
        if escaped != value:
            redacted = redacted.replace(escaped, REDACTED)
    return redacted


def _cause_detail(cause: BaseException | None) -> str:
    if cause is None:
        return ""
    from pi_rpc.ai.auth.oauth.base import js_error_name, js_error_text

    text = js_error_text(cause) or js_error_name(cause)
    return text.strip()


def pending_credential_writes() -> int:
    """How many refreshes have started and not yet written their result."""
    return _pending


def expires_within(credential: Credential, min_validity_ms: int | None = None) -> bool:
    """Whether ``credential`` is due for a refresh: ``Date.now() + max(5 min, min) >= expires``."""
    from pi_rpc.ai.auth.oauth.base import now_ms

    minimum = max(DEFAULT_MIN_VALIDITY_MS, min_validity_ms or 0)
    expires = credential.get("expires")
    if not isinstance(expires, (int, float)) or isinstance(expires, bool):
        return True  # NaN comparisons are false upstream; a non-number never satisfies ``>=``
    return now_ms() + minimum >= expires


async def refresh_stored_credential(
    store: AuthStore,
    provider: OAuthProvider,
    needs_refresh: Callable[[Credential], bool],
    signal: AbortSignal | None = None,
) -> Credential | None:
    """``refreshStoredOAuthCredential``: under the lock, re-read ``provider``'s entry and
    refresh it when ``needs_refresh`` still says so; the entry stored afterwards, or ``None``
    when it is no longer an OAuth credential. Raises ``OAuthError``; an abort while waiting
    for the lock raises ``AbortedError``."""
    import anyio

    from pi_rpc.ai.errors import AbortedError

    async def change(current: Credential | None) -> Credential | None:
        global _pending
        if signal is not None and signal.aborted:
            from pi_rpc.ai.errors import FETCH_ABORTED

            raise AbortedError(FETCH_ABORTED)
        if current is None or current.get("type") != "oauth":
            return None  # logged out meanwhile
        if not needs_refresh(current):
            return None  # another process or request refreshed
        _pending += 1
        try:
            # Shielded: a started refresh may have rotated the refresh token; losing its
            # answer would lose the only valid token.
            with anyio.CancelScope(shield=True):
                try:
                    refreshed = await provider.refresh(current, REFRESH_TIMEOUT_S)
                except Exception as exc:  # noqa: BLE001 - every failure is upstream's ModelsError
                    secrets = (current.get("access"), current.get("refresh"))
                    raise OAuthError("oauth", f"OAuth refresh failed for {provider.id}", exc, secrets) from None
            return refreshed
        finally:
            _pending -= 1

    try:
        # Once ``change`` has returned, the rest of ``modify`` (write, unlock) has no await.
        post = await store.modify(provider.id, change, signal=signal)
    except (OAuthError, AbortedError):
        raise
    except Exception as exc:  # noqa: BLE001 - a lock or file failure: upstream's "auth" error
        raise OAuthError("auth", f"Credential store modify failed for {provider.id}", exc) from None
    return post if isinstance(post, dict) and post.get("type") == "oauth" else None


async def resolve_stored_oauth(
    store: AuthStore,
    provider: OAuthProvider,
    stored: Credential,
    *,
    signal: AbortSignal | None = None,
    min_validity_ms: int | None = None,
) -> Credential | None:
    """``resolveStoredOAuth``: ``stored`` as it is when it is valid for more than
    ``max(5 min, min_validity_ms)``, else the refreshed credential (``None``: logged out
    meanwhile). With an explicit ``min_validity_ms`` (``pi auth print-bearer-token
    --min-expiry``) a refreshed token that still expires too soon is an error."""

    def expires_soon(credential: Credential) -> bool:
        return expires_within(credential, min_validity_ms)

    credential = stored
    if expires_soon(credential):
        post = await refresh_stored_credential(store, provider, expires_soon, signal)
        if post is None:
            return None
        credential = post
        if min_validity_ms is not None and expires_soon(credential):
            raise OAuthError("oauth", f"OAuth refresh returned a token that expires too soon for {provider.id}")
    return credential


def to_auth(provider: OAuthProvider, credential: Credential) -> Any:
    """``toAuth`` with upstream's error (``OAuth auth derivation failed for <id>``)."""
    try:
        return provider.to_auth(credential)
    except Exception as exc:  # noqa: BLE001 - upstream wraps every derivation failure
        raise OAuthError("oauth", f"OAuth auth derivation failed for {provider.id}", exc) from None


async def to_auth_async(provider: OAuthProvider, credential: Credential) -> Any:
    """``to_auth`` for a provider whose ``toAuth`` may answer later (an extension's
    ``getApiKey`` running in Node), with the same error."""
    import inspect

    auth = to_auth(provider, credential)
    if inspect.isawaitable(auth):
        try:
            auth = await auth
        except Exception as exc:  # noqa: BLE001 - upstream wraps every derivation failure
            raise OAuthError("oauth", f"OAuth auth derivation failed for {provider.id}", exc) from None
    return auth
