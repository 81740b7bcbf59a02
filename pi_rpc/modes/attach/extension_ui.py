"""The server's extension UI in ``pi attach``'s terminal (``RemoteSession.dialogs``).

An ``extension_ui_request`` of the attached session is shown by the terminal UI the app binds
(``TerminalUI``): dialogs (``select``, ``confirm``, ``input``, ``editor``) are answered with
``extension_ui_response``, or dismissed when another client answered first
(``extension_ui_resolved``) or the connection ended; notices, statuses, widgets, the title and
the editor text are applied in the app's message loop. While this terminal runs a ``/login``
(``login`` set), the login's questions go to it instead (commands.py's ``LoginDialogs``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

Record = dict[str, Any]
_DIALOGS = frozenset({"select", "confirm", "input", "editor"})


class _Signal:
    """An abort signal for a dialog another client answered (``TerminalUI._dialog``)."""

    def __init__(self) -> None:
        self.aborted = False
        self._callbacks: list[Callable[[], None]] = []

    def add_callback(self, fn: Callable[[], None]) -> Callable[[], None]:
        self._callbacks.append(fn)
        return lambda: None

    def abort(self) -> None:
        self.aborted = True
        for fn in self._callbacks:
            fn()


class RemoteDialogs:
    """The dialogs open in this terminal and where their answers go."""

    def __init__(self, send: Callable[[Record], Awaitable[None]]) -> None:
        self._send = send
        self.ui: Any = None
        self.login: Callable[[Record], Awaitable[Record | None]] | None = None
        self._open: dict[str, _Signal] = {}

    def resolved(self, key: str) -> None:
        """Another client answered: the dialog goes away."""
        signal = self._open.pop(key, None)
        if signal is not None:
            signal.abort()

    def abort_all(self) -> None:
        """The connection ended: nothing open can be answered any more."""
        for signal in self._open.values():
            signal.abort()
        self._open.clear()

    def notify(self, text: str, kind: str | None = None) -> None:
        if self.ui is not None:
            self.ui.notify(text, kind)

    def status(self, key: str, text: str | None) -> None:
        if self.ui is not None:
            self.in_app(self.ui.set_status, key, text)

    def in_app(self, fn: Callable[..., object], *args: object) -> None:
        """Call the terminal UI's ``fn`` from the app's own message loop: records are read in
        a task outside the app, where Textual has no active app to update widgets with."""
        app = getattr(self.ui, "app", None)
        if app is not None and hasattr(app, "call_later"):
            app.call_later(fn, *args)
        else:
            fn(*args)

    async def serve(self, record: Record) -> None:
        """An ``extension_ui_request``: shown, answered, or dismissed when answered elsewhere."""
        ui = self.ui
        method = record.get("method")
        if self.login is not None and method in ("select", "input", "notify"):
            # (a /login of this terminal: its questions, masked where they ask for a secret)
            reply = await self.login(record)
            if reply is not None:
                await self._answer({"type": "extension_ui_response", "id": str(record.get("id")), **reply})
            return
        if ui is None:
            return
        if method not in _DIALOGS:
            if method == "notify":
                self.in_app(ui.notify, str(record.get("message") or ""), record.get("notifyType"))
            elif method == "setStatus":
                self.in_app(ui.set_status, str(record.get("statusKey") or ""), record.get("statusText"))
            elif method == "setWidget":
                self.in_app(
                    ui.set_widget,
                    str(record.get("widgetKey") or ""),
                    record.get("widgetLines"),
                    record.get("widgetPlacement"),
                )
            elif method == "setTitle":
                self.in_app(ui.set_title, str(record.get("title") or ""))
            elif method == "set_editor_text":
                self.in_app(ui.set_editor_text, str(record.get("text") or ""))
            return
        key = str(record.get("id"))
        signal = _Signal()
        self._open[key] = signal
        title = str(record.get("title") or "")
        timeout = record.get("timeout")
        try:
            if method == "select":
                value = await ui.select(title, list(record.get("options") or []), timeout, signal)
            elif method == "confirm":
                value = await ui.confirm(title, str(record.get("message") or ""), timeout, signal)
            elif method == "input":
                value = await ui.input(title, record.get("placeholder"), timeout, signal)
            else:
                value = await ui.editor(title, record.get("prefill"))
        finally:
            self._open.pop(key, None)
        if signal.aborted:
            return  # answered elsewhere (or the connection ended)
        answer: Record = {"type": "extension_ui_response", "id": key}
        if method == "confirm":
            answer["confirmed"] = bool(value)
        elif value is None:
            answer["cancelled"] = True
        else:
            answer["value"] = value
        await self._answer(answer)

    async def _answer(self, answer: Record) -> None:
        try:
            await self._send(answer)
        except Exception:  # noqa: BLE001 - the connection ended: nothing to answer
            pass
