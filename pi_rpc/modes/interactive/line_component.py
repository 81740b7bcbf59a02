"""A ``LineComponent`` (a TypeScript extension's ``ctx.ui.custom`` component, kept in Node) shown
in the interactive mode: its lines, ANSI-styled as pi-tui renders them, in place of the editor
until the extension calls ``done(result)``.

The screen asks the component for ``render(width)`` at the terminal's width, hands it every key
as the raw terminal data upstream's ``handleInput`` gets (``"\\x1b[A"`` for Up, ``"\\r"`` for
Enter, a printable character as itself; Escape too: upstream's components close themselves),
and draws again when the component asks (``tui.requestRender()``). Calls to the component go
one at a time in order, so keys typed quickly reach it in the order they were typed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import events
from textual.screen import ModalScreen
from textual.widgets import Static

from pi_rpc.extensions.ui import LineComponent

# Textual key names -> the bytes a terminal sends (xterm, legacy mode), which is what pi-tui's
# matchesKey() recognises.
KEY_DATA = {
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "enter": "\r",
    "escape": "\x1b",
    "tab": "\t",
    "shift+tab": "\x1b[Z",
    "backspace": "\x7f",
    "ctrl+h": "\x7f",
    "delete": "\x1b[3~",
    "insert": "\x1b[2~",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
    "space": " ",
    "shift+enter": "\x1b[13;2u",
    "alt+enter": "\x1b\r",
    "ctrl+j": "\n",
}
_ARROWS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_MODIFIERS = {"shift": 2, "alt": 3, "shift+alt": 4, "ctrl": 5, "ctrl+shift": 6}

# upstream theme roles -> the Textual theme variables this mode maps them to (theme.py)
FG_ROLES = {
    "text": "foreground",
    "accent": "accent",
    "border": "primary",
    "borderAccent": "accent",
    "borderMuted": "text-muted",
    "success": "success",
    "error": "error",
    "warning": "warning",
    "muted": "text-muted",
    "dim": "text-muted",
    "thinkingText": "text-muted",
    "toolTitle": "foreground",
    "toolOutput": "text-muted",
    "userMessageText": "foreground",
    "customMessageText": "foreground",
    "customMessageLabel": "accent",
    "mdHeading": "accent",
    "mdLink": "accent",
    "mdCode": "accent",
    "mdListBullet": "accent",
    "toolDiffAdded": "success",
    "toolDiffRemoved": "error",
    "toolDiffContext": "text-muted",
    "bashMode": "success",
}
BG_ROLES = {
    "selectedBg": "panel",
    "userMessageBg": "surface",
    "customMessageBg": "surface",
    "toolPendingBg": "panel",
    "toolSuccessBg": "surface",
    "toolErrorBg": "surface",
}


def terminal_data(event: events.Key) -> str | None:
    """The bytes a terminal would have sent for this key (None: none we can name)."""
    key = event.key
    if key in KEY_DATA:
        return KEY_DATA[key]
    modifiers, _, base = key.rpartition("+")
    if modifiers in _MODIFIERS and base in _ARROWS:
        return f"\x1b[1;{_MODIFIERS[modifiers]}{_ARROWS[base]}"
    if modifiers == "ctrl" and len(base) == 1 and base.isalpha():
        return chr(ord(base.lower()) - 96)
    if modifiers == "alt" and len(base) == 1:
        return "\x1b" + base
    if event.character and event.character.isprintable():
        return event.character
    return None


def palette(app: Any) -> dict[str, Any]:
    """SGR codes (``[open, close]``) of upstream's theme roles from the app's theme, for the
    component's ``theme``. Muted text is the foreground blended onto the background as the app
    draws it (Textual's ``text-muted``), or dim on an ANSI theme."""
    from textual.color import Color

    variables = app.get_css_variables()

    def parse(name: str) -> Color | None:
        try:
            return Color.parse(variables.get(name, ""))
        except Exception:  # noqa: BLE001 - absent or not a plain colour ("auto 60%")
            return None

    background, foreground = parse("background"), parse("foreground")
    ansi_theme = foreground is None or foreground.ansi is not None

    def sgr(name: str, foreground_role: bool) -> list[str] | None:
        if name == "text-muted":
            if ansi_theme or background is None or foreground is None:
                return ["\x1b[2m", "\x1b[22m"]
            color: Color | None = background.blend(foreground, 0.6)
        else:
            color = parse(name)
        if color is None or color.a == 0:  # transparent: the terminal's own
            return None
        if color.a < 1 and background is not None:
            color = background + color
        codes = color.rich_color.get_ansi_codes(foreground=foreground_role)
        if not codes:
            return None
        return [f"\x1b[{';'.join(codes)}m", "\x1b[39m" if foreground_role else "\x1b[49m"]

    fg = {role: code for role, name in FG_ROLES.items() if (code := sgr(name, True))}
    bg = {role: code for role, name in BG_ROLES.items() if (code := sgr(name, False))}
    theme = app.current_theme
    return {"name": theme.name, "appearance": "dark" if theme.dark else "light", "fg": fg, "bg": bg}


def lines_text(lines: list[str]) -> Text:
    text = Text("\n").join(Text.from_ansi(line, no_wrap=True, overflow="crop") for line in lines)
    text.no_wrap = True
    text.overflow = "crop"
    return text


class LineComponentScreen(ModalScreen[None]):
    """Shows a ``LineComponent`` at the bottom, full width, until it closes."""

    DEFAULT_CSS = """
    LineComponentScreen { align: center bottom; }
    LineComponentScreen > Static { width: 100%; height: auto; max-height: 100%; background: $background; }
    """

    def __init__(self, component: LineComponent, keybindings: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.component = component
        self.keybindings = keybindings or {}
        self._lock = asyncio.Lock()  # one call at a time, in order
        self._tasks: set[asyncio.Task[None]] = set()
        self._render_pending = False
        self._finished = False

    def compose(self) -> Any:
        yield Static(id="lines")

    def _terminal_size(self) -> tuple[int, int]:
        return max(1, self.app.size.width), max(1, self.app.size.height)

    def _spawn(self, call: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._run(call))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, call: Any) -> None:
        async with self._lock:
            if not self.is_attached:
                return
            try:
                lines = await call()
            except Exception as exc:  # noqa: BLE001 - the extension's fault closes its component, not the app
                getattr(self.app, "say_soon", lambda *_: None)(f"Extension custom UI failed: {exc}", "error")
                lines = None
            if lines is None:
                self._finish()
            elif self.is_attached:
                self.query_one("#lines", Static).update(lines_text(lines))

    def on_mount(self) -> None:
        self.component.on_render = self._render_requested
        self.component.on_close = self._finish
        columns, rows = self._terminal_size()
        theme = palette(self.app)
        self._spawn(lambda: self.component.open(columns, rows, theme, self.keybindings))

    def _render_requested(self) -> None:
        if self._render_pending:  # one render answers a burst of requests
            return
        self._render_pending = True

        async def render() -> list[str] | None:
            self._render_pending = False
            return await self.component.render(*self._terminal_size())

        self._spawn(render)

    def on_resize(self, _event: events.Resize) -> None:
        self._spawn(lambda: self.component.render(*self._terminal_size(), invalidate=True))

    def press_key(self, event: events.Key) -> None:
        """Every key while the component is shown (the app hands them over before its priority
        bindings)."""
        event.stop()
        event.prevent_default()
        data = terminal_data(event)
        if data is not None:
            self._spawn(lambda: self.component.input(data, *self._terminal_size()))

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        data = f"\x1b[200~{event.text}\x1b[201~"  # bracketed paste, as a terminal sends it
        self._spawn(lambda: self.component.input(data, *self._terminal_size()))

    def _finish(self) -> None:
        if self._finished or not self.is_attached:
            return
        if self.app.screen is not self:  # a dialog the component opened is still on top
            self.set_timer(0.05, self._finish)
            return
        self._finished = True
        self.dismiss(None)

    def on_unmount(self) -> None:
        self.component.on_render = None
        self.component.on_close = None
        self.component.close()  # nothing happens when it closed itself
