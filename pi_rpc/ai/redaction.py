"""The credentials one model request carries, collected so that no error text that flows back
from it quotes them (issue #31 item 4; upstream quotes whatever the provider answered).

``stream.stream`` gives every request a ``RequestSecrets`` (``StreamOptions.secrets``) seeded
with the API key and every value of the request's configured headers (the credential's own
headers such as ``ANTHROPIC_AUTH_TOKEN``'s ``Authorization``, and models.json ``headers``,
literal, ``$VAR`` or ``!command``: pi cannot tell which of them are secret). Whatever a provider
adds on its way to the network is added where the request is sent (``http.open_stream``, the
Bedrock and Codex senders): each value of a credential-carrying header (``Authorization``,
``x-api-key``, ``cf-aig-authorization``, ``x-amz-security-token``, …: a Copilot token, a Vertex
ADC token, a Bedrock bearer, a Cloudflare gateway key). ``stream.stream`` then redacts the
terminal error's ``errorMessage`` and ``diagnostics`` with them, whichever provider produced it.

A value is matched as it was sent, JSON-escaped and URL-encoded, and for a scheme value
(``Bearer <token>``, ``Basic <…>``) also the part after the scheme, since an echo may quote
only the token. Values shorter than ``MIN_SECRET_CHARS`` are not secrets worth cutting out of
a message (they would cut common words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 6

# Header names whose value is a credential wherever a provider sets them.
_CREDENTIAL_HEADERS = frozenset(
    (
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cf-aig-authorization",
        "x-amz-security-token",
        "cookie",
    )
)
# Any other header whose name says it carries one (``x-foo-token``, ``X-Client-Secret``).
_CREDENTIAL_NAME = re.compile(r"key|token|secret|passw|auth|cookie|credential", re.IGNORECASE)
_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s+(\S.*?)\s*$")


def is_credential_header(name: str) -> bool:
    lower = name.lower()
    return lower in _CREDENTIAL_HEADERS or _CREDENTIAL_NAME.search(lower) is not None


class RequestSecrets:
    """The credential values of one request (see the module docstring); ``redact`` cuts every
    one of them out of a text."""

    __slots__ = ("_pattern", "_values")

    def __init__(self, values: Iterable[object] = ()) -> None:
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        for value in values:
            self.add(value)

    @classmethod
    def for_request(cls, api_key: str | None, headers: Mapping[str, object] | None) -> RequestSecrets:
        """The key and every configured header value of a request about to be made."""
        secrets = cls((api_key,))
        secrets.add_headers(headers or {}, every=True)
        return secrets

    def __bool__(self) -> bool:
        return bool(self._values)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def add(self, value: object) -> None:
        """``value`` (a key, a token, a header value) and its scheme-less part."""
        if not isinstance(value, str):
            return
        forms = [value.strip()]
        scheme = _SCHEME.match(value)
        if scheme is not None:
            forms.append(scheme.group(2))
        for form in forms:
            if len(form) < MIN_SECRET_CHARS:
                continue
            for variant in (form, _json_escaped(form), quote(form, safe="")):
                if variant not in self._values:
                    self._values.add(variant)
                    self._pattern = None

    def add_headers(self, headers: Mapping[str, object], *, every: bool = False) -> None:
        """The values of ``headers`` that carry credentials (all of them with ``every``)."""
        for name, value in headers.items():
            if every or is_credential_header(str(name)):
                self.add(value)

    def redact(self, text: str) -> str:
        if not self._values or not text:
            return text
        if self._pattern is None:
            # Longest first: a token inside its own ``Bearer …`` form goes with the whole.
            ordered = sorted(self._values, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(v) for v in ordered))
        return self._pattern.sub(REDACTED, text)

    def redact_value(self, value: object) -> object:
        """``value`` with every string in it (dict values and keys, list items) redacted."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, dict):
            return {self.redact(k) if isinstance(k, str) else k: self.redact_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.redact_value(v) for v in value]
        return value


def _json_escaped(text: str) -> str:
    from pi_rpc.ai.jsjson import stringify

    return stringify(text).decode()[1:-1]


def redact_error_message(message: dict[str, object], secrets: RequestSecrets | None) -> None:
    """Cut ``secrets`` out of a failed reply's ``errorMessage`` and ``diagnostics`` in place
    (keeping a server-requested retry delay attached to the message)."""
    if not secrets:
        return
    from pi_rpc.ai.errors import retry_hint_ms, set_retry_hint

    text = message.get("errorMessage")
    if isinstance(text, str):
        clean = secrets.redact(text)
        if clean != text:
            hint = retry_hint_ms(message)
            message["errorMessage"] = clean
            if hint is not None:
                set_retry_hint(message, hint)
    diagnostics = message.get("diagnostics")
    if isinstance(diagnostics, list):
        message["diagnostics"] = secrets.redact_value(diagnostics)
