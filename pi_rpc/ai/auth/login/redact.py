"""Token redaction for error texts that quote an endpoint's answer: upstream's refresh and
login errors include the response body verbatim, so a token an endpoint echoes would reach
stdout and session files; pi_rpc replaces every token-bearing JSON/form value with
``[redacted]`` (issue #21 item 8)."""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"
_SECRET_FIELDS = (
    "access_token|refresh_token|id_token|api_key|apiKey|key|token|access|refresh|device_code|code|code_verifier|"
    "client_secret|password"
)
_JSON_VALUE = re.compile(rf'("(?:{_SECRET_FIELDS})"\s*:\s*)"(?:[^"\\]|\\.)*"')
_FORM_VALUE = re.compile(rf"((?:^|[?&\s;])(?:{_SECRET_FIELDS})=)[^&\s;]+")
_BEARER = re.compile(r"(Bearer\s+)[A-Za-z0-9._~+/=-]+", re.IGNORECASE)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with token values (JSON fields, form fields, bearer tokens, and any of
    ``secrets`` wherever they occur) replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    text = _JSON_VALUE.sub(lambda m: f'{m.group(1)}"{REDACTED}"', text)
    text = _FORM_VALUE.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    return _BEARER.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
