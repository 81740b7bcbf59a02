"""The HTTP requests of the login flows: JSON or form posts made as upstream's ``fetch`` makes
them (``pi_rpc.ai.auth.oauth.base.http_request``: undici's default headers, the proxy
variables honoured, ``URLSearchParams`` / ``JSON.stringify`` bodies), answers parsed as JSON
objects. A request that gets no answer is a ``LoginError`` naming the URL, never a body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from pi_rpc.ai.auth.errors import LoginError


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


async def post(
    url: str, *, form: Mapping[str, str] | None = None, json: object = None, timeout_s: float = 30.0
) -> Answer:
    from pi_rpc.ai.auth.oauth.base import FetchError, form_body, http_request, json_body

    headers = {"Accept": "application/json"}
    if form is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        body = form_body(form)
    else:
        headers["Content-Type"] = "application/json"
        body = json_body(json)
    try:
        reply = await http_request("POST", url, headers=headers, body=body, timeout_s=timeout_s)
    except FetchError as exc:
        raise LoginError(f"Request to {url} failed: {exc}") from None
    return Answer(reply.status, reply.text)
