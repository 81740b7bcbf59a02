"""Image normalization shared by the read tool and prompt attachments (upstream 1.6
``utils/image-process``, ``utils/image-resize-core``, ``utils/mime``).

``process_image`` turns raw bytes into an inline image block: formats providers take inline
(png, jpeg, gif, webp) pass through, anything else is converted to PNG first; with auto-resize it
then fits the image into the model's limits (2000x2000 and 4.5 MB of base64 by default), keeping
the smaller of PNG and JPEG, stepping JPEG quality down and finally shrinking by 3/4 until it fits.

Pillow is imported only when pixels must be decoded: startup and text-only sessions never pay
for it.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Base64 payload ceiling: headroom below Anthropic's 5 MB per-image limit.
DEFAULT_MAX_BYTES = int(4.5 * 1024 * 1024)
DEFAULT_RESIZE_OPTIONS: dict[str, int] = {
    "maxWidth": 2000,
    "maxHeight": 2000,
    "maxBytes": DEFAULT_MAX_BYTES,
    "jpegQuality": 80,
}
# Tried after the configured quality, in this order, when neither PNG nor JPEG fits.
_FALLBACK_QUALITIES = (85, 70, 55, 40)

IMAGE_TYPE_SNIFF_BYTES = 4100

CONVERT_FAILED_MESSAGE = "[Image omitted: could not be converted to a supported inline image format.]"
RESIZE_FAILED_MESSAGE = "[Image omitted: could not be resized below the inline image size limit.]"

_INLINE_MIME_TYPES = {
    "image/png": "image/png",
    "image/jpeg": "image/jpeg",
    "image/jpg": "image/jpeg",
    "image/gif": "image/gif",
    "image/webp": "image/webp",
}


# ---------------------------------------------------------------------- sniffing


def _u16le(buf: bytes, off: int) -> int:
    return int.from_bytes(buf[off : off + 2].ljust(2, b"\0"), "little")


def _u32le(buf: bytes, off: int) -> int:
    return int.from_bytes(buf[off : off + 4].ljust(4, b"\0"), "little")


def _u32be(buf: bytes, off: int) -> int:
    return int.from_bytes(buf[off : off + 4].ljust(4, b"\0"), "big")


def _is_png(buf: bytes) -> bool:
    return len(buf) >= 16 and _u32be(buf, 8) == 13 and buf[12:16] == b"IHDR"


def _is_animated_png(buf: bytes) -> bool:
    offset = 8
    while offset + 8 <= len(buf):
        length = _u32be(buf, offset)
        kind = buf[offset + 4 : offset + 8]
        if kind == b"acTL":
            return True
        if kind == b"IDAT":
            return False
        nxt = offset + 8 + length + 4
        if nxt <= offset or nxt > len(buf):
            return False
        offset = nxt
    return False


def _is_bmp(buf: bytes) -> bool:
    if len(buf) < 26:
        return False
    declared, pixel_offset, dib = _u32le(buf, 2), _u32le(buf, 10), _u32le(buf, 14)
    if declared != 0 and declared < 26:
        return False
    if pixel_offset < 14 + dib:
        return False
    if declared != 0 and pixel_offset >= declared:
        return False
    if dib == 12:
        planes, bpp = _u16le(buf, 22), _u16le(buf, 24)
    elif 40 <= dib <= 124:
        if len(buf) < 30:
            return False
        planes, bpp = _u16le(buf, 26), _u16le(buf, 28)
    else:
        return False
    return planes == 1 and bpp in (1, 4, 8, 16, 24, 32)


def detect_supported_image_mime(head: bytes) -> str | None:
    """The image types the read tool sends as images, by content (upstream ``mime.ts``): JPEG
    (not JPEG-LS), PNG with an IHDR and no animation, GIF, WebP, and BMP with a sane header.
    ``head`` should hold the first :data:`IMAGE_TYPE_SNIFF_BYTES` bytes."""
    if head.startswith(b"\xff\xd8\xff"):
        return None if len(head) > 3 and head[3] == 0xF7 else "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png" if _is_png(head) and not _is_animated_png(head) else None
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"BM") and _is_bmp(head):
        return "image/bmp"
    return None


# ---------------------------------------------------------------------- results


@dataclass
class ResizedImage:
    data: str  # base64
    mime_type: str
    original_width: int
    original_height: int
    width: int
    height: int
    was_resized: bool


@dataclass
class ProcessedImage:
    """``ok``: ``data`` (base64) / ``mime_type`` with ``hints`` for the model; otherwise
    ``message`` says why the image was left out."""

    ok: bool
    data: str = ""
    mime_type: str = ""
    hints: list[str] = field(default_factory=list)
    message: str = ""


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def _to_fixed_2(value: float) -> str:
    # Number.prototype.toFixed rounds the exact binary value half-up (1.125 -> "1.13").
    from decimal import ROUND_HALF_UP, Decimal  # (not at startup)

    return str(Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def format_dimension_note(result: ResizedImage) -> str | None:
    """Coordinate-mapping hint for a resized image (None when it was sent as is)."""
    if not result.was_resized:
        return None
    scale = result.original_width / result.width
    return (
        f"[Image: original {result.original_width}x{result.original_height}, displayed at "
        f"{result.width}x{result.height}. Multiply coordinates by {_to_fixed_2(scale)} to map to original image.]"
    )


def resize_options_for(model: Mapping[str, object] | None) -> dict[str, object] | None:
    """The model's ``inputLimits.images.resize`` (None: the defaults apply)."""
    if not model:
        return None
    limits = model.get("inputLimits")
    images = limits.get("images") if isinstance(limits, Mapping) else None
    resize = images.get("resize") if isinstance(images, Mapping) else None
    return dict(resize) if isinstance(resize, Mapping) else None


