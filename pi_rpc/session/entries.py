"""Builders for the session header and every entry type, with upstream's field names and key
order (the order ``JSON.stringify`` writes them in pi 1.6's session-manager).

Optional fields given as None are left out, like ``undefined`` in JS. Most entries are
``type, id, parentId, timestamp, <payload>``; ``custom`` and ``custom_message`` put their
payload before ``id`` because upstream builds them that way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, TypedDict, TypeGuard, Union, cast

CURRENT_SESSION_VERSION = 3


class SessionHeader(TypedDict):
    """The file's first line (``SessionHeader``); not a tree entry."""

    type: Literal["session"]
    version: NotRequired[int]  # v1 files have none (``migrations.py`` adds it)
    id: str
    timestamp: str
    cwd: str
    parentSession: NotRequired[str]


class _TreeEntry(TypedDict):
    """``SessionEntryBase``: every entry after the header is a node of the tree."""

    id: str
    parentId: str | None
    timestamp: str


class MessageEntry(_TreeEntry):
    type: Literal["message"]
    message: Mapping[str, object]  # an ``AgentMessage`` (``pi_rpc.ai.types.Message``), as stored


class ModelChangeEntry(_TreeEntry):
    type: Literal["model_change"]
    provider: str
    modelId: str


class ThinkingLevelChangeEntry(_TreeEntry):
    type: Literal["thinking_level_change"]
    thinkingLevel: str


class UsageEntry(_TreeEntry):
    type: Literal["usage"]
    kind: str
    provider: str
    model: str
    usage: dict[str, object]
    note: NotRequired[str]


class CompactionEntry(_TreeEntry):
    type: Literal["compaction"]
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    details: NotRequired[object]
    usage: NotRequired[Mapping[str, object]]
    fromHook: NotRequired[bool]
    systemMessage: NotRequired[dict[str, object]]


class BranchSummaryEntry(_TreeEntry):
    type: Literal["branch_summary"]
    fromId: str
    summary: str
    details: NotRequired[object]
    usage: NotRequired[dict[str, object]]
    fromHook: NotRequired[bool]


class CustomEntry(_TreeEntry):
    type: Literal["custom"]
    customType: str
    data: NotRequired[object]


class CustomMessageEntry(_TreeEntry):
    type: Literal["custom_message"]
    customType: str
    content: object  # a string or content blocks
    display: NotRequired[bool]
    details: NotRequired[object]


class ContextEditEntry(_TreeEntry):
    type: Literal["context_edit"]
    targetId: str
    replacement: dict[str, object] | None


class LabelEntry(_TreeEntry):
    type: Literal["label"]
    targetId: str
    label: NotRequired[str]


class SessionInfoEntry(_TreeEntry):
    type: Literal["session_info"]
    name: NotRequired[str]


Entry = Union[
    MessageEntry,
    ModelChangeEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
    CompactionEntry,
    BranchSummaryEntry,
    CustomEntry,
    CustomMessageEntry,
    ContextEditEntry,
    LabelEntry,
    SessionInfoEntry,
]
"""One line of a session file after the header, by its ``type``."""

SessionLine = Union[SessionHeader, Entry]
"""Any line of a session file, as the stores write and read them."""

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


def entry_of(raw: Mapping[str, object]) -> Entry:
    """A JSON object read back from storage, as the entry its ``type`` names.

    The boundary where untrusted JSON becomes an ``Entry``: the object is taken as written
    (a file of upstream's or ours), unknown fields and types kept, like upstream's loader,
    which does not validate entries either. Readers still check a field's type where a
    wrong one would crash them.
    """
    return cast(Entry, raw)


def entries_of(raw: list[dict[str, object]]) -> list[Entry]:
    """A list of stored JSON objects, as entries (see ``entry_of``; the same list, no copy)."""
    return cast("list[Entry]", raw)


def is_message_entry(entry: Entry) -> TypeGuard[MessageEntry]:
    """``entry.get("type") == "message"``, narrowing (an entry read back may lack its type)."""
    return entry.get("type") == "message"


