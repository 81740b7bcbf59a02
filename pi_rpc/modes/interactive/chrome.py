"""Extensions' widgets, header and footer in the interactive mode, as upstream draws them:
``ctx.ui.setWidget(key, lines | factory, {placement})`` above the editor (``aboveEditor``, the
default) or below it (``belowEditor``), in the order they were set; ``setHeader(factory)`` in
place of the startup header; ``setFooter(factory)`` in place of the built-in footer. ``undefined``
clears a widget and restores the built-in header or footer.

A factory's component is a ``LineComponent`` (a TypeScript extension's pi-tui component, kept in
Node): it is opened at the terminal's width, drawn again when it calls ``tui.requestRender()``
or the terminal is resized, and closed (upstream's ``dispose()``) when it is replaced or cleared.
String widgets keep upstream's one-cell padding (``new Text(line, 1, 0)``); component lines are
drawn as rendered, at the full width.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text

from pi_rpc.extensions.ui import Frame, LineComponent
from pi_rpc.modes.interactive.line_component import ComponentDriver, lines_text

if TYPE_CHECKING:
    from textual.widget import Widget

    from pi_rpc.modes.interactive.app import PiApp

MAX_WIDGET_LINES = 10  # upstream's InteractiveMode.MAX_WIDGET_LINES for string widgets


class ChromeComponent:
    """One component drawn in an area of the app (``owner``): its last lines, and ``changed``
    called when they change (or when it is gone, with no lines)."""

    def __init__(self, owner: Widget, component: LineComponent, changed: Callable[[], None]) -> None:
        self.lines: list[str] = []
        self._changed = changed
        self.driver = ComponentDriver(owner, component, self._show, self._finish)

    def open(self, keybindings: dict[str, Any]) -> None:
        self.driver.open(keybindings)

    def _show(self, frame: Frame) -> None:
        if frame.lines != self.lines:
            self.lines = frame.lines
            self._changed()

    def _finish(self) -> None:  # Node disposed of it (its extension went away) or it failed
        if self.lines:
            self.lines = []
            self._changed()

    def resized(self) -> None:
        self.driver.resized()

    def close(self) -> None:
        self.driver.detach()


def placement_of(options: object) -> str:
    """``{placement}`` (upstream's options) or the bare placement string; ``aboveEditor`` unless
    it says ``belowEditor``."""
    value = options.get("placement") if isinstance(options, dict) else options
    return "belowEditor" if value == "belowEditor" else "aboveEditor"


def string_widget(lines: list[str]) -> Text:
    """upstream's ``new Text(line, 1, 0)`` per line: one cell on the left (a line longer than
    the terminal wraps to the first column here)."""
    shown = [Text.from_ansi(" " + line) for line in lines[:MAX_WIDGET_LINES]]
    if len(lines) > MAX_WIDGET_LINES:
        shown.append(Text(" ... (widget truncated)", style="dim"))
    return Text("\n").join(shown)


class Chrome:
    """The extensions' widgets, header and footer of one app, drawn in its areas
    ``ext-widgets``, ``ext-widgets-below`` and ``ext-footer`` and in the transcript's header."""

    def __init__(self, app: PiApp) -> None:
        self.app = app
        self.widgets: dict[str, tuple[str, list[str] | ChromeComponent]] = {}  # key -> (placement, content)
        self.header: ChromeComponent | None = None
        self.footer: ChromeComponent | None = None

    def _open(self, area: str, component: LineComponent, changed: Callable[[], None]) -> ChromeComponent:
        chrome = ChromeComponent(self.app.areas[area], component, changed)
        chrome.open(self.app.keymap.user)
        return chrome

    # ------------------------------------------------------------------ widgets

    def set_widget(self, key: str, content: object, options: object = None) -> None:
        old = self.widgets.pop(key, None)
        if old is not None and isinstance(old[1], ChromeComponent):
            old[1].close()
        placement = placement_of(options)
        area = "ext-widgets-below" if placement == "belowEditor" else "ext-widgets"
        if isinstance(content, LineComponent):
            self.widgets[key] = (placement, self._open(area, content, self.draw_widgets))
        elif isinstance(content, list) and content:
            self.widgets[key] = (placement, [str(line) for line in content])
        self.draw_widgets()

    def draw_widgets(self) -> None:
        for placement, area in (("aboveEditor", "ext-widgets"), ("belowEditor", "ext-widgets-below")):
            blocks: list[Text] = []
            for where, content in self.widgets.values():
                if where != placement:
                    continue
                if isinstance(content, ChromeComponent):
                    if content.lines:
                        blocks.append(lines_text(content.lines))
                else:
                    blocks.append(string_widget(content))
            self._redraw(area, Text("\n").join(blocks) if blocks else None)

    # ------------------------------------------------------------------ header and footer

    def _replace(
        self, old: ChromeComponent | None, factory: object, changed: Callable[[], None]
    ) -> ChromeComponent | None:
        """Close the header's or footer's component and open ``factory``'s (none: the built-in one)."""
        if old is not None:
            old.close()
        # a header is drawn in the transcript, which has no area of its own: the component
        # needs an area only for the app and its attachment, and the footer's is always there
        return self._open("ext-footer", factory, changed) if isinstance(factory, LineComponent) else None

    def set_header(self, factory: object) -> None:
        old, self.header = self.header, None  # (none while the new one opens: it may draw at once)
        self.header = self._replace(old, factory, self._draw_header)
        self._draw_header()

    def _draw_header(self) -> None:
        """The startup header shows the component's lines (none: the built-in header); in
        regular mode, when it is in the scrollback already, the scrollback is written again."""
        from pi_rpc.modes.interactive.transcript import Header

        app = self.app
        lines = self.header.lines if self.header is not None else None
        for header in app.transcript.query(Header):
            header.set_custom(lines)
        printed = app.transcript.printed_header
        if printed is not None and app.is_inline and printed.custom != lines:
            printed.set_custom(lines)
            # from the app's own loop, between frames (a write in the middle of one is lost)
            app.call_later(app.print_above, [], redraw=True)
        app.call_after_refresh(app.fit_transcript)

    def set_footer(self, factory: object) -> None:
        old, self.footer = self.footer, None  # (none while the new one opens: it may draw at once)
        self.footer = self._replace(old, factory, self._draw_footer)
        self._draw_footer()

    def _draw_footer(self) -> None:
        footer = self.footer
        self._redraw("ext-footer", lines_text(footer.lines) if footer is not None and footer.lines else None)
        self.app.areas["footer"].display = footer is None

    def footer_data(self) -> dict[str, object]:
        """upstream's ``footerData`` for a footer component."""
        from pi_rpc.modes.interactive.footer import git_branch

        session = self.app.session
        try:
            providers = len({model["provider"] for model in session.get_available_models()})
        except Exception:  # noqa: BLE001 - the footer never breaks the screen
            providers = 0
        return {"branch": git_branch(str(session.cwd)), "statuses": dict(self.app.statuses), "providers": providers}

    def _redraw(self, name: str, content: RenderableType | None) -> None:
        """Update one of the areas (``None``: hidden, taking no row)."""
        widget = self.app.areas[name]
        widget.update(content if content is not None else "")
        widget.display = content is not None
        self.app.call_after_refresh(self.app.fit_transcript)

    # ------------------------------------------------------------------ the terminal

    def resized(self) -> None:
        for chrome in self.components():
            chrome.resized()

    def components(self) -> list[ChromeComponent]:
        shown = [content for _where, content in self.widgets.values() if isinstance(content, ChromeComponent)]
        return shown + [chrome for chrome in (self.header, self.footer) if chrome is not None]
