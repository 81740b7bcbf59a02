"""Image normalization (pi_rpc/tools/images.py) and the read tool's image results, on real
images made with Pillow. Texts and rules are upstream 1.6's (utils/image-process.js,
utils/image-resize-core.js, utils/image-resize.js, utils/mime.js, core/tools/read.js)."""

from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pi_rpc.agent.convert import IMAGES_DISABLED_TEXT, block_images
from pi_rpc.tools.images import (
    CONVERT_FAILED_MESSAGE,
    DEFAULT_MAX_BYTES,
    RESIZE_FAILED_MESSAGE,
    b64decode_lenient,
    detect_supported_image_mime,
    normalize_images,
    process_image,
)
from pi_rpc.tools.read import ReadTool

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parents[2]


def _encode(image: Image.Image, fmt: str, **kw: Any) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _blocks(width: int, height: int) -> Image.Image:
    """A flat, blocky picture: PNG compresses it far better than JPEG."""
    image = Image.new("RGB", (width, height), (10, 120, 200))
    for x in range(0, width, 200):
        for y in range(0, height, 150):
            image.paste((x % 255, y % 255, (x + y) % 255), (x, y, x + 100, y + 75))
    return image


def _noise(width: int, height: int) -> Image.Image:
    """Random pixels: PNG cannot compress them, JPEG size falls with quality."""
    return Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))


def _b64size(raw: bytes) -> int:
    return len(base64.b64encode(raw))


def _decoded(block: dict[str, Any]) -> Image.Image:
    image = Image.open(io.BytesIO(base64.b64decode(block["data"])))
    image.load()
    return image


def _note(ow: int, oh: int, w: int, h: int, scale: str) -> str:
    return (
        f"[Image: original {ow}x{oh}, displayed at {w}x{h}. Multiply coordinates by {scale} to map to original image.]"
    )


def _model_with_limits(max_bytes: int, **extra: Any) -> dict[str, Any]:
    resize = {"maxWidth": 2000, "maxHeight": 2000, "maxBytes": max_bytes, "jpegQuality": 80}
    return {"id": "m", "input": ["text", "image"], "inputLimits": {"images": {"resize": resize}}, **extra}


async def _read(tmp_path: Path, name: str, **kw: Any) -> dict[str, Any]:
    return await ReadTool(str(tmp_path), **kw).execute("c", {"path": name}, None, None)  # type: ignore[return-value]


# ---------------------------------------------------------------------- the read tool


async def test_large_png_is_resized_to_2000_with_the_dimension_note(tmp_path):
    (tmp_path / "big.png").write_bytes(_encode(_blocks(4000, 3000), "PNG"))
    result = await _read(tmp_path, "big.png")
    text, image = result["content"]
    assert image["mimeType"] == "image/png"  # PNG is the smaller encoding of this picture
    assert text == {"type": "text", "text": "Read image file [image/png]\n" + _note(4000, 3000, 2000, 1500, "2.00")}
    decoded = _decoded(image)
    assert decoded.size == (2000, 1500) and decoded.format == "PNG"
    assert len(image["data"]) < DEFAULT_MAX_BYTES
    assert "details" not in result


async def test_large_noisy_jpeg_becomes_a_smaller_jpeg(tmp_path):
    (tmp_path / "noise.jpg").write_bytes(_encode(_noise(2400, 1200), "JPEG", quality=95))
    result = await _read(tmp_path, "noise.jpg")
    text, image = result["content"]
    assert text["text"] == "Read image file [image/jpeg]\n" + _note(2400, 1200, 2000, 1000, "1.20")
    decoded = _decoded(image)
    assert decoded.format == "JPEG" and image["mimeType"] == "image/jpeg" and decoded.size == (2000, 1000)
    assert len(image["data"]) < DEFAULT_MAX_BYTES


async def test_small_png_is_sent_unchanged(tmp_path):
    raw = _encode(_blocks(64, 48), "PNG")
    (tmp_path / "small.png").write_bytes(raw)
    result = await _read(tmp_path, "small.png")
    assert result == {
        "content": [
            {"type": "text", "text": "Read image file [image/png]"},
            {"type": "image", "data": base64.b64encode(raw).decode(), "mimeType": "image/png"},
        ]
    }


async def test_gif_within_limits_keeps_its_type(tmp_path):
    raw = _encode(_blocks(40, 30).convert("P"), "GIF")
    (tmp_path / "a.gif").write_bytes(raw)
    result = await _read(tmp_path, "a.gif")
    assert result["content"][0]["text"] == "Read image file [image/gif]"
    assert result["content"][1] == {"type": "image", "data": base64.b64encode(raw).decode(), "mimeType": "image/gif"}


