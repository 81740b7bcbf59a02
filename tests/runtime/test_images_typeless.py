"""Prompt images without ``type`` through the REAL RPC subprocess (issue 25): upstream 1.6 never
reads an attachment's ``type`` (``_normalizePromptImages`` rebuilds each as ``{type:"image",
data, mimeType}``), so ``{"data": ..., "mimeType": ...}`` is taken by ``prompt``, ``steer`` and
``follow_up`` and reaches the model as an image; what upstream cannot take (no ``data``, no
``mimeType``, another ``type``) is still refused with the field named."""

from __future__ import annotations

import base64
import io
import json
import threading
from typing import Any

from PIL import Image

from .test_openai_http import _Handler, _models_json, _Server


def _png_b64(width: int, height: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 60)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


class _GatedHandler(_Handler):
    """The first request waits for ``server.gate`` so commands can be queued during the run."""

    def do_POST(self) -> None:  # noqa: N802
        server: _GatedServer = self.server  # type: ignore[assignment]
        with server.lock:
            first = not server.seen_first
            server.seen_first = True
        if first:
            server.first_arrived.set()
            server.gate.wait(20)
        super().do_POST()


class _GatedServer(_Server):
    def __init__(self, turns: list[dict[str, Any]]) -> None:
        super().__init__(turns)
        self.RequestHandlerClass = _GatedHandler
        self.lock = threading.Lock()
        self.seen_first = False
        self.first_arrived = threading.Event()
        self.gate = threading.Event()


def _start(server: _Server) -> _Server:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _stop(server: _Server) -> None:
    server.shutdown()
    server.server_close()


def _image_urls(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [part["image_url"]["url"] for part in content if part.get("type") == "image_url"]


def _decoded_size(url: str) -> tuple[int, int]:
    prefix = "data:image/png;base64,"
    assert url.startswith(prefix), url[:40]
    return Image.open(io.BytesIO(base64.b64decode(url[len(prefix) :]))).size


def _image_model(port: int) -> dict[str, Any]:
    models = _models_json(port)
    models["providers"]["fake"]["models"][0]["input"] = ["text", "image"]
    return models


SETTINGS = {"defaultProvider": "fake", "defaultModel": "fake-model"}


def test_prompt_image_without_type_reaches_the_model(pi):
    server = _start(_Server([{"text": "A red picture."}]))
    try:
        p = pi(models=_image_model(server.server_address[1]), settings=SETTINGS)
        response = p.cmd(
            "prompt", message="what is this?", images=[{"data": _png_b64(24, 16), "mimeType": "image/png"}]
        )
        assert response["success"] is True, response
        p.settle(timeout=20)
        assert len(server.requests) == 1
        user = server.requests[0]["body"]["messages"][1]
        assert user["role"] == "user" and user["content"][0] == {"type": "text", "text": "what is this?"}
        urls = _image_urls(user)
        assert len(urls) == 1 and _decoded_size(urls[0]) == (24, 16)
        # The session (events, get_messages) keeps it as a typed image block.
        stored = next(m for m in p.ok("get_messages")["messages"] if m["role"] == "user")
        assert [block["type"] for block in stored["content"]] == ["text", "image"]
        assert stored["content"][1]["mimeType"] == "image/png"
    finally:
        _stop(server)


def test_steer_and_follow_up_images_without_type_reach_the_model(pi):
    server = _start(_GatedServer([{"text": "first"}, {"text": "after steer"}, {"text": "after follow-up"}]))
    try:
        p = pi(models=_image_model(server.server_address[1]), settings=SETTINGS)
        p.cmd("prompt", message="start")
        assert server.first_arrived.wait(20)  # type: ignore[attr-defined]
        assert p.ok("steer", message="steered", images=[{"data": _png_b64(30, 10), "mimeType": "image/png"}]) == {
            "disposition": "queued"
        }
        assert p.ok("follow_up", message="followed", images=[{"mimeType": "image/png", "data": _png_b64(12, 34)}]) == {
            "disposition": "queued"
        }
        server.gate.set()  # type: ignore[attr-defined]
        p.settle(timeout=30)
        assert len(server.requests) == 3
        users = [m for m in server.requests[2]["body"]["messages"] if m["role"] == "user"]
        by_text = {m["content"][0]["text"]: _image_urls(m) for m in users}
        assert [_decoded_size(u) for u in by_text["steered"]] == [(30, 10)]
        assert [_decoded_size(u) for u in by_text["followed"]] == [(12, 34)]
        delivered = [r["message"] for r in p.records if r["type"] == "message_end" and r["message"]["role"] == "user"]
        assert [[b["type"] for b in m["content"]] for m in delivered] == [
            ["text"],
            ["text", "image"],
            ["text", "image"],
        ]
    finally:
        _stop(server)


def test_what_upstream_cannot_take_is_still_refused(pi):
    p = pi(script=[{"text": "never"}])
    data = _png_b64(4, 4)
    cases = {
        "prompt": [{"mimeType": "image/png"}],
        "steer": [{"data": data}],
        "follow_up": [{"type": "text", "data": data, "mimeType": "image/png"}],
    }
    got = {ctype: p.cmd(ctype, message="x", images=images) for ctype, images in cases.items()}
    assert got["prompt"]["error"] == 'Invalid command "prompt": field "images[0].data": expected string, got undefined'
    assert (
        got["steer"]["error"] == 'Invalid command "steer": field "images[0].mimeType": expected string, got undefined'
    )
    assert (
        got["follow_up"]["error"]
        == 'Invalid command "follow_up": field "images[0].type": expected one of "image", got string'
    )
    assert p.ok("get_messages")["messages"] == []
    assert json.dumps(got).count('"success": false') == 3
