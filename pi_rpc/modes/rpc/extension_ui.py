"""The extension UI sub-protocol of RPC mode: ``ctx.ui`` over stdout/stdin.

Dialogs (``select``, ``confirm``, ``input``, ``editor``) write an ``extension_ui_request``
with a fresh UUID v4 ``id`` and wait for the ``extension_ui_response`` with that ``id``; a
``timeout`` (ms, sent in the request) or an aborted ``signal`` resolves them with the default
(``None``, or ``False`` for ``confirm``) without telling the client, and a response that comes
later, or names no pending dialog, is ignored. Fire-and-forget methods (``notify``,
``set_status``, ``set_widget``, ``set_title``, ``set_editor_text``) write a request and return.
Keys whose value is undefined upstream are left out (``notify`` without a type sends no
``notifyType``). Terminal-only methods behave as upstream's RPC mode (no-ops, ``custom`` ->
``None``, ``set_theme`` fails with upstream's text).

An ``abort`` of the run does not dismiss a dialog by itself (upstream): only a dialog given the
run's ``signal`` (``signal=ctx.signal``) resolves with its default; the others keep waiting for
their answer. Once stdin has ended nobody can answer: ``close()`` resolves pending dialogs with
their defaults and later ones return their default without a request.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Protocol

import anyio

from pi_rpc.extensions.ui import ExtensionUI

Parse = Callable[[dict[str, object]], object]


def _value(response: dict[str, object]) -> object:
    if response.get("cancelled"):
        return None
    return response.get("value") if "value" in response else None


def _confirmed(response: dict[str, object]) -> object:
    if response.get("cancelled"):
        return False
    return response.get("confirmed") if "confirmed" in response else False


class DialogTracker(Protocol):
    """--listen (``modes.rpc.listen``): where dialogs are delivered to connections that come
    and go. ``delivered(id)``: None when the request reached a client, else an event set once one
    attaches (the timeout starts then); ``settled(id)``: the dialog is no longer open."""

    def delivered(self, request_id: str) -> anyio.Event | None: ...

    def settled(self, request_id: str) -> None: ...


async def _first_of(*events: anyio.Event) -> None:
    """Return once any of ``events`` is set."""
    async with anyio.create_task_group() as group:

        async def wait(event: anyio.Event) -> None:
            await event.wait()
            group.cancel_scope.cancel()

        for event in events:
            group.start_soon(wait, event)


class RpcExtensionUI(ExtensionUI):
    has_ui = True

    def __init__(self, write: Callable[[dict[str, object]], None], tracker: DialogTracker | None = None) -> None:
        self._write = write
        self._tracker = tracker
        self._pending: dict[str, tuple[anyio.Event, list[dict[str, object]]]] = {}
        self._closed = False

    def close(self) -> None:
        """The client can no longer answer (stdin ended): every pending dialog resolves with
        its default, silently, and new dialogs return their default at once."""
        self._closed = True
        pending, self._pending = self._pending, {}
        for event, _box in pending.values():
            event.set()

    # ------------------------------------------------------------------ responses

    def resolve(self, response: dict[str, object]) -> bool:
        """Route an ``extension_ui_response`` to its dialog; False when none is pending."""
        key = response.get("id")
        pending = self._pending.pop(key, None) if isinstance(key, str) else None
        if pending is None:
            return False
        event, box = pending
        box.append(response)
        event.set()
        return True

    def _request(self, method: str, **fields: object) -> dict[str, object]:
        record: dict[str, object] = {"type": "extension_ui_request", "id": str(uuid.uuid4()), "method": method}
        record.update((key, value) for key, value in fields.items() if value is not None)
        return record

    async def _dialog(
        self, record: dict[str, Any], default: Any, parse: Parse, timeout: Any = None, signal: Any = None
    ) -> object:
        if self._closed or (signal is not None and getattr(signal, "aborted", False)):
            return default
        event = anyio.Event()
        box: list[dict[str, object]] = []
        key = record["id"]
        self._pending[key] = (event, box)
        remove_callback = (
            signal.add_callback(event.set) if signal is not None and hasattr(signal, "add_callback") else None
        )
        try:
            self._write(record)
            waiting = self._tracker.delivered(key) if self._tracker is not None else None
            if waiting is not None:  # no client attached yet: wait for one, then time out as usual
                await _first_of(waiting, event)
            seconds = (
                timeout / 1000
                if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout
                else None
            )
            with anyio.move_on_after(seconds):
                await event.wait()
        finally:
            # Timed out, aborted or cancelled: a late response must find nothing.
            self._pending.pop(key, None)
            if remove_callback is not None:
                remove_callback()
            if self._tracker is not None:
                self._tracker.settled(key)
        return parse(box[0]) if box else default

    # ------------------------------------------------------------------ dialogs

    async def select(self, title: str, options: list[str], timeout: int | None = None, signal: Any = None) -> Any:
        record = self._request("select", title=title, options=list(options), timeout=timeout)
        return await self._dialog(record, None, _value, timeout, signal)

    async def confirm(self, title: str, message: str, timeout: int | None = None, signal: Any = None) -> Any:
        record = self._request("confirm", title=title, message=message, timeout=timeout)
        return await self._dialog(record, False, _confirmed, timeout, signal)

    async def input(
        self, title: str, placeholder: str | None = None, timeout: int | None = None, signal: object = None
    ) -> Any:
        record = self._request("input", title=title, placeholder=placeholder, timeout=timeout)
        return await self._dialog(record, None, _value, timeout, signal)

    async def editor(self, title: str, prefill: str | None = None) -> Any:
        # Upstream's RPC editor has no timeout.
        record = self._request("editor", title=title, prefill=prefill)
        return await self._dialog(record, None, _value)

    # ------------------------------------------------------------------ fire-and-forget

    def notify(self, message: str, type: str | None = None) -> None:
        self._write(self._request("notify", message=message, notifyType=type))

    def set_status(self, key: str, text: str | None = None) -> None:
        self._write(self._request("setStatus", statusKey=key, statusText=text))

    def set_widget(self, key: str, lines: list[str] | None = None, placement: str | None = None) -> None:
        if lines is not None and not isinstance(lines, list):
            return  # component factories need a terminal UI
        self._write(self._request("setWidget", widgetKey=key, widgetLines=lines, widgetPlacement=placement))

    def set_title(self, title: str) -> None:
        self._write(self._request("setTitle", title=title))

    def set_editor_text(self, text: str) -> None:
        self._write(self._request("set_editor_text", text=text))

    def set_theme(self, theme: object) -> dict[str, object]:
        return {"success": False, "error": "Theme switching not supported in RPC mode"}
