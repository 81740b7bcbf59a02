"""ACP prompt images through the REAL ``--mode acp`` subprocess, sent as raw JSON-RPC (the SDK's
models would add ``type``): a block with ``data`` and ``mimeType`` but no ``type`` is an image,
as the RPC ``images`` entries are (issue 25); the image reaches a local 127.0.0.1
OpenAI-compatible server's request."""

from __future__ import annotations

import base64
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from acp.exceptions import RequestError
from PIL import Image

pytestmark = pytest.mark.anyio


def _png_b64(width: int, height: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (5, 200, 90)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _openai_stop_stream(text: str) -> bytes:
    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        body = {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(body)}\n\n"

    return (chunk({"role": "assistant", "content": text}, None) + chunk({}, "stop") + "data: [DONE]\n\n").encode()


async def test_a_block_without_type_is_an_image_that_reaches_the_model(acp_agent):
    bodies: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            bodies.append(json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0))))
            payload = _openai_stop_stream("A green picture.")
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        async with acp_agent("--model", "fake/fake-model") as run:
            (run.agent_dir / "models.json").write_text(
                json.dumps(
                    {
                        "providers": {
                            "fake": {
                                "baseUrl": f"http://127.0.0.1:{server.server_address[1]}/v1",
                                "api": "openai-completions",
                                "apiKey": "fake-key",
                                "models": [
                                    {
                                        "id": "fake-model",
                                        "name": "Fake",
                                        "input": ["text", "image"],
                                        "contextWindow": 128000,
                                        "maxTokens": 4096,
                                    }
                                ],
                            }
                        }
                    }
                )
            )
            await run.initialize()
            session = await run.new_session()
            result = await run.conn._conn.send_request(
                "session/prompt",
                {
                    "sessionId": session.session_id,
                    "prompt": [
                        {"type": "text", "text": "what is this?"},
                        {"data": _png_b64(20, 12), "mimeType": "image/png"},
                    ],
                },
            )
            assert result["stopReason"] == "end_turn"
            # A block without type and without the image fields is still refused.
            with pytest.raises(RequestError) as refused:
                await run.conn._conn.send_request(
                    "session/prompt", {"sessionId": session.session_id, "prompt": [{"data": "x"}]}
                )
            assert refused.value.code == -32602 and "prompt[0]: not a supported content block" in json.dumps(
                refused.value.data
            )
    finally:
        server.shutdown()
        server.server_close()
    assert len(bodies) == 1
    user = next(m for m in bodies[0]["messages"] if m["role"] == "user")
    assert user["content"][0] == {"type": "text", "text": "what is this?"}
    urls = [part["image_url"]["url"] for part in user["content"] if part["type"] == "image_url"]
    assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert image.size == (20, 12)
