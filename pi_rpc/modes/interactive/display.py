"""Upstream's display settings that a Textual inline app can express, read from the merged
settings (``docs/settings.md``): ``editorPaddingX`` (0-3 cells inside the editor's border; unset,
this mode's own 1), ``outputPad`` (0 or 1 cell around messages, tool output and notices, live and
in the scrollback), ``autocompleteMaxVisible`` (3-20 rows of completions, default 5) and
``terminal.showTerminalProgress`` (OSC 9;4 progress in the terminal tab while a turn or a
compaction runs, refreshed every second as upstream's terminal does), and the screen mode:
``tuiMode`` (``"fullscreen"``, upstream's default, on the alternate screen with the transcript
scrolling inside the window; ``"regular"``, inline with finished output in the terminal's
scrollback), ``fullscreenExitOutput``, ``fullscreenScrollbar``, ``fullscreenCopyOnSelect`` and
``fullscreenWheelScrollLines``.

``/settings`` writes them (commands/settings.py) and ``apply`` restyles the running app; the
transcript widgets read ``output_pad`` when they are added or printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

PROGRESS_ACTIVE = "\x1b]9;4;3\x07"  # OSC 9;4;3: indeterminate progress
PROGRESS_CLEAR = "\x1b]9;4;0\x07"
PROGRESS_KEEPALIVE_SECONDS = 1.0
TEXTUAL_WHEEL_LINES = 2.0  # App.scroll_sensitivity_y's default


def _int(value: Any, default: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return max(low, min(high, int(value)))


def editor_padding(settings: Any) -> int:
    return _int(settings.get("editorPaddingX"), 1, 0, 3)


def output_pad(settings: Any) -> int:
    return 0 if settings.get("outputPad") == 0 else 1  # upstream: anything but 0 is 1


def autocomplete_max_visible(settings: Any) -> int:
    return _int(settings.get("autocompleteMaxVisible"), 5, 3, 20)


def terminal_progress(settings: Any) -> bool:
    return settings.get("terminal.showTerminalProgress") is True


def tui_mode(settings: Any, flag: str | None = None) -> str:
    """``--tui-mode`` over the ``tuiMode`` setting; anything but ``"regular"`` is fullscreen
    (upstream's default)."""
    if flag in ("regular", "fullscreen"):
        return flag
    return "regular" if settings.get("tuiMode") == "regular" else "fullscreen"


def fullscreen_exit_output(settings: Any) -> str:
    """What fullscreen leaves in the terminal on quit: ``"transcript"`` (default) or ``"resume-hint"``."""
    return "resume-hint" if settings.get("fullscreenExitOutput") == "resume-hint" else "transcript"


def fullscreen_scrollbar(settings: Any) -> str:
    value = settings.get("fullscreenScrollbar")
    return value if value in ("always", "hidden") else "auto"


def fullscreen_copy_on_select(settings: Any) -> bool:
    return settings.get("fullscreenCopyOnSelect") is not False


def wheel_scroll_lines(settings: Any) -> int | None:
    """Lines per wheel event (1-100), or ``None`` for ``"auto"`` (Textual's own acceleration)."""
    value = settings.get("fullscreenWheelScrollLines")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return _int(value, 3, 1, 100)


def apply(app: PiApp) -> None:
    """Restyle the editor, the completion list and the live transcript after a change."""
    settings = app.session.settings
    app.editor.styles.padding = (0, editor_padding(settings))
    app.areas["completions"].styles.max_height = autocomplete_max_visible(settings)
    pad = output_pad(settings)
    app.transcript.output_pad = pad
    for child in app.transcript.children:
        child.styles.padding = (0, pad)
    if not terminal_progress(app.session.settings):
        app.progress.set(False)
    if app.fullscreen:
        scrollbar = fullscreen_scrollbar(settings)
        app.transcript.styles.scrollbar_size_vertical = 0 if scrollbar == "hidden" else 1
        app.transcript.styles.overflow_y = "scroll" if scrollbar == "always" else "auto"
        lines = wheel_scroll_lines(settings)
        # "auto": Textual's own default, also after a number was set
        app.scroll_sensitivity_y = float(lines) if lines is not None else TEXTUAL_WHEEL_LINES


class TerminalProgress:
    """Upstream's ``setProgress``: on at ``turn_start``/``compaction_start``, off at
    ``agent_end``/``compaction_end``, only while the setting is on; written to the terminal
    (``PiApp.write_terminal``), never while headless."""

    def __init__(self, app: PiApp) -> None:
        self.app = app
        self.active = False
        self._timer: Any = None

    def on_event(self, kind: str | None) -> None:
        if kind in ("turn_start", "compaction_start") and terminal_progress(self.app.session.settings):
            self.set(True)
        elif kind in ("agent_end", "compaction_end"):
            self.set(False)

    def set(self, active: bool) -> None:
        if active:
            self.app.write_terminal(PROGRESS_ACTIVE)
            if self._timer is None:
                self._timer = self.app.set_interval(
                    PROGRESS_KEEPALIVE_SECONDS, lambda: self.app.write_terminal(PROGRESS_ACTIVE)
                )
        elif self.active:
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            self.app.write_terminal(PROGRESS_CLEAR)
        self.active = active
