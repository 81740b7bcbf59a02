"""Builders for the session header and every entry type, with upstream's field names and key
order (the order ``JSON.stringify`` writes them in pi 1.6's session-manager).

Optional fields given as None are left out, like ``undefined`` in JS. Most entries are
``type, id, parentId, timestamp, <payload>``; ``custom`` and ``custom_message`` put their
payload before ``id`` because upstream builds them that way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CURRENT_SESSION_VERSION = 3

Entry = dict[str, Any]

ENTRY_TYPES = (
    "message",
    "model_change",
    "thinking_level_change",
    "usage",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "context_edit",
    "label",
    "session_info",
)


def _drop_none(d: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in d.items() if v is not None}


def make_header(session_id: str, timestamp: str, cwd: str, parent_session: str | None = None) -> Entry:
    header: Entry = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": session_id,
        "timestamp": timestamp,
        "cwd": cwd,
    }
    if parent_session:
        header["parentSession"] = parent_session
    return header


def message_entry(id: str, parent_id: str | None, timestamp: str, message: Mapping[str, object]) -> Entry:
    return {"type": "message", "id": id, "parentId": parent_id, "timestamp": timestamp, "message": message}


def model_change_entry(id: str, parent_id: str | None, timestamp: str, provider: str, model_id: str) -> Entry:
    return {
        "type": "model_change",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "provider": provider,
        "modelId": model_id,
    }


def thinking_level_change_entry(id: str, parent_id: str | None, timestamp: str, thinking_level: str) -> Entry:
    return {
        "type": "thinking_level_change",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "thinkingLevel": thinking_level,
    }


def usage_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    kind: str,
    provider: str,
    model: str,
    usage: dict[str, object],
    note: str | None = None,
) -> Entry:
    entry: Entry = {
        "type": "usage",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "kind": kind,
        "provider": provider,
        "model": model,
        "usage": usage,
    }
    if note:
        entry["note"] = note
    return entry


def compaction_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    summary: str,
    first_kept_entry_id: str,
    tokens_before: int,
    details: object = None,
    usage: Mapping[str, object] | None = None,
    from_hook: bool | None = None,
    system_message: dict[str, object] | None = None,
) -> Entry:
    head: Entry = {"type": "compaction", "id": id, "parentId": parent_id, "timestamp": timestamp}
    return head | _drop_none(
        {
            "summary": summary,
            "firstKeptEntryId": first_kept_entry_id,
            "tokensBefore": tokens_before,
            "details": details,
            "usage": usage,
            "fromHook": from_hook,
            "systemMessage": system_message,
        }
    )


def branch_summary_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    from_id: str,
    summary: str,
    details: object = None,
    usage: dict[str, object] | None = None,
    from_hook: bool | None = None,
) -> Entry:
    head: Entry = {"type": "branch_summary", "id": id, "parentId": parent_id, "timestamp": timestamp}
    return head | _drop_none(
        {"fromId": from_id, "summary": summary, "details": details, "usage": usage, "fromHook": from_hook}
    )


def custom_entry(id: str, parent_id: str | None, timestamp: str, custom_type: str, data: object = None) -> Entry:
    entry: Entry = {"type": "custom", "customType": custom_type}
    if data is not None:
        entry["data"] = data
    entry["id"] = id
    entry["parentId"] = parent_id
    entry["timestamp"] = timestamp
    return entry


def custom_message_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    custom_type: str,
    content: object,
    display: bool | None,
    details: object = None,
) -> Entry:
    entry: Entry = {"type": "custom_message", "customType": custom_type, "content": content}
    if display is not None:  # upstream's JSON leaves an undefined display out
        entry["display"] = display
    if details is not None:
        entry["details"] = details
    entry["id"] = id
    entry["parentId"] = parent_id
    entry["timestamp"] = timestamp
    return entry


def context_edit_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    target_id: str,
    replacement: dict[str, object] | None,
) -> Entry:
    return {
        "type": "context_edit",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "targetId": target_id,
        "replacement": replacement,
    }


def label_entry(id: str, parent_id: str | None, timestamp: str, target_id: str, label: str | None) -> Entry:
    entry: Entry = {"type": "label", "id": id, "parentId": parent_id, "timestamp": timestamp, "targetId": target_id}
    if label is not None:
        entry["label"] = label
    return entry


def session_info_entry(id: str, parent_id: str | None, timestamp: str, name: str | None) -> Entry:
    entry: Entry = {"type": "session_info", "id": id, "parentId": parent_id, "timestamp": timestamp}
    if name is not None:
        entry["name"] = name
    return entry
