"""The JavaScript behaviours the OAuth requests of every provider module must reproduce byte for
byte (the provider object and its types are ``pi_rpc.ai.auth.types``): ``fetch`` (``http_request``: undici's default headers, the
proxy variables, a deadline), ``URLSearchParams`` bodies (``form_body``), ``JSON.stringify``
bodies, ``atob``/JWT payload decoding, ``Date.now()``.

Errors keep upstream's texts: a network failure is ``FetchError`` (``TypeError: fetch failed``
as undici throws it), a deadline is ``FetchError`` with ``TimeoutError`` (``AbortSignal.timeout``).
Nothing here logs a request or a response: bodies carry tokens.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

#: ``JavaScript``'s ``Number.MAX_SAFE_INTEGER`` (OpenRouter's "never expires").
MAX_SAFE_INTEGER = 2**53 - 1

# undici's fetch adds these to every request that does not set them (Node 22, checked against upstream).
_UNDICI_DEFAULTS = (
    ("accept", "*/*"),
    ("accept-language", "*"),
    ("sec-fetch-mode", "cors"),
    ("user-agent", "undici"),
    ("accept-encoding", "gzip, deflate"),
)
_TIMEOUT_TEXT = "The operation was aborted due to timeout"


def now_ms() -> int:
    """``Date.now()``."""
    return int(time.time() * 1000)


class FetchError(Exception):
    """A request that got no HTTP answer, as JavaScript names it (``TypeError: fetch failed``,
    ``TimeoutError: The operation was aborted due to timeout``)."""

    def __init__(self, name: str, message: str, cause: str | None = None) -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.cause = cause


@dataclass
class Response:
    """An HTTP answer, read whole (``fetch`` + ``response.text()``)."""

    status: int
    status_text: str
    headers: dict[str, str]
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def json(self) -> object:
        """``response.json()``: raises ``ValueError`` (V8's ``SyntaxError``) on bad JSON."""
        return json.loads(self.text)


def js_error_text(exc: BaseException) -> str:
    """``error.message`` as a JavaScript ``catch`` sees it."""
    if isinstance(exc, FetchError):
        return exc.message
    if isinstance(exc, json.JSONDecodeError):
        return f"Unexpected token in JSON at position {exc.pos}"
    return str(exc)


def js_error_name(exc: BaseException) -> str:
    if isinstance(exc, FetchError):
        return exc.name
    if isinstance(exc, (json.JSONDecodeError, ValueError)):
        return "SyntaxError"
    return "Error"


def form_body(params: Mapping[str, str]) -> bytes:
    """``new URLSearchParams(params).toString()``: the application/x-www-form-urlencoded
    serializer (space as ``+``; only ``*-._`` and alphanumerics left as they are)."""

    def encode(text: str) -> str:
        out = []
        for byte in text.encode("utf-8"):
            char = chr(byte)
            if char.isascii() and (char.isalnum() or char in "*-._"):
                out.append(char)
            elif char == " ":
                out.append("+")
            else:
                out.append(f"%{byte:02X}")
        return "".join(out)

    return "&".join(f"{encode(k)}={encode(v)}" for k, v in params.items()).encode("ascii")


def json_body(value: object) -> bytes:
    """``JSON.stringify(value)``."""
    from pi_rpc.ai.jsjson import stringify

    return stringify(value)


_BASE64_CHARS = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def atob(text: str) -> str:
    """``atob``: forgiving base64 (whitespace dropped, padding optional, ``-``/``_`` refused),
    the bytes as a latin-1 string. Raises ``ValueError`` as ``atob`` throws."""
    data = re.sub(r"[\t\n\f\r ]", "", text)
    if len(data) % 4 == 0 and data.endswith("="):
        data = data[:-2] if data.endswith("==") else data[:-1]
    if len(data) % 4 == 1 or not _BASE64_CHARS.match(data) or "=" in data:
        raise ValueError("The string to be decoded is not correctly encoded.")
    try:
        return base64.b64decode(data + "=" * (-len(data) % 4)).decode("latin-1")
    except binascii.Error as exc:
        raise ValueError("The string to be decoded is not correctly encoded.") from exc


def decode_jwt_payload(token: str) -> object:
    """A JWT's payload as upstream decodes it (``atob`` of the middle part, ``JSON.parse``),
    ``None`` when that fails."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        return json.loads(atob(parts[1]))
    except ValueError:
        return None


async def http_request(
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    timeout_s: float,
) -> Response:
    """``fetch(url, {method, headers, body, signal: AbortSignal.timeout(...)})`` and the body
    read as text, with the proxy variables honoured (upstream's ``EnvHttpProxyAgent``). Raises
    ``FetchError`` when there is no answer (timeout included)."""
    import anyio

    from pi_rpc.ai.http import make_client

    sent: dict[str, str] = {}
    given = {k.lower() for k in (headers or {})}
    for name, value in (headers or {}).items():
        sent[name] = value
    if body is not None and "content-type" not in given:
        sent["Content-Type"] = "text/plain;charset=UTF-8"
    for name, value in _UNDICI_DEFAULTS:
        if name not in given:
            sent[name] = value
    try:
        with anyio.fail_after(timeout_s):
            async with make_client(timeout_s, url) as client:
                reply = await client.request(method, url, headers=sent, content=body)
                text = reply.content.decode("utf-8", errors="replace")
    except TimeoutError:
        raise FetchError("TimeoutError", _TIMEOUT_TEXT) from None
    except Exception as exc:  # noqa: BLE001 - every transport failure is fetch's TypeError
        import httpx

        if isinstance(exc, httpx.TimeoutException):
            raise FetchError("TimeoutError", _TIMEOUT_TEXT) from None
        if isinstance(exc, httpx.HTTPError):
            raise FetchError("TypeError", "fetch failed", cause=type(exc).__name__) from None
        raise
    return Response(reply.status_code, reply.reason_phrase, dict(reply.headers), text)