def b64decode_lenient(data: str) -> bytes:
    """``Buffer.from(data, "base64")``: characters outside the alphabet are skipped and missing
    padding is tolerated."""
    cleaned = re.sub(r"[^A-Za-z0-9+/\-_]", "", data.split("=", 1)[0]).replace("-", "+").replace("_", "/")
    if len(cleaned) % 4 == 1:
        cleaned = cleaned[:-1]
    try:
        return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4))
    except (binascii.Error, ValueError):
        return b""


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _b64_size(byte_count: int) -> int:
    return math.ceil(byte_count / 3) * 4


# ---------------------------------------------------------------------- decoding and encoding


def _open_oriented(data: bytes) -> Any:
    """Decode fully (a file that cannot be decoded fails here, not later) and apply the EXIF
    orientation the way upstream does: for JPEG and WebP only."""
    from PIL import Image, ImageOps

    image: Any = Image.open(io.BytesIO(data))
    image.load()
    if data[:2] == b"\xff\xd8" or (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
        image = ImageOps.exif_transpose(image)
    return image


def _working_copy(image: Any) -> Any:
    """A mode Lanczos resampling and both encoders handle; transparency is kept for PNG."""
    if image.mode == "RGBA":
        return image
    if image.mode in ("LA", "PA", "La", "RGBa") or "transparency" in image.info:
        return image.convert("RGBA")
    if image.mode in ("RGB", "L"):
        return image
    return image.convert("RGB")


def _encode_png(image: Any) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _encode_jpeg(image: Any, quality: int) -> bytes:
    buf = io.BytesIO()
    # JPEG has no alpha channel: it is dropped, as upstream's encoder does.
    (image.convert("RGB") if image.mode not in ("RGB", "L") else image).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def convert_to_png(data: bytes) -> bytes | None:
    """Any decodable image as PNG bytes (None when it cannot be decoded)."""
    try:
        return _encode_png(_working_copy(_open_oriented(data)))
    except Exception:  # noqa: BLE001 - any decoder failure means "cannot convert"
        return None


def resize_image(data: bytes, mime_type: str, options: Mapping[str, Any] | None = None) -> ResizedImage | None:
    """Fit an image into ``maxWidth`` x ``maxHeight`` and under ``maxBytes`` of base64.

    An image already within every limit is returned unchanged. Otherwise, at the target size the
    smaller of PNG and JPEG (configured quality) is kept if it fits, then JPEG at the fallback
    qualities; if nothing fits, both sides shrink to 3/4 and it tries again, down to 1x1.
    Returns None when the image cannot be decoded or never fits.
    """
    opts = {**DEFAULT_RESIZE_OPTIONS, **{k: v for k, v in (options or {}).items() if v is not None}}
    max_w, max_h, max_bytes = int(opts["maxWidth"]), int(opts["maxHeight"]), opts["maxBytes"]
    quality0 = int(opts["jpegQuality"])
    try:
        image = _open_oriented(data)
        orig_w, orig_h = image.size
        if orig_w <= max_w and orig_h <= max_h and _b64_size(len(data)) < max_bytes:
            return ResizedImage(_b64(data), mime_type or "image/png", orig_w, orig_h, orig_w, orig_h, False)

        from PIL import Image

        work = _working_copy(image)
        width, height = orig_w, orig_h
        if width > max_w:
            height = _js_round(height * max_w / width)
            width = max_w
        if height > max_h:
            width = _js_round(width * max_h / height)
            height = max_h
        qualities = list(dict.fromkeys([quality0, *_FALLBACK_QUALITIES]))

        def fits(raw: bytes) -> bool:
            return _b64_size(len(raw)) < max_bytes

        while True:
            frame = work if (width, height) == work.size else work.resize((width, height), Image.Resampling.LANCZOS)
            png = _encode_png(frame)
            jpeg = _encode_jpeg(frame, qualities[0])
            preferred = (
                [(jpeg, "image/jpeg"), (png, "image/png")]
                if len(jpeg) < len(png)
                else [
                    (png, "image/png"),
                    (jpeg, "image/jpeg"),
                ]
            )
            chosen = next(((raw, mime) for raw, mime in preferred if fits(raw)), None)
            if chosen is None:
                # Lower qualities are encoded only when needed; the pick is the same as trying all.
                for quality in qualities[1:]:
                    raw = _encode_jpeg(frame, quality)
                    if fits(raw):
                        chosen = (raw, "image/jpeg")
                        break
            if chosen is not None:
                return ResizedImage(_b64(chosen[0]), chosen[1], orig_w, orig_h, width, height, True)
            if width == 1 and height == 1:
                return None
            next_w = 1 if width == 1 else max(1, math.floor(width * 0.75))
            next_h = 1 if height == 1 else max(1, math.floor(height * 0.75))
            if (next_w, next_h) == (width, height):
                return None
            width, height = next_w, next_h
    except Exception:  # noqa: BLE001 - undecodable input is "could not be resized", as upstream
        return None


# ---------------------------------------------------------------------- the pipeline


def _base_mime(mime_type: str) -> str:
    return mime_type.split(";")[0].strip().lower()


def process_image(
    data: bytes,
    mime_type: str,
    *,
    auto_resize: bool = True,
    resize_options: Mapping[str, object] | None = None,
) -> ProcessedImage:
    """Upstream ``processImage``: normalize the type (converting to PNG when providers would not
    take it inline), then resize when ``auto_resize`` is on. Blocking; run it in a worker thread."""
    mime = _INLINE_MIME_TYPES.get(_base_mime(mime_type))
    converted_from: str | None = None
    if mime is None:
        png = convert_to_png(data)
        if png is None:
            return ProcessedImage(False, message=CONVERT_FAILED_MESSAGE)
        data, mime, converted_from = png, "image/png", _base_mime(mime_type)
    hints: list[str] = []
    if not auto_resize:
        if converted_from and converted_from != mime:
            hints.append(f"[Image converted from {converted_from} to {mime}.]")
        return ProcessedImage(True, _b64(data), mime, hints)
    resized = resize_image(data, mime, resize_options)
    if resized is None:
        return ProcessedImage(False, message=RESIZE_FAILED_MESSAGE)
    if converted_from and converted_from != resized.mime_type:
        hints.append(f"[Image converted from {converted_from} to {resized.mime_type}.]")
    note = format_dimension_note(resized)
    if note:
        hints.append(note)
    return ProcessedImage(True, resized.data, resized.mime_type, hints)


def normalize_images(
    images: Iterable[Mapping[str, object]],
    *,
    auto_resize: bool = True,
    resize_options: Mapping[str, object] | None = None,
) -> tuple[list[dict[str, object]], list[str]]:
    """Prompt attachments through :func:`process_image` (upstream ``_normalizePromptImages``):
    the image blocks to send, and the hints (or omission messages) for the prompt's text."""
    out: list[dict[str, object]] = []
    hints: list[str] = []
    for image in images:
        processed = process_image(
            b64decode_lenient(str(image.get("data") or "")),
            str(image.get("mimeType") or ""),
            auto_resize=auto_resize,
            resize_options=resize_options,
        )
        if not processed.ok:
            hints.append(processed.message)
            continue
        out.append({"type": "image", "data": processed.data, "mimeType": processed.mime_type})
        hints.extend(processed.hints)
    return out, hints
