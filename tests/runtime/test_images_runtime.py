"""Prompt images and ``images.*`` settings through the REAL RPC subprocess (upstream 1.6
AgentSession._normalizePromptImages / _normalizeQueuedMessageImages, sdk.ts blockImages):
attachments are normalized like read-tool images (hints appended to the text), queued ones on
delivery; ``images.blockImages`` replaces images in the request body only."""

from __future__ import annotations

import base64
import io
import json
import threading
from pathlib import Path
from typing import Any

from PIL import Image

from .test_openai_http import _models_json, _Server

NOTE_4000 = (
    "[Image: original 4000x3000, displayed at 2000x1500. Multiply coordinates by 2.00 to map to original image.]"
)


def _png(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), (10, 120, 200))
    for x in range(0, width, 200):
        image.paste((x % 255, 40, 90), (x, 0, x + 100, height))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _image_block(raw: bytes) -> dict[str, Any]:
    return {"type": "image", "data": base64.b64encode(raw).decode(), "mimeType": "image/png"}


def _size(block: dict[str, Any]) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(block["data"]))).size


def _session_users(p: Any) -> list[dict[str, Any]]:
    path = Path(p.ok("get_state")["sessionFile"])
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "user"]


def test_prompt_images_are_resized_and_the_note_joins_the_text(pi):
    p = pi(script=[{"text": "I see it"}])
    p.cmd("prompt", message="look", images=[_image_block(_png(4000, 3000))])
    p.settle()
    started = p.wait_for(lambda r: r["type"] == "message_start" and r["message"]["role"] == "user")
    for user in (started["message"], p.ok("get_messages")["messages"][1], _session_users(p)[0]):
        text, image = user["content"]
        assert text == {"type": "text", "text": f"look\n\n{NOTE_4000}"}
        assert image["mimeType"] == "image/png" and _size(image) == (2000, 1500)


def test_auto_resize_off_keeps_prompt_images_as_sent(pi):
    p = pi(script=[{"text": "ok"}], settings={"images": {"autoResize": False}})
    block = _image_block(_png(4000, 3000))
    p.cmd("prompt", message="look", images=[block])
    p.settle()
    assert _session_users(p)[0]["content"] == [{"type": "text", "text": "look"}, block]


def test_undecodable_prompt_image_is_dropped_with_upstreams_note(pi):
    p = pi(script=[{"text": "ok"}])
    p.cmd("prompt", message="look", images=[{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
    p.settle()
    assert _session_users(p)[0]["content"] == [
        {
            "type": "text",
            "text": "look\n\n[Image omitted: could not be resized below the inline image size limit.]",
        }
    ]


def test_steered_images_are_normalized_on_delivery(pi_process):
    # A real process: in-process, encoding the 4000x3000 steer here competes with the run for
    # one interpreter lock and the run may end before the steer lands.
    pi = pi_process
    # The reply streams for ~2 s so the steer (a big image to encode and send) lands during the
    # run even on a loaded machine.
    p = pi(
        script=[
            {"text": "slow reply that takes a while " * 4, "delayMs": 50, "chunkChars": 3},
            {"text": "answer to steer"},
        ]
    )
    p.cmd("prompt", message="start")
    p.wait_for(lambda r: r["type"] == "message_update")
    p.ok("steer", message="steer me", images=[_image_block(_png(4000, 3000))])
    p.settle(timeout=20)
    # The queue still shows the text as typed; the delivered message carries the note.
    assert {"type": "queue_update", "steering": ["steer me"], "followUp": []} in p.records
    assert p.ok("get_state")["pendingMessageCount"] == 0
    delivered = [r["message"] for r in p.records if r["type"] == "message_end" and r["message"]["role"] == "user"][1]
    assert delivered["content"][0] == {"type": "text", "text": f"steer me\n\n{NOTE_4000}"}
    assert _size(delivered["content"][1]) == (2000, 1500)
    assert _session_users(p)[1] == delivered


def _run_image_conversation(pi: Any, block_images: bool) -> tuple[Any, list[dict[str, Any]]]:
    server = _Server(
        [
            {"text": "Reading.", "tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "pic.png"}}]},
            {"text": "Done."},
        ]
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        models = _models_json(server.server_address[1])
        models["providers"]["fake"]["models"][0]["input"] = ["text", "image"]
        settings: dict[str, Any] = {"defaultProvider": "fake", "defaultModel": "fake-model"}
        if block_images:
            settings["images"] = {"blockImages": True}
        p = pi(models=models, settings=settings)
        (p.cwd / "pic.png").write_bytes(_png(40, 30))
        small = _image_block(_png(20, 10))
        p.cmd("prompt", message="look", images=[small, small])
        p.settle(timeout=20)
        return p, [r["body"] for r in server.requests]
    finally:
        server.shutdown()
        server.server_close()


def test_block_images_replaces_images_in_requests_only(pi):
    p, bodies = _run_image_conversation(pi, block_images=True)
    assert len(bodies) == 2
    assert all("image_url" not in json.dumps(body) for body in bodies)
    disabled = {"type": "text", "text": "Image reading is disabled."}
    assert bodies[0]["messages"][1] == {"role": "user", "content": [{"type": "text", "text": "look"}, disabled]}
    tool = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert tool == [
        {"role": "tool", "content": "Read image file [image/png]\nImage reading is disabled.", "tool_call_id": "call_1"}
    ]
    # What the session keeps is untouched: both prompt images and the read result's image.
    messages = p.ok("get_messages")["messages"]
    user = next(m for m in messages if m["role"] == "user")
    assert [b["type"] for b in user["content"]] == ["text", "image", "image"]
    result = next(m for m in messages if m["role"] == "toolResult")
    assert [b["type"] for b in result["content"]] == ["text", "image"]
    assert [b["type"] for b in _session_users(p)[0]["content"]] == ["text", "image", "image"]


def test_without_block_images_the_same_requests_carry_the_images(pi):
    _, bodies = _run_image_conversation(pi, block_images=False)
    first_user = bodies[0]["messages"][1]["content"]
    assert [part["type"] for part in first_user] == ["text", "image_url", "image_url"]
    assert any(
        m["role"] == "user" and m["content"][0] == {"type": "text", "text": "Attached image(s) from tool result:"}
        for m in bodies[1]["messages"]
        if isinstance(m["content"], list)
    )
