"""Token redaction for error texts that quote an endpoint's answer: upstream's refresh and
login errors include the response body verbatim, so a token an endpoint echoes would reach
stdout and session files; pi_rpc replaces every token-bearing JSON/form value with
``[redacted]`` (issue #21 item 8). The machinery is the refresh errors' (``redact_tokens``);
a login answer also carries codes, verifiers, keys and passwords, and bearer headers."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pi_rpc.ai.auth.oauth.refresh import REDACTED, TOKEN_FIELDS, redact_tokens

_SECRET_FIELDS = (
    *TOKEN_FIELDS,
    "apiKey",
    "key",
    "device_code",
    "code",
    "code_verifier",
    "client_secret",
    "password",
)
_BEARER = re.compile(r"(Bearer\s+)[A-Za-z0-9._~+/=-]+", re.IGNORECASE)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with token values (JSON fields, form fields, bearer tokens, and any of
    ``secrets`` wherever they occur) replaced by ``[redacted]``."""
    text = redact_tokens(text, secrets, _SECRET_FIELDS)
    return _BEARER.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
