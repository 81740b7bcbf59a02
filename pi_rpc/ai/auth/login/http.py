"""The HTTP requests of the login flows: JSON or form posts through ``pi_rpc.ai.http``'s
client (proxy settings and CA bundle from the environment, as upstream's undici
``EnvHttpProxyAgent``), answers parsed as JSON objects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from pi_rpc.ai.auth.login import LoginError
from pi_rpc.ai.auth.login.redact import redact


class Answer:
    def __init__(self, status: int, text: str) -> None:
        self.status = status
        self.ok = 200 <= status < 300
        self.text = text
        try:
            parsed = orjson.loads(text) if text else None
        except orjson.JSONDecodeError:
            parsed = None
        self.json_ok = isinstance(parsed, dict)
        self.body: dict[str, Any] = parsed if isinstance(parsed, dict) else {}


async def post(url: str, *, form: Mapping[str, str] | None = None, json: Any = None, timeout_s: float = 30.0) -> Answer:
    import httpx

    from pi_rpc.ai.http import make_client

    headers = {"Accept": "application/json"}
    async with make_client(timeout_s, url) as client:
        try:
            if form is not None:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
                response = await client.post(url, data=dict(form), headers=headers)
            else:
                headers["Content-Type"] = "application/json"
                response = await client.post(url, content=orjson.dumps(json), headers=headers)
        except httpx.HTTPError as exc:  # network failures: the message names no secret
            raise LoginError(f"Request to {url} failed: {redact(str(exc))}") from None
    return Answer(response.status_code, response.text)
