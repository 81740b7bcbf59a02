"""Ctrl+V (``app.clipboard.pasteImage``) in the interactive mode, under Textual's pilot with fake
clipboard tools on PATH: shell scripts named ``xclip`` / ``wl-paste`` that answer the arguments
upstream sends. An image is saved as ``pi-clipboard-<uuid>.<ext>`` in the temp directory and its
path inserted; without an image the clipboard text is inserted; without any tool nothing happens."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from .interactive_support import running_app, until

pytestmark = pytest.mark.anyio

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489") + b"rest-of-png"
JPEG = b"\xff\xd8\xff\xe0fake-jpeg"


def _tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def clip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only the fake tools, a plain X11 Linux session, temp files under tmp_path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    for name in ("WAYLAND_DISPLAY", "XDG_SESSION_TYPE", "WSL_DISTRO_NAME", "WSLENV", "TERMUX_VERSION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr("pi_rpc.modes.interactive.clipboard.is_wsl", lambda env: False)
    (tmp_path / "png").write_bytes(PNG)
    (tmp_path / "jpeg").write_bytes(JPEG)
    return bin_dir


def _xclip_with_image(clip: Path) -> None:
    data = clip.parent / "png"
    _tool(
        clip,
        "xclip",
        f"""case "$*" in
  "-selection clipboard -t TARGETS -o") printf 'TARGETS\\nimage/bmp\\nimage/png\\n' ;;
  "-selection clipboard -t image/png -o") exec /bin/cat '{data}' ;;
  *) exit 1 ;;
esac
""",
    )


async def test_ctrl_v_saves_an_xclip_image_and_inserts_its_path(isolated_env, tmp_path, clip):
    _xclip_with_image(clip)
    async with running_app(tmp_path) as (app, pilot):
        app.editor.load_text("look at ")
        app.editor.move_cursor(app.editor.document.end)
        await pilot.press("ctrl+v")
        await until(pilot, lambda: app.editor.text != "look at ")
        pasted = app.editor.text.removeprefix("look at ")
        path = Path(pasted)
        assert path.parent == tmp_path / "tmp"
        assert path.name.startswith("pi-clipboard-") and path.suffix == ".png"
        assert path.read_bytes() == PNG


async def test_wayland_image_wins_and_an_empty_wayland_clipboard_does_not_fall_back_to_x11(
    isolated_env, tmp_path, clip, monkeypatch
):
    _xclip_with_image(clip)  # stale X11 contents a Wayland session must not paste
    jpeg = clip.parent / "jpeg"
    listing = clip.parent / "types"
    listing.write_text("text/plain\nimage/jpeg\n")
    _tool(
        clip,
        "wl-paste",
        f"""case "$*" in
  "--list-types") exec /bin/cat '{listing}' ;;
  "--type image/jpeg --no-newline") exec /bin/cat '{jpeg}' ;;
  "--no-newline --type text") printf 'wayland text' ;;
  *) exit 1 ;;
esac
""",
    )
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.delenv("DISPLAY")
    async with running_app(tmp_path) as (app, pilot):
        await pilot.press("ctrl+v")
        await until(pilot, lambda: app.editor.text != "")
        path = Path(app.editor.text)
        assert path.suffix == ".jpg" and path.read_bytes() == JPEG
        listing.write_text("text/plain\n")
        app.editor.load_text("")
        await pilot.press("ctrl+v")
        await until(pilot, lambda: app.editor.text != "")
        assert app.editor.text == "wayland text"


async def test_ctrl_v_without_an_image_inserts_the_clipboard_text_at_the_cursor(isolated_env, tmp_path, clip):
    _tool(
        clip,
        "xclip",
        """case "$*" in
  "-selection clipboard -t TARGETS -o") printf 'TARGETS\\nUTF8_STRING\\n' ;;
  "-selection clipboard -out") printf 'pasted words' ;;
  *) exit 1 ;;
esac
""",
    )
    async with running_app(tmp_path) as (app, pilot):
        app.editor.load_text("before  after")
        app.editor.move_cursor((0, 7))
        await pilot.press("ctrl+v")
        await until(pilot, lambda: "pasted" in app.editor.text)
        assert app.editor.text == "before pasted words after"
        assert not list((tmp_path / "tmp").iterdir())  # no image file written


async def test_ctrl_v_without_a_clipboard_tool_does_nothing(isolated_env, tmp_path, clip):
    from pi_rpc.modes.interactive.transcript import Notice

    async with running_app(tmp_path) as (app, pilot):
        app.editor.load_text("kept")
        await pilot.press("ctrl+v")
        await app.workers.wait_for_complete()
        await pilot.pause(0.05)
        assert app.editor.text == "kept"
        assert not [n for n in app.query(Notice) if "clipboard" in n.text]


async def test_the_paste_key_follows_keybindings_json(isolated_env, tmp_path, clip):
    _xclip_with_image(clip)
    agent_dir = Path(os.environ["PI_CODING_AGENT_DIR"])
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "keybindings.json").write_text('{"app.clipboard.pasteImage": "alt+v"}')
    async with running_app(tmp_path) as (app, pilot):
        await pilot.press("alt+v")
        await until(pilot, lambda: app.editor.text.endswith(".png"))
        assert "app.clipboard.pasteImage" in app.keymap.describe()


def test_image_type_preference_and_conversion_of_other_types(clip):
    from pi_rpc.modes.interactive import clipboard

    pick = clipboard.select_preferred_image_mime_type
    assert pick(["TARGETS", "image/gif", "image/png; charset=x", "image/jpeg"]) == "image/png; charset=x"
    assert pick(["text/plain", "image/bmp"]) == "image/bmp"
    assert pick(["text/plain"]) is None
    pil = pytest.importorskip("PIL.Image")
    import io

    bmp = io.BytesIO()
    pil.new("RGB", (2, 2), "red").save(bmp, format="BMP")
    (clip.parent / "bmp").write_bytes(bmp.getvalue())
    _tool(
        clip,
        "xclip",
        f"""case "$*" in
  "-selection clipboard -t TARGETS -o") printf 'image/bmp\\n' ;;
  "-selection clipboard -t image/bmp -o") exec /bin/cat '{clip.parent / "bmp"}' ;;
  *) exit 1 ;;
esac
""",
    )
    image = clipboard.read_clipboard_image(platform="linux")
    assert image is not None and image.mime_type == "image/png" and image.data.startswith(b"\x89PNG")


async def test_wsl_reads_the_windows_clipboard_through_powershell(isolated_env, tmp_path, clip, monkeypatch):
    monkeypatch.setattr("pi_rpc.modes.interactive.clipboard.is_wsl", lambda env: True)
    _tool(clip, "wslpath", 'printf "%s\\n" "$2"\n')  # the Linux path stands in for the Windows one
    # the fake PowerShell saves the "Windows clipboard" to the script's $path and says ok
    _tool(
        clip,
        "powershell.exe",
        f"""target=$(printf '%s' "$3" | /bin/sed -n "s/.*\\$path = '\\([^']*\\)'.*/\\1/p")
/bin/cp '{clip.parent / "png"}' "$target" && printf 'ok\\r\\n'
""",
    )
    async with running_app(tmp_path) as (app, pilot):
        await pilot.press("ctrl+v")
        await until(pilot, lambda: app.editor.text != "")
        path = Path(app.editor.text)
        assert path.name.startswith("pi-clipboard-") and path.read_bytes() == PNG
        assert [p.name for p in (tmp_path / "tmp").iterdir()] == [path.name]  # the pi-wsl-clip file is gone