def header_of(raw: Mapping[str, object]) -> SessionHeader:
    """A stored first line, as the session header (see ``entry_of``)."""
    return cast(SessionHeader, raw)


def make_header(session_id: str, timestamp: str, cwd: str, parent_session: str | None = None) -> SessionHeader:
    header: SessionHeader = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": session_id,
        "timestamp": timestamp,
        "cwd": cwd,
    }
    if parent_session:
        header["parentSession"] = parent_session
    return header


def message_entry(id: str, parent_id: str | None, timestamp: str, message: Mapping[str, object]) -> MessageEntry:
    return {"type": "message", "id": id, "parentId": parent_id, "timestamp": timestamp, "message": message}


def model_change_entry(
    id: str, parent_id: str | None, timestamp: str, provider: str, model_id: str
) -> ModelChangeEntry:
    return {
        "type": "model_change",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "provider": provider,
        "modelId": model_id,
    }


def thinking_level_change_entry(
    id: str, parent_id: str | None, timestamp: str, thinking_level: str
) -> ThinkingLevelChangeEntry:
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
) -> UsageEntry:
    entry: UsageEntry = {
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
) -> CompactionEntry:
    entry: CompactionEntry = {
        "type": "compaction",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "summary": summary,
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }
    if details is not None:
        entry["details"] = details
    if usage is not None:
        entry["usage"] = usage
    if from_hook is not None:
        entry["fromHook"] = from_hook
    if system_message is not None:
        entry["systemMessage"] = system_message
    return entry


def branch_summary_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    from_id: str,
    summary: str,
    details: object = None,
    usage: dict[str, object] | None = None,
    from_hook: bool | None = None,
) -> BranchSummaryEntry:
    entry: BranchSummaryEntry = {
        "type": "branch_summary",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "fromId": from_id,
        "summary": summary,
    }
    if details is not None:
        entry["details"] = details
    if usage is not None:
        entry["usage"] = usage
    if from_hook is not None:
        entry["fromHook"] = from_hook
    return entry


def custom_entry(id: str, parent_id: str | None, timestamp: str, custom_type: str, data: object = None) -> CustomEntry:
    entry: dict[str, object] = {"type": "custom", "customType": custom_type}
    if data is not None:
        entry["data"] = data
    entry["id"] = id
    entry["parentId"] = parent_id
    entry["timestamp"] = timestamp
    return cast(CustomEntry, entry)  # its key order is upstream's, payload before id


def custom_message_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    custom_type: str,
    content: object,
    display: bool | None,
    details: object = None,
) -> CustomMessageEntry:
    entry: dict[str, object] = {"type": "custom_message", "customType": custom_type, "content": content}
    if display is not None:  # upstream's JSON leaves an undefined display out
        entry["display"] = display
    if details is not None:
        entry["details"] = details
    entry["id"] = id
    entry["parentId"] = parent_id
    entry["timestamp"] = timestamp
    return cast(CustomMessageEntry, entry)  # its key order is upstream's, payload before id


def context_edit_entry(
    id: str,
    parent_id: str | None,
    timestamp: str,
    target_id: str,
    replacement: dict[str, object] | None,
) -> ContextEditEntry:
    return {
        "type": "context_edit",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "targetId": target_id,
        "replacement": replacement,
    }


def label_entry(id: str, parent_id: str | None, timestamp: str, target_id: str, label: str | None) -> LabelEntry:
    entry: LabelEntry = {
        "type": "label",
        "id": id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "targetId": target_id,
    }
    if label is not None:
        entry["label"] = label
    return entry


def session_info_entry(id: str, parent_id: str | None, timestamp: str, name: str | None) -> SessionInfoEntry:
    entry: SessionInfoEntry = {"type": "session_info", "id": id, "parentId": parent_id, "timestamp": timestamp}
    if name is not None:
        entry["name"] = name
    return entry
