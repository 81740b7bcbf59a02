"""What the model sees of a branch, entry by entry: the compaction-aware projection the
cut-point search, the token estimates and the summary input all work on.

This mirrors the session layer's context projection (protocol §5.4) but keeps the source
entry of every projected message, which compaction needs and a flat message list loses:
latest compaction first (its system checkpoint and summary), then the kept entries from
``firstKeptEntryId`` up to it (system messages dropped), then everything after it, with the
latest ``context_edit`` per target applied (``replacement: null`` omits the target).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

Entry = dict[str, Any]
Message = dict[str, Any]


def iso_to_ms(timestamp: Any) -> int:
    """An entry's ISO-8601 timestamp as Unix milliseconds (0 when unparsable)."""
    if isinstance(timestamp, (int, float)) and not isinstance(timestamp, bool):
        return int(timestamp)
    if not isinstance(timestamp, str):
        return 0
    try:
        text = timestamp[:-1] + "+00:00" if timestamp.endswith("Z") else timestamp
        return int(datetime.fromisoformat(text).timestamp() * 1000)
    except ValueError:
        return 0


def compaction_summary_message(entry: Entry) -> Message:
    return {
        "role": "compactionSummary",
        "summary": entry.get("summary") or "",
        "tokensBefore": entry.get("tokensBefore") or 0,
        "timestamp": iso_to_ms(entry.get("timestamp")),
    }


def collect_context_edits(path_entries: list[Entry]) -> dict[str, dict[str, Any] | None]:
    """targetId -> replacement of the latest ``context_edit`` for it on the path."""
    edits: dict[str, dict[str, Any] | None] = {}
    for entry in path_entries:
        if entry.get("type") == "context_edit" and isinstance(entry.get("targetId"), str):
            replacement = entry.get("replacement")
            edits[entry["targetId"]] = replacement if isinstance(replacement, dict) else None
    return edits


def entry_to_messages(entry: Entry, edits: dict[str, dict[str, Any] | None] | None = None) -> list[Message]:
    """The agent messages one entry contributes to context (compactions excluded: only the
    projection head speaks for a compaction)."""
    kind = entry.get("type")
    message: Message | None = None
    if kind == "message":
        raw = entry.get("message")
        message = raw if isinstance(raw, dict) else None
    elif kind == "custom_message":
        message = {
            "role": "custom",
            "customType": entry.get("customType"),
            "content": entry.get("content", ""),
            "display": bool(entry.get("display", False)),
            "timestamp": iso_to_ms(entry.get("timestamp")),
        }
        if "details" in entry:
            message["details"] = entry["details"]
    elif kind == "branch_summary":
        if entry.get("summary"):
            message = {
                "role": "branchSummary",
                "summary": entry["summary"],
                "fromId": entry.get("fromId"),
                "timestamp": iso_to_ms(entry.get("timestamp")),
            }
    if message is None:
        return []
    entry_id = entry.get("id")
    if edits and entry_id in edits:
        replacement = edits[entry_id]
        if replacement is None:
            return []
        if "content" in replacement:
            message = {**message, "content": replacement["content"]}
    return [message]


@dataclass
class ProjectedEntry:
    entry: Entry
    path_index: int
    messages: list[Message] = field(default_factory=list)

    @property
    def is_compaction(self) -> bool:
        return self.entry.get("type") == "compaction"


def latest_compaction_index(path_entries: list[Entry]) -> int:
    for i in range(len(path_entries) - 1, -1, -1):
        if path_entries[i].get("type") == "compaction":
            return i
    return -1


def build_projection(path_entries: list[Entry]) -> list[ProjectedEntry]:
    """Project a root→leaf path. Entries that contribute no message are kept (with an empty
    list) so callers can still see settings changes next to a cut."""
    edits = collect_context_edits(path_entries)
    k = latest_compaction_index(path_entries)
    if k < 0:
        return [ProjectedEntry(e, i, entry_to_messages(e, edits)) for i, e in enumerate(path_entries)]

    compaction = path_entries[k]
    head: list[Message] = []
    checkpoint = compaction.get("systemMessage")
    if isinstance(checkpoint, dict):
        head.append(checkpoint)
    head.append(compaction_summary_message(compaction))
    projected = [ProjectedEntry(compaction, k, head)]

    first_kept = compaction.get("firstKeptEntryId")
    start = None
    for i in range(k):
        if path_entries[i].get("id") == first_kept:
            start = i
            break
    if start is not None:
        for i in range(start, k):
            messages = [m for m in entry_to_messages(path_entries[i], edits) if m.get("role") != "system"]
            projected.append(ProjectedEntry(path_entries[i], i, messages))
    for i in range(k + 1, len(path_entries)):
        projected.append(ProjectedEntry(path_entries[i], i, entry_to_messages(path_entries[i], edits)))
    return projected


def projected_messages(projection: list[ProjectedEntry]) -> list[Message]:
    return [m for pe in projection for m in pe.messages]
