"""Reading the system clipboard for the interactive mode's paste key (``app.clipboard.pasteImage``,
Ctrl+V), as upstream's ``utils/clipboard-image.js`` and ``utils/clipboard.js`` do it.

An image comes first: on Linux through ``wl-paste`` (Wayland sessions and WSL), then ``xclip``,
then on WSL PowerShell's Windows clipboard; the best of PNG, JPEG, WebP, GIF among the offered
types is taken, any other image type is converted to PNG when Pillow is installed (upstream
uses Photon) and dropped otherwise. Without an image the clipboard's text is read
(``termux-clipboard-get``, ``wl-paste`` with ``WAYLAND_DISPLAY``, ``xclip``/``xsel`` with
``DISPLAY``). Upstream's last resort, a native clipboard addon (macOS, Windows, and the file
paths of a Finder copy), has no counterpart here; on macOS ``pbpaste`` reads the text.

A tool that is missing, fails or times out counts as "no clipboard" and the paste does nothing,
as upstream. Commands run from ``/`` in their own session without stderr, as upstream runs them
(a clipboard daemon must not pin the cwd or share the process group).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SUPPORTED_IMAGE_MIME_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
LIST_TIMEOUT = 1.0
DEFAULT_TIMEOUT = 3.0
TEXT_TIMEOUT = 5.0
POWERSHELL_TIMEOUT = 5.0
MAX_BYTES = 50 * 1024 * 1024
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


@dataclass(frozen=True)
class ClipboardImage:
    data: bytes
    mime_type: str


def run_clipboard_command(args: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> bytes | None:
    """The command's stdout, or None when it is missing, fails, times out or says too much."""
    try:
        done = subprocess.run(
            list(args),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            cwd="/",
            start_new_session=sys.platform != "win32",
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or len(done.stdout) > MAX_BYTES:
        return None
    return done.stdout


def base_mime_type(mime_type: str) -> str:
    return mime_type.split(";")[0].strip().lower()


def extension_for_image_mime_type(mime_type: str) -> str | None:
    return _EXTENSIONS.get(base_mime_type(mime_type))


def select_preferred_image_mime_type(types: Sequence[str]) -> str | None:
    offered = [(raw, base_mime_type(raw)) for raw in (t.strip() for t in types) if raw]
    for preferred in SUPPORTED_IMAGE_MIME_TYPES:
        for raw, base in offered:
            if base == preferred:
                return raw
    return next((raw for raw, base in offered if base.startswith("image/")), None)


def is_wsl(env: Mapping[str, str]) -> bool:
    if env.get("WSL_DISTRO_NAME") or env.get("WSLENV"):
        return True
    try:
        return any(word in Path("/proc/version").read_text().lower() for word in ("microsoft", "wsl"))
    except OSError:
        return False


def is_wayland_session(env: Mapping[str, str]) -> bool:
    return bool(env.get("WAYLAND_DISPLAY")) or env.get("XDG_SESSION_TYPE") == "wayland"


def _lines(data: bytes) -> list[str]:
    return [line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()]


# None: the tool failed (try the next one); False: it works and holds no image. An empty
# Wayland clipboard must not fall through to stale X11 contents (upstream's comment).
def _via_wl_paste() -> ClipboardImage | bool | None:
    listing = run_clipboard_command(["wl-paste", "--list-types"], LIST_TIMEOUT)
    if listing is None:
        return None
    chosen = select_preferred_image_mime_type(_lines(listing))
    if chosen is None:
        return False
    data = run_clipboard_command(["wl-paste", "--type", chosen, "--no-newline"])
    if data is None:
        return None
    return ClipboardImage(data, base_mime_type(chosen)) if data else False


def _via_xclip() -> ClipboardImage | bool | None:
    targets = run_clipboard_command(["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"], LIST_TIMEOUT)
    if targets is None:
        return None
    chosen = select_preferred_image_mime_type(_lines(targets))
    if chosen is None:
        return False
    data = run_clipboard_command(["xclip", "-selection", "clipboard", "-t", chosen, "-o"])
    if data is None:
        return None
    return ClipboardImage(data, base_mime_type(chosen)) if data else False


def _via_powershell() -> ClipboardImage | None:
    """WSL: screenshots land in the Windows clipboard only, which PowerShell can read."""
    tmp = Path(tempfile.gettempdir()) / f"pi-wsl-clip-{uuid.uuid4()}.png"
    try:
        win_path = run_clipboard_command(["wslpath", "-w", str(tmp)], LIST_TIMEOUT)
        win = win_path.decode("utf-8", "replace").strip() if win_path else ""
        if not win:
            return None
        quoted = win.replace("'", "''")
        script = "; ".join(
            [
                "Add-Type -AssemblyName System.Windows.Forms",
                "Add-Type -AssemblyName System.Drawing",
                f"$path = '{quoted}'",
                "$img = [System.Windows.Forms.Clipboard]::GetImage()",
                "if ($img) { $img.Save($path, [System.Drawing.Imaging.ImageFormat]::Png); Write-Output 'ok' }"
                " else { Write-Output 'empty' }",
            ]
        )
        out = run_clipboard_command(["powershell.exe", "-NoProfile", "-Command", script], POWERSHELL_TIMEOUT)
        if out is None or out.decode("utf-8", "replace").strip() != "ok":
            return None
        data = tmp.read_bytes()
        return ClipboardImage(data, "image/png") if data else None
    except OSError:
        return None
    finally:
        tmp.unlink(missing_ok=True)


def _to_png(data: bytes) -> bytes | None:
    """Upstream converts with Photon when it loads; Pillow plays that part when installed."""
    try:
        from io import BytesIO

        from PIL import Image
    except ImportError:
        return None
    try:
        out = BytesIO()
        with Image.open(BytesIO(data)) as image:
            image.save(out, format="PNG")
        return out.getvalue()
    except Exception:  # noqa: BLE001 - any undecodable image is "no image", as a failed Photon conversion
        return None


def read_clipboard_image(env: Mapping[str, str] | None = None, platform: str | None = None) -> ClipboardImage | None:
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if env.get("TERMUX_VERSION") or not platform.startswith("linux"):
        return None
    wsl = is_wsl(env)
    found: ClipboardImage | bool | None = None
    if is_wayland_session(env) or wsl:
        found = _via_wl_paste()
    if found is None:
        found = _via_xclip()
    if not isinstance(found, ClipboardImage) and wsl:
        found = _via_powershell() or found
    if not isinstance(found, ClipboardImage):
        return None
    if found.mime_type not in SUPPORTED_IMAGE_MIME_TYPES:
        png = _to_png(found.data)
        return ClipboardImage(png, "image/png") if png else None
    return found


def read_clipboard_text(env: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    commands: list[list[str]] = []
    if env.get("TERMUX_VERSION"):
        commands.append(["termux-clipboard-get"])
    if platform.startswith("linux"):
        if env.get("WAYLAND_DISPLAY"):
            commands.append(["wl-paste", "--no-newline", "--type", "text"])
        if env.get("DISPLAY"):
            commands += [["xclip", "-selection", "clipboard", "-out"], ["xsel", "--clipboard", "--output"]]
    elif platform == "darwin":
        commands.append(["pbpaste"])  # stands in for upstream's native clipboard addon
    for command in commands:
        data = run_clipboard_command(command, TEXT_TIMEOUT)
        if data is not None:
            return data.decode("utf-8", "replace") or None
    return None


def save_clipboard_image(image: ClipboardImage, directory: str | None = None) -> str:
    """Upstream's ``pi-clipboard-<uuid>.<ext>`` in the temp directory; the path is what is pasted."""
    ext = extension_for_image_mime_type(image.mime_type) or "png"
    path = Path(directory or tempfile.gettempdir()) / f"pi-clipboard-{uuid.uuid4()}.{ext}"
    path.write_bytes(image.data)
    return str(path)


def clipboard_paste_text(env: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """What the paste key inserts: a clipboard image's saved path, else the clipboard's text."""
    image = read_clipboard_image(env, platform)
    if image is not None:
        return save_clipboard_image(image)
    return read_clipboard_text(env, platform)
