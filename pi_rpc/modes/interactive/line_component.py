"""A ``LineComponent`` (a TypeScript extension's ``ctx.ui.custom`` component, kept in Node) shown
in the interactive mode until the extension calls ``done(result)``, where upstream shows it: a
component in place of the editor (the footer stays below it, as upstream's editor slot), an
overlay (``{overlay: true}``) over the conversation at the rectangle pi-tui computes from its
``overlayOptions`` (Node sends it with the lines). Overlays that a component in the editor's
place opens with ``tui.showOverlay`` are drawn on a screen over the app while there are some.
In regular (inline) mode overlays sit on the terminal's rows, as upstream's padded frame puts
them (``LayersScreen``).

A component taller than the room left is shown as upstream's: fullscreen keeps its top lines
(pi-tui's VStack gives the editor slot what the window leaves and slices the rest off), regular
shows its bottom lines and puts the top ones in the terminal's scrollback (upstream prints every
line and the terminal scrolls the top ones away; a change up there rewrites the scrollback, as
pi-tui's full redraw, and so does closing it).

The screen asks the component for ``render(width)`` at the terminal's width, hands it every key
as the raw terminal data upstream's ``handleInput`` gets (``"\\x1b[A"`` for Up, ``"\\r"`` for
Enter, a printable character as itself; Escape too: upstream's components close themselves;
a paste as one bracketed paste, the app routes it here as its keys),
and draws again when the component asks (``tui.requestRender()``). Calls to the component go
one at a time in order, so keys typed quickly reach it in the order they were typed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.screen import ModalScreen
from textual.widgets import Static

from pi_rpc.extensions.ui import Frame, LineComponent, OverlayLayer
from pi_rpc.modes.interactive.tui_mode import inline_region_top

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


class ComponentDriver:
    """Talks to the component for whatever shows it: one call at a time, in order (keys typed
    quickly reach it in the order they were typed), each answer handed to ``show``; ``finish``
    when the component is gone."""

    def __init__(
        self,
        owner: Any,
        component: LineComponent,
        show: Callable[[Frame], None],
        finish: Callable[[], None],
    ) -> None:
        self.owner = owner  # the widget or screen showing it (its app, whether it is attached)
        self.component = component
        self.show = show
        self.finish = finish
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._render_pending = False

    def size(self) -> tuple[int, int]:
        return max(1, self.owner.app.size.width), max(1, self.owner.app.size.height)

    def _spawn(self, call: Callable[[], Awaitable[Frame | None]]) -> None:
        task = asyncio.get_running_loop().create_task(self._run(call))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, call: Callable[[], Awaitable[Frame | None]]) -> None:
        async with self._lock:
            if not self.owner.is_attached:
                return
            try:
                frame = await call()
            except Exception as exc:  # noqa: BLE001 - the extension's fault closes its component, not the app
                getattr(self.owner.app, "say_soon", lambda *_: None)(f"Extension custom UI failed: {exc}", "error")
                frame = None
            if frame is None:
                self.finish()
            elif self.owner.is_attached:
                self.show(frame)

    def open(self, keybindings: dict[str, Any]) -> None:
        self.component.on_render = self._render_requested
        self.component.on_close = self.finish
        columns, rows = self.size()
        theme = palette(self.owner.app)
        self._spawn(lambda: self.component.open(columns, rows, theme, keybindings))

    def _render_requested(self) -> None:
        if self._render_pending:  # one render answers a burst of requests
            return
        self._render_pending = True

        async def render() -> Frame | None:
            self._render_pending = False
            return await self.component.render(*self.size())

        self._spawn(render)

    def resized(self) -> None:
        self._spawn(lambda: self.component.render(*self.size(), invalidate=True))

    def key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        data = terminal_data(event)
        if data is not None:
            self._spawn(lambda: self.component.input(data, *self.size()))

    def paste(self, text: str) -> None:
        data = f"\x1b[200~{text}\x1b[201~"  # bracketed paste, as a terminal sends it
        self._spawn(lambda: self.component.input(data, *self.size()))

    def detach(self) -> None:
        self.component.on_render = None
        self.component.on_close = None
        self.component.close()  # nothing happens when it closed itself


class ComponentSlot(Static):
    """A component in place of the editor (the app hides the editor while one is shown and
    hands it every key). ``room`` is the number of rows the app leaves it."""

    DEFAULT_CSS = "ComponentSlot { width: 100%; height: auto; }"

    def __init__(
        self,
        component: LineComponent,
        keybindings: dict[str, Any],
        closed: Callable[[ComponentSlot], None],
        room: Callable[[], int],
        keep_top: bool,
        scroll_away: Callable[[list[str]], None] = lambda _lines: None,
    ) -> None:
        super().__init__(markup=False)
        self._scroll_away = scroll_away
        self.driver = ComponentDriver(self, component, self._show, self._finish)
        self.keybindings = keybindings
        self._on_closed = closed
        self._room = room
        self.keep_top = keep_top
        self.lines: list[str] = []
        self.overlays: SlotOverlays | None = None
        self._finished = False

    def on_mount(self) -> None:
        self._app_size = self.app.size
        self.driver.open(self.keybindings)

    def on_resize(self, _event: events.Resize) -> None:
        # the terminal's size, not the slot's own height (which follows its lines)
        if self.app.size != self._app_size:
            self._app_size = self.app.size
            self.driver.resized()

    def _show(self, frame: Frame) -> None:
        self.lines = frame.lines
        self.refit()
        self._show_overlays(frame.overlays)

    def _show_overlays(self, layers: list[OverlayLayer]) -> None:
        """Overlays this component opened: a screen over the app while there are some."""
        layer_screen = self.overlays
        if layers and layer_screen is None:
            if len(self.app.screen_stack) > 1:  # a dialog is on top: drawn once it is gone
                return
            layer_screen = self.overlays = SlotOverlays(self.driver)
            self.app.push_screen(layer_screen)
            self.app.call_after_refresh(layer_screen.draw, layers)
        elif layers and layer_screen is not None:
            layer_screen.draw(layers)
        elif layer_screen is not None:
            self._drop_overlays()

    def _drop_overlays(self) -> None:
        layer_screen, self.overlays = self.overlays, None
        if layer_screen is not None and layer_screen.is_attached and self.app.screen is layer_screen:
            self.app.pop_screen()

    def refit(self) -> None:
        """Cut to the room left (fullscreen: the top lines; regular: the bottom ones, the lines
        above them going to the terminal's scrollback)."""
        room = max(1, self._room())
        lines, above = self.lines, list[str]()
        if len(lines) > room:
            if self.keep_top:
                lines = lines[:room]
            else:
                above, lines = lines[:-room], lines[-room:]
        if not self.keep_top:
            self._scroll_away(above)
        self.update(lines_text(lines))

    def press_key(self, event: events.Key) -> None:
        self.driver.key(event)

    def paste(self, text: str) -> None:
        self.driver.paste(text)

    def _finish(self) -> None:
        if self._finished or not self.is_attached:
            return
        self._drop_overlays()
        if len(self.app.screen_stack) > 1:  # a dialog the component opened is still on top
            self.set_timer(0.05, self._finish)
            return
        self._finished = True
        self._on_closed(self)

    def on_unmount(self) -> None:
        self.driver.detach()


class LayersScreen(ModalScreen[None]):
    """Overlays over the conversation, each at the rectangle pi-tui gives it (rows from the
    terminal's top); what is under them stays visible. Gets every key and paste for its driver.

    Regular (inline) mode: upstream pads its frame to the terminal's height, so an overlay's row
    is a row of the terminal, not of the app's region. The region is made to reach the
    terminal's bottom, and up to the overlay's row when that is above it (the terminal scrolls
    the rows above into the scrollback, as upstream's padding does when its frame was short)."""

    DEFAULT_CSS = """
    LayersScreen { background: transparent; layers: overlays; }
    LayersScreen > Static.overlay { layer: overlays; position: absolute; height: auto; background: $background; }
    """

    driver: ComponentDriver

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[OverlayLayer] = []
        self._origin: int | None = None  # regular mode: the terminal row the region starts on

    def compose(self) -> Any:
        yield from ()

    def _region_origin(self, rows: list[int]) -> int:
        if not self.app.is_inline:
            return 0
        if self._origin is None:
            self._origin = inline_region_top(self.app)
        self._origin = max(0, min([self._origin, *rows]))  # the region only grows upward
        self.styles.height = max(1, self.app.size.height - self._origin)
        return self._origin

    def on_mount(self) -> None:
        self._region_origin([])

    def draw(self, layers: list[OverlayLayer]) -> None:
        self.shown = layers
        origin = self._region_origin([layer.row for layer in layers])
        shown = list(self.query("Static.overlay").results(Static))
        for extra in shown[len(layers) :]:
            extra.remove()
        for index, layer in enumerate(layers):
            if index < len(shown):
                widget = shown[index]
            else:
                widget = Static(classes="overlay", markup=False)
                self.mount(widget)
            widget.styles.width = layer.width
            widget.styles.offset = (layer.col, layer.row - origin)
            widget.update(lines_text(layer.lines))

    def press_key(self, event: events.Key) -> None:
        """Every key while the overlay is shown (the app hands them over before its priority
        bindings)."""
        self.driver.key(event)

    def paste(self, text: str) -> None:
        self.driver.paste(text)


class OverlayScreen(LayersScreen):
    """An overlay component (``{overlay: true}``) and the overlays its ``tui.showOverlay``
    opened."""

    def __init__(self, component: LineComponent, keybindings: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.driver = ComponentDriver(self, component, self._show, self._finish)
        self.keybindings = keybindings or {}
        self._finished = False

    def on_mount(self) -> None:
        super().on_mount()
        self.driver.open(self.keybindings)

    def _show(self, frame: Frame) -> None:
        self.draw(frame.overlays)

    def on_resize(self, _event: events.Resize) -> None:
        self.driver.resized()

    def _finish(self) -> None:
        if self._finished or not self.is_attached:
            return
        if self.app.screen is not self:  # a dialog the component opened is still on top
            self.set_timer(0.05, self._finish)
            return
        self._finished = True
        self.dismiss(None)

    def on_unmount(self) -> None:
        self.driver.detach()


class SlotOverlays(LayersScreen):
    """The overlays a component in the editor's place opened with ``tui.showOverlay`` (upstream
    composites them over its whole frame as any other): drawn over the app while there are some;
    keys and pastes still go to the slot's component, whose Node side hands them to the focused
    one."""

    def __init__(self, driver: ComponentDriver) -> None:
        super().__init__()
        self.driver = driver


class ComponentSlots:
    """The app's editor slot for components, as upstream's extension dialog stack: a new
    component hides the one shown (or the editor), closing the one shown brings back the one
    before it (or the editor, with its text as it was)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.stack: list[ComponentSlot] = []
        self.scrolled: list[str] = []  # regular mode: the shown component's lines in the scrollback

    def scrolled_text(self) -> list[Text]:
        """The lines ``scroll_away`` put in the scrollback, for a redraw of it."""
        return [lines_text([line]) for line in self.scrolled]

    def scroll_away(self, lines: list[str]) -> None:
        """Regular mode: a component taller than the room left has its top lines in the
        terminal's scrollback, as upstream prints every line and lets the terminal scroll. Lines
        added under the ones there scroll away in turn; when one already there changes (or the
        component closes) the scrollback is written again, as pi-tui's full redraw when a line
        above the screen changes."""
        previous, self.scrolled = self.scrolled, list(lines)
        if lines == previous:
            return
        if lines[: len(previous)] == previous:
            self.app.print_above([lines_text([line]) for line in lines[len(previous) :]], record=False)
        else:
            self.app.print_above([], redraw=True)

    @property
    def top(self) -> ComponentSlot | None:
        return self.stack[-1] if self.stack else None

    def room(self) -> int:
        """Rows the slot may take: the window less the footer and the other shown areas, and
        one row for the conversation (fullscreen: upstream's transcript keeps one; regular: a
        region as tall as the terminal would scroll it)."""
        app = self.app
        used = sum(widget.outer_size.height for widget in app.areas.values() if widget.display)
        return max(1, int(app.size.height) - int(used) - 1)

    def refit(self) -> None:
        top = self.top
        if top is not None:
            top.refit()

    async def show(self, component: LineComponent, keybindings: dict[str, Any]) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def closed(slot: ComponentSlot) -> None:
            was_top = slot is self.top
            if slot in self.stack:
                self.stack.remove(slot)
            slot.remove()
            if was_top:
                if self.top is not None:
                    self.top.display = True
                else:
                    self.app.editor.display = True
                    self.app.editor.focus()
                    self.scroll_away([])
            self.app.call_after_refresh(self.app.fit_transcript)
            if not done.done():
                done.set_result(None)

        keep_top = bool(self.app.fullscreen)
        slot = ComponentSlot(component, keybindings, closed, self.room, keep_top, self.scroll_away)
        if self.top is not None:
            self.top.display = False
        self.app.editor.display = False
        self.stack.append(slot)
        await self.app.mount(slot, before=self.app.editor)
        self.app.call_after_refresh(self.app.fit_transcript)
        try:
            await done
        finally:
            if slot in self.stack:  # cancelled (the command went away): close it as done() would
                closed(slot)
