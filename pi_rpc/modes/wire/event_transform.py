"""The wire form of session events (upstream ``rpc-mode`` / ``json-event`` transform):
``message_update`` loses the cumulative ``message`` and ``assistantMessageEvent.partial`` and
gains the partial reply's ``usage``; ``toolcall_start`` gains the tool call's ``id`` and
``toolName``. Without this, output would grow quadratically with the reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.runtime.events import SessionEvent


def to_wire_event(event: SessionEvent) -> Mapping[str, object]:
    """The record written for ``event``: the event itself, but for ``message_update``."""
    if event["type"] != "message_update":
        return event
    # A C-level copy (the key order is kept) without the live message.
    wire_inner: dict[str, Any] = dict(event.get("assistantMessageEvent") or {})
    partial: Mapping[str, Any] = wire_inner.pop("partial", None) or event.get("message") or {}
    if wire_inner.get("type") == "toolcall_start":
        content = partial.get("content") or []
        index = wire_inner.get("contentIndex")
        block = content[index] if isinstance(index, int) and 0 <= index < len(content) else {}
        wire_inner["id"] = block.get("id", "")
        wire_inner["toolName"] = block.get("name", "")
    return {"type": "message_update", "usage": partial.get("usage"), "assistantMessageEvent": wire_inner}