async def test_jpeg_quality_steps_down_when_neither_format_fits(tmp_path):
    image = _noise(800, 800)
    (tmp_path / "noise.png").write_bytes(_encode(image, "PNG"))
    q80, q85, q70 = (_encode(image, "JPEG", quality=q) for q in (80, 85, 70))
    assert _b64size(q70) < _b64size(q80) < _b64size(q85)
    limit = (_b64size(q70) + _b64size(q80)) // 2  # q80 (and q85, and PNG) too big, q70 fits
    result = await _read(tmp_path, "noise.png", get_model=lambda: _model_with_limits(limit))
    text, block = result["content"]
    # The size limit alone forced a re-encode: still a resize, at scale 1.
    assert text["text"] == "Read image file [image/jpeg]\n" + _note(800, 800, 800, 800, "1.00")
    decoded = _decoded(block)
    assert block["mimeType"] == "image/jpeg" and decoded.size == (800, 800)
    assert len(block["data"]) < limit
    reference = Image.open(io.BytesIO(q70))
    assert decoded.quantization == reference.quantization  # type: ignore[attr-defined]


async def test_dimensions_shrink_by_three_quarters_when_no_quality_fits(tmp_path):
    image = _noise(800, 800)
    (tmp_path / "noise.png").write_bytes(_encode(image, "PNG"))
    smaller = image.resize((600, 600), Image.Resampling.LANCZOS)
    limit = _b64size(_encode(smaller, "JPEG", quality=40)) + 1  # only q40 at 600x600 fits
    result = await _read(tmp_path, "noise.png", get_model=lambda: _model_with_limits(limit))
    text, block = result["content"]
    assert text["text"] == "Read image file [image/jpeg]\n" + _note(800, 800, 600, 600, "1.33")
    assert _decoded(block).size == (600, 600) and len(block["data"]) < limit


async def test_image_that_never_fits_is_omitted(tmp_path):
    (tmp_path / "noise.png").write_bytes(_encode(_noise(64, 64), "PNG"))
    result = await _read(tmp_path, "noise.png", get_model=lambda: _model_with_limits(40))  # not even 1x1 fits
    assert result == {"content": [{"type": "text", "text": f"Read image file [image/png]\n{RESIZE_FAILED_MESSAGE}"}]}


async def test_corrupt_image_is_omitted_with_upstreams_note(tmp_path):
    good = _encode(_blocks(300, 200), "PNG")
    corrupt = good[:40] + b"\x00garbage" * 50  # signature and IHDR intact, pixel data broken
    (tmp_path / "bad.png").write_bytes(corrupt)
    result = await _read(tmp_path, "bad.png")
    assert result == {"content": [{"type": "text", "text": f"Read image file [image/png]\n{RESIZE_FAILED_MESSAGE}"}]}
    # Without auto-resize nothing is decoded: upstream sends the bytes as they are.
    result = await _read(tmp_path, "bad.png", auto_resize_images=False)
    assert result["content"] == [
        {"type": "text", "text": "Read image file [image/png]"},
        {"type": "image", "data": base64.b64encode(corrupt).decode(), "mimeType": "image/png"},
    ]


async def test_auto_resize_off_sends_a_large_image_unchanged(tmp_path):
    raw = _encode(_blocks(4000, 3000), "PNG")
    (tmp_path / "big.png").write_bytes(raw)
    result = await _read(tmp_path, "big.png", auto_resize_images=False)
    assert result["content"][0]["text"] == "Read image file [image/png]"
    assert result["content"][1]["data"] == base64.b64encode(raw).decode()


async def test_bmp_is_converted_to_png(tmp_path):
    picture = _blocks(30, 20)
    (tmp_path / "pic.bmp").write_bytes(_encode(picture, "BMP"))
    for kw in ({}, {"auto_resize_images": False}):
        result = await _read(tmp_path, "pic.bmp", **kw)
        text, block = result["content"]
        assert text["text"] == "Read image file [image/png]\n[Image converted from image/bmp to image/png.]"
        decoded = _decoded(block)
        assert block["mimeType"] == "image/png" and decoded.format == "PNG"
        assert decoded.convert("RGB").tobytes() == picture.tobytes()


async def test_scale_is_rounded_like_javascript_to_fixed(tmp_path):
    # 2250/2000 = 1.125 exactly: toFixed(2) rounds it up, Python's format would give 1.12.
    (tmp_path / "wide.png").write_bytes(_encode(_blocks(2250, 1000), "PNG"))
    text = (await _read(tmp_path, "wide.png"))["content"][0]["text"]
    assert text.endswith(_note(2250, 1000, 2000, 889, "1.13"))


async def test_exif_orientation_is_applied_before_resizing(tmp_path):
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    (tmp_path / "rot.jpg").write_bytes(_encode(_blocks(3000, 1000), "JPEG", exif=exif.tobytes()))
    text, block = (await _read(tmp_path, "rot.jpg"))["content"]
    assert text["text"].endswith(_note(1000, 3000, 667, 2000, "1.50"))
    assert _decoded(block).size == (667, 2000)


async def test_text_only_model_is_named_in_details(tmp_path):
    (tmp_path / "small.png").write_bytes(_encode(_blocks(10, 10), "PNG"))
    model = {"id": "text-only", "input": ["text"]}
    result = await _read(tmp_path, "small.png", get_model=lambda: model)
    assert result["details"] == {"imageUnsupportedByModel": "text-only"}
    assert result["content"][1]["type"] == "image"


