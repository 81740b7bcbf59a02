"""Switching the running app between upstream's two ``tuiMode``s (``/settings``), as upstream's
``switchTuiMode``: the app's driver is a ``SwitchableDriver`` (terminal_driver.py) whose
fullscreen or inline driver is replaced; the layout, the keys and the conversation follow."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from pi_rpc.modes.interactive.app import PiApp


def layout_for_mode(app: PiApp) -> None:
    """Fullscreen: the window's height, the transcript takes what the rest leaves; regular:
    as tall as the content (the CSS), the transcript fitted by ``fit_transcript``."""
    if app.fullscreen:
        app.screen.styles.height = "100%"
        app.transcript.styles.height = "1fr"
        app.transcript.styles.max_height = None
    else:
        app.screen.styles.height = None
        app.transcript.styles.height = None
        app.fit_transcript()


def inline_region_top(app: App[int]) -> int:
    """Regular mode: the terminal row the inline region starts on, as the terminal last
    reported it (Textual's inline driver asks after every frame); 0 otherwise."""
    origin = getattr(app._driver, "cursor_origin", None) if app.is_inline else None
    return int(origin[1]) if origin else 0


REFUSED_WITH_DIALOG = "Close active overlays before changing TUI mode"  # upstream's words


def dialog_open(app: PiApp) -> bool:
    """Whether a dialog (a command's picker, an extension's ``ctx.ui`` dialog or custom UI)
    is open: each is a screen over the app's own."""
    return len(app.screen_stack) > 1


async def switch(app: PiApp, mode: str) -> bool:
    """``tuiMode`` changed in /settings: move the running app between the alternate screen
    and inline output, as upstream's ``switchTuiMode``. Regular printed finished messages
    into the scrollback and dropped them, so fullscreen shows the branch again; fullscreen
    kept them all, so regular prints them into the scrollback.

    Refused (False, nothing changed) while a dialog is open, as upstream refuses while an
    overlay is shown: the terminal it was drawn for is about to be replaced under it.
    (/settings's own lists are closed by the time the picked value is applied.)"""
    from textual.binding import BindingsMap
    from textual.geometry import Offset

    from pi_rpc.modes.interactive import display
    from pi_rpc.modes.interactive.terminal_driver import SwitchableDriver

    fullscreen = mode == "fullscreen"
    if fullscreen == app.fullscreen:
        return True
    if dialog_open(app):
        return False
    driver = app._driver
    if isinstance(driver, SwitchableDriver):
        if app.is_inline:
            # to the region's top-left: stopping clears from there down, as at exit
            _, y = app._previous_cursor_position
            driver.write((f"\x1b[{y}A" if y else "") + "\r")
        driver.replace(fullscreen)
        app._previous_cursor_position = Offset(0, 0)
        app._previous_inline_height = None
    app.fullscreen = fullscreen
    app._bindings = BindingsMap(app.keymap.app_bindings(fullscreen=fullscreen))
    layout_for_mode(app)
    display.apply(app)
    app.refresh_css()
    if fullscreen:
        await app.reload_transcript()
        app.transcript.follow = True
    else:
        # the scrollback is rebuilt from the conversation fullscreen kept (what regular
        # printed before it is in there too), so nothing shows twice
        app.transcript.anchor()
        app._printed = []
        await app.transcript.commit()
        app.print_above([], redraw=True)
    app.screen.refresh(layout=True)
    app.call_after_refresh(app.fit_transcript)
    return True
