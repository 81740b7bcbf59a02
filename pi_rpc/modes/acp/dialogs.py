"""``ctx.ui`` for extensions in an ACP session: their dialogs become requests to the editor.

- ``confirm(title, message)`` -> ``session/request_permission`` with the options ``Yes``
  (``allow_once``) and ``No`` (``reject_once``); ``select(title, choices)`` -> one
  ``allow_once`` option per choice. The request needs a tool call, so each dialog is shown as a
  synthetic one (``toolCallId`` ``ui-<hex>``, kind ``other``, the dialog's title, its message
  as content): announced ``pending`` with a ``tool_call`` update, then finished with a
  ``tool_call_update`` — ``completed`` with ``rawOutput`` ``{"confirmed"}`` / ``{"value"}``
  when answered, ``failed`` (``{"cancelled": true}``) when it was not.
- ``input``/``editor`` -> a form elicitation (``elicitation/create``, one string field
  ``value``; ``placeholder`` as its description, ``prefill`` as its default) when the client
  advertises ``elicitation.form`` (unstable in ACP); without it no ACP request fits free text,
  and they return ``None`` at once, as without a UI.
- A client answer ``cancelled`` (or a declined / cancelled elicitation), a ``timeout``, an
  aborted ``signal``, ``session/cancel`` and input EOF all resolve the dialog with its default
  (``False`` for ``confirm``, else ``None``); a late answer is ignored.
- ``notify(message, type)`` -> an ``agent_message_chunk`` on its own paragraph (``Warning:``
  / ``Error:`` prefixed by type), so the editor shows it in the conversation.
- Dialogs and notifications raised while the session is being created (``session_start``
  handlers of ``session/new``/``load``/…) cannot reach the client, which does not know the
  session id yet: dialogs return their defaults, notifications are held until the session's
  result has been sent.
- Status lines, widgets, titles and the editor text have no ACP counterpart: no-ops (the base
  class), as are the terminal-only methods.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import anyio

from pi_rpc.extensions.ui import ExtensionUI
from pi_rpc.modes.acp.jsonrpc import JsonRpcPeer, PeerClosed, RpcError

NOTIFY_PREFIX = {"warning": "Warning: ", "error": "Error: "}


def _seconds(timeout: object) -> float | None:
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
        return timeout / 1000
    return None


def _text(text: str) -> dict[str, object]:
    return {"type": "content", "content": {"type": "text", "text": text}}


class AcpDialogs(ExtensionUI):
    has_ui = True

    def __init__(self, peer: JsonRpcPeer, session_id: str, *, elicitation: bool) -> None:
        self.peer = peer
        self.session_id = session_id
        self.elicitation = elicitation
        self._ready = False
        self._held: list[dict[str, Any]] = []
        self._open: set[anyio.CancelScope] = set()

    # ------------------------------------------------------------------ session lifecycle

    async def ready(self) -> None:
        """The client knows the session now: send what was held, let dialogs through."""
        self._ready = True
        held, self._held = self._held, []
        for update in held:
            await self._update(update)

    def dismiss_all(self) -> None:
        """``session/cancel``: every open dialog resolves with its default."""
        for scope in list(self._open):
            scope.cancel()

    async def post(self, update: dict[str, object]) -> None:
        """A ``session/update`` now, or once the client knows the session."""
        if self._ready:
            await self._update(update)
        else:
            self._held.append(update)

    async def _update(self, update: dict[str, object]) -> None:
        await self.peer.notify("session/update", {"sessionId": self.session_id, "update": update})

    async def request(
        self, method: str, params: dict[str, object], timeout: object = None, signal: object = None
    ) -> object:
        """Send one request and wait for its result; ``None`` when the dialog ended without
        one (timeout, abort, ``session/cancel``, an error answer, input EOF)."""
        if signal is not None and getattr(signal, "aborted", False):
            return None
        scope = anyio.CancelScope()
        seconds = _seconds(timeout)
        if seconds is not None:
            scope.deadline = anyio.current_time() + seconds
        remove = signal.add_callback(scope.cancel) if signal is not None and hasattr(signal, "add_callback") else None
        self._open.add(scope)
        answer: object = None
        try:
            with scope:
                answer = await self.peer.request(method, {"sessionId": self.session_id, **params})
        except (RpcError, PeerClosed):
            answer = None
        finally:
            self._open.discard(scope)
            if remove is not None:
                remove()
        return answer

    # ------------------------------------------------------------------ dialogs

    async def confirm(self, title: str, message: str, timeout: int | None = None, signal: object = None) -> bool:
        options = [
            {"optionId": "yes", "name": "Yes", "kind": "allow_once"},
            {"optionId": "no", "name": "No", "kind": "reject_once"},
        ]
        selected = await self._dialog(
            title, message, options, timeout, signal, lambda chosen: {"confirmed": chosen == "yes"}
        )
        return selected == "yes"

    async def select(
        self, title: str, options: list[str], timeout: int | None = None, signal: object = None
    ) -> str | None:
        choices = [str(option) for option in options]
        if not choices:
            return None
        by_id = {f"choice-{i}": choice for i, choice in enumerate(choices)}
        permission_options = [{"optionId": key, "name": choice, "kind": "allow_once"} for key, choice in by_id.items()]
        selected = await self._dialog(
            title, None, permission_options, timeout, signal, lambda chosen: {"value": by_id[chosen]}
        )
        return by_id.get(selected) if selected is not None else None

    async def _dialog(
        self,
        title: str,
        message: str | None,
        options: list[dict[str, Any]],
        timeout: Any,
        signal: object,
        raw_output: Callable[[str], dict[str, object]],
    ) -> str | None:
        """Show the synthetic tool call, ask, finish the call; the selected ``optionId``."""
        if not self._ready or self.peer.closed or (signal is not None and getattr(signal, "aborted", False)):
            return None
        call_id = f"ui-{uuid.uuid4().hex[:12]}"
        call: dict[str, object] = {
            "toolCallId": call_id,
            "title": title or "Question",
            "kind": "other",
            "status": "pending",
        }
        if message:
            call["content"] = [_text(message)]
        await self._update({"sessionUpdate": "tool_call", **call})
        selected: str | None = None
        try:
            answer = await self.request(
                "session/request_permission", {"toolCall": call, "options": options}, timeout, signal
            )
            outcome = answer.get("outcome") if isinstance(answer, dict) else None
            chosen = (
                outcome.get("optionId") if isinstance(outcome, dict) and outcome.get("outcome") == "selected" else None
            )
            selected = chosen if chosen in {option["optionId"] for option in options} else None
        finally:
            # Also when the dialog's task is cancelled: the editor must not keep a pending call.
            with anyio.CancelScope(shield=True):
                if not self.peer.closed:
                    answered = selected is not None
                    await self._update(
                        {
                            "sessionUpdate": "tool_call_update",
                            "toolCallId": call_id,
                            "status": "completed" if answered else "failed",
                            "rawOutput": raw_output(selected) if selected is not None else {"cancelled": True},
                        }
                    )
        return selected

    async def _text_field(
        self, title: str, description: str | None, default: str | None, timeout: object, signal: object
    ) -> str | None:
        if not self.elicitation or not self._ready or self.peer.closed:
            return None
        field: dict[str, object] = {"type": "string", "title": title or "Value"}
        if description:
            field["description"] = description
        if default is not None:
            field["default"] = default
        schema = {"type": "object", "properties": {"value": field}, "required": ["value"]}
        answer = await self.request(
            "elicitation/create",
            {"mode": "form", "message": title or "Input", "requestedSchema": schema},
            timeout,
            signal,
        )
        if not isinstance(answer, dict) or answer.get("action") != "accept":
            return None
        content = answer.get("content")
        value = content.get("value") if isinstance(content, dict) else None
        return value if isinstance(value, str) else None

    async def input(
        self, title: str, placeholder: str | None = None, timeout: int | None = None, signal: object = None
    ) -> str | None:
        return await self._text_field(title, placeholder, None, timeout, signal)

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return await self._text_field(title, None, prefill, None, None)

    # ------------------------------------------------------------------ fire-and-forget

    def notify(self, message: str, type: str | None = None) -> None:
        text = f"{NOTIFY_PREFIX.get(str(type), '')}{message}"
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"\n\n{text}\n\n"}}
        if not self._ready:
            self._held.append(update)
            return
        self.peer.notify_nowait("session/update", {"sessionId": self.session_id, "update": update})

    def set_theme(self, theme: object) -> dict[str, object]:
        return {"success": False, "error": "Theme switching not supported in ACP mode"}