async def test_files_upstream_does_not_sniff_as_images_are_read_as_text(tmp_path):
    (tmp_path / "fake.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    result = await _read(tmp_path, "fake.png")
    assert [b["type"] for b in result["content"]] == ["text"]
    assert result["content"][0]["text"].endswith("not really")


# ---------------------------------------------------------------------- sniffing and helpers


def test_detect_supported_image_mime():
    png = _encode(_blocks(4, 4), "PNG")
    assert detect_supported_image_mime(png) == "image/png"
    assert detect_supported_image_mime(_encode(_blocks(4, 4), "JPEG")) == "image/jpeg"
    assert detect_supported_image_mime(b"\xff\xd8\xff\xf7" + b"\0" * 20) is None  # JPEG-LS
    assert detect_supported_image_mime(_encode(_blocks(4, 4), "WEBP")) == "image/webp"
    assert detect_supported_image_mime(_encode(_blocks(4, 4), "BMP")) == "image/bmp"
    assert detect_supported_image_mime(b"BM" + b"\0" * 40) is None
    frames = [_blocks(4, 4), Image.new("RGB", (4, 4))]
    apng = _encode(frames[0], "PNG", save_all=True, append_images=frames[1:])
    assert b"acTL" in apng and detect_supported_image_mime(apng) is None


def test_b64decode_is_as_lenient_as_node():
    raw = bytes(range(256))
    encoded = base64.b64encode(raw).decode()
    assert b64decode_lenient(encoded) == raw
    assert b64decode_lenient(encoded.rstrip("=")) == raw
    assert b64decode_lenient("\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))) == raw
    assert b64decode_lenient(base64.urlsafe_b64encode(raw).decode()) == raw


def test_normalize_images_for_prompts():
    png = _encode(_blocks(4000, 3000), "PNG")
    jpeg = _encode(_blocks(20, 20), "JPEG")
    images = [
        {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"},
        {"type": "image", "data": base64.b64encode(jpeg).decode(), "mimeType": "image/jpg"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "image", "data": "AAAA", "mimeType": "image/x-unknown"},
    ]
    out, hints = normalize_images(images)
    assert [b["mimeType"] for b in out] == ["image/png", "image/jpeg"]
    assert _decoded(out[0]).size == (2000, 1500)
    assert out[1]["data"] == base64.b64encode(jpeg).decode()
    assert hints == [_note(4000, 3000, 2000, 1500, "2.00"), RESIZE_FAILED_MESSAGE, CONVERT_FAILED_MESSAGE]
    # Without auto-resize inline types are only renamed, never decoded.
    out, hints = normalize_images(images[1:3], auto_resize=False)
    assert [b["mimeType"] for b in out] == ["image/jpeg", "image/png"] and hints == []


def test_process_image_keeps_alpha_in_png():
    image = Image.new("RGBA", (3000, 100), (255, 0, 0, 0))
    processed = process_image(_encode(image, "PNG"), "image/png")
    assert processed.ok and processed.mime_type == "image/png"
    decoded = _decoded({"data": processed.data})
    assert decoded.mode == "RGBA" and decoded.size == (2000, 67)


def test_block_images_replaces_and_dedupes_without_touching_the_transcript():
    img = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    user = {
        "role": "user",
        "content": [{"type": "text", "text": "look"}, img, img, {"type": "text", "text": "x"}, img],
        "timestamp": 1,
    }
    tool = {
        "role": "toolResult",
        "toolCallId": "c",
        "toolName": "read",
        "isError": False,
        "timestamp": 2,
        "content": [{"type": "text", "text": "Read image file [image/png]"}, img],
    }
    assistant = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    plain = {"role": "user", "content": "just text", "timestamp": 3}
    messages: list[Any] = [user, tool, assistant, plain]
    out = block_images(messages)
    disabled = {"type": "text", "text": IMAGES_DISABLED_TEXT}
    assert out[0]["content"] == [{"type": "text", "text": "look"}, disabled, {"type": "text", "text": "x"}, disabled]
    assert out[1]["content"] == [{"type": "text", "text": "Read image file [image/png]"}, disabled]
    assert out[2] is assistant and out[3] is plain
    assert user["content"][1] is img and tool["content"][1] is img  # the originals keep their images


def test_pillow_is_not_imported_until_an_image_is_decoded(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    small = _encode(_blocks(8, 8), "PNG")
    (tmp_path / "a.png").write_bytes(small)
    code = f"""
import sys, anyio
import pi_rpc.runtime.session, pi_rpc.modes.rpc
from pi_rpc.tools.read import ReadTool
from pi_rpc.tools.images import normalize_images
async def main():
    await ReadTool({str(tmp_path)!r}).execute("c", {{"path": "a.txt"}}, None, None)
    await ReadTool({str(tmp_path)!r}, auto_resize_images=False).execute("c", {{"path": "a.png"}}, None, None)
    normalize_images([{{"type": "image", "data": "AAAA", "mimeType": "image/png"}}], auto_resize=False)
    assert "PIL" not in sys.modules, "PIL imported early"
    await ReadTool({str(tmp_path)!r}).execute("c", {{"path": "a.png"}}, None, None)
    assert "PIL" in sys.modules
anyio.run(main)
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
