"""Textual's Linux drivers (fullscreen and inline) with an input thread that sleeps while idle.

Textual's input thread wakes every 100 ms (``select(0.1)``) to see whether it should stop and
to time out a lone Escape: ten wake-ups a second, the only CPU an idle ``pi`` used (issue 37:
upstream idles at 0.00 s). Here the thread blocks in ``select`` until the terminal sends bytes,
the parser's own deadline comes (the Escape timeout, only while a sequence is incomplete), or
the driver asks it to stop: the driver's ``exit_event`` is a ``WakingEvent``, whose ``set``
also writes a byte to a pipe the thread watches. Everything else is Textual's own driver.
"""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import Any

from textual import events
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.drivers.linux_inline_driver import LinuxInlineDriver


class WakingEvent(threading.Event):
    """A driver's ``exit_event``: setting it also wakes the input thread blocked in ``select``."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._wake_write: int | None = None

    def open_pipe(self) -> int:
        """A new wake pipe for one run of the input thread; returns its read end."""
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        with self._lock:
            self._wake_write = write_end
        return read_end

    def close_pipe(self, read_end: int) -> None:
        with self._lock:
            write_end, self._wake_write = self._wake_write, None
        for fd in (read_end, write_end):
            if fd is not None:
                os.close(fd)

    def set(self) -> None:
        super().set()
        with self._lock:
            if self._wake_write is not None:
                try:
                    os.write(self._wake_write, b"x")
                except OSError:  # the pipe is full: the thread is woken already
                    pass


def parser_timeout(parser: Any) -> float | None:
    """How long the input thread may sleep: until the parser's deadline (it waits for the rest
    of an escape sequence, e.g. to tell a lone Escape from Alt+key), or for ever.

    ``_timeout_time`` is the deadline ``Parser.tick`` checks (Textual has no public accessor)."""
    deadline = getattr(parser, "_timeout_time", None)
    if deadline is None:
        return None
    return max(0.0, float(deadline) - get_time())


def read_input(fileno: int, exit_event: WakingEvent, parser: Any, dispatch: Callable[[Any], None]) -> None:
    """The input thread's loop: read the terminal, parse, dispatch, until ``exit_event``."""
    wake = exit_event.open_pipe()
    # SelectSelector, as Textual's own loop uses: epoll cannot watch every kind of stdin
    selector = selectors.SelectSelector()
    selector.register(fileno, selectors.EVENT_READ)
    selector.register(wake, selectors.EVENT_READ)
    decode = getincrementaldecoder("utf-8")().decode
    try:
        while not exit_event.is_set():
            for key, mask in selector.select(parser_timeout(parser)):
                if key.fd == wake:
                    os.read(wake, 64)
                elif mask & selectors.EVENT_READ:
                    data = decode(os.read(fileno, 1024 * 4))
                    if not data:
                        # stdin at its end: a pipe closed, or the terminal hung up (its window
                        # closed, ``tmux kill-server``); no byte will ever come. It stays
                        # readable for ever: going on spun this thread at a full core (starving
                        # the loop ending the app on SIGHUP), and a thread left waiting kept
                        # the process alive until the hard-exit timer. Textual's own loop
                        # ends here too.
                        return
                    for event in parser.feed(data):
                        dispatch(event)
            for event in parser.tick():
                dispatch(event)
    finally:
        selector.close()
        exit_event.close_pipe(wake)
        try:
            for _ in parser.feed(""):
                pass
        except Exception:  # noqa: BLE001 - an incomplete sequence at exit (Textual ignores it too)
            pass


def terminal_size(*fds: int) -> tuple[int, int] | None:
    """The size of the first of ``fds`` that is a terminal, read from the terminal itself."""
    for fd in fds:
        try:
            size = os.get_terminal_size(fd)
        except (OSError, ValueError):
            continue
        if size.columns > 0 and size.lines > 0:
            return size.columns, size.lines
    return None


class QuietDriver(LinuxDriver):
    """The fullscreen (alternate screen) driver, with the sleeping input thread."""

    def __init__(self, app: Any, *, debug: bool = False, mouse: bool = True, size: Any = None) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.exit_event = WakingEvent()

    def _get_terminal_size(self) -> tuple[int, int]:
        # Textual asks ``shutil.get_terminal_size``, which prefers exported COLUMNS/LINES to the
        # terminal: they never follow a resize (tmux exports 80x24 for a client without a
        # terminal; the app drew 80x24 in a 100x30 window, and ghosts after each resize).
        # Upstream reads the terminal itself; so do we, and leave the environment alone.
        return terminal_size(self.fileno, 1, 2) or super()._get_terminal_size()

    def run_input_thread(self) -> None:
        assert isinstance(self.exit_event, WakingEvent)
        read_input(self.fileno, self.exit_event, XTermParser(self._debug), self.process_message)


class QuietInlineDriver(LinuxInlineDriver):
    """The inline (``tuiMode`` regular) driver, with the sleeping input thread."""

    def __init__(self, app: Any, *, debug: bool = False, mouse: bool = True, size: Any = None) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.exit_event = WakingEvent()

    def _get_terminal_size(self) -> tuple[int, int]:
        # the terminal itself, not exported COLUMNS/LINES (see QuietDriver)
        return terminal_size(self.fileno, 1, 2) or super()._get_terminal_size()

    def run_input_thread(self) -> None:
        assert isinstance(self.exit_event, WakingEvent)

        def dispatch(event: Any) -> None:
            # the inline driver keeps the cursor's position for itself (as Textual's loop does)
            if isinstance(event, events.CursorPosition):
                self.cursor_origin = (event.x, event.y)
            else:
                self.process_message(event)

        read_input(self.fileno, self.exit_event, XTermParser(self._debug), dispatch)


class SwitchableDriver:
    """The app's driver in a real terminal: one of the two above, replaceable while the app
    runs (``tuiMode`` switched live from ``/settings``, as upstream's ``switchTuiMode``).
    Textual keeps the driver it built for the whole run (it stops that one at exit): this
    holder is it, and everything is done by the driver inside."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def start_application_mode(self) -> None:
        self.inner.start_application_mode()

    def stop_application_mode(self) -> None:
        self.inner.stop_application_mode()

    def close(self) -> None:
        self.inner.close()

    def replace(self, fullscreen: bool) -> None:
        """Leave the terminal as the driver inside leaves it at exit, then start the other."""
        app = self.inner._app
        self.inner.stop_application_mode()
        self.inner.close()
        kind = QuietDriver if fullscreen else QuietInlineDriver
        self.inner = kind(app, debug=self.inner._debug, mouse=self.inner._mouse)
        self.inner.start_application_mode()
