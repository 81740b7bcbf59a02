"""What the model sees of a branch, entry by entry: the compaction-aware projection the
cut-point search, the token estimates and the summary input all work on.

It is the session store's own projection (``pi_rpc.session.context``: latest compaction first
with its system checkpoint and summary, kept entries from ``firstKeptEntryId``, everything
after it, the latest ``context_edit`` per target applied), with each message's source entry and
its index on the path kept, which compaction needs and a flat message list loses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pi_rpc.session.context import (
    build_context_entries,
    create_compaction_summary_message,
    entry_to_context_messages,
    project_context_entry,
)
from pi_rpc.session.entries import Entry

if TYPE_CHECKING:
    from pi_rpc.ai.types import Message


def compaction_summary_message(entry: Entry) -> Message:
    return create_compaction_summary_message(entry.get("summary"), entry.get("tokensBefore"), entry.get("timestamp"))


def collect_context_edits(entries: list[Entry]) -> dict[str, Entry]:
    """targetId -> the latest ``context_edit`` entry for it."""
    edits: dict[str, Entry] = {}
    for entry in entries:
        if entry.get("type") == "context_edit" and isinstance(target := entry.get("targetId"), str):
            edits[target] = entry
    return edits


def entry_to_messages(entry: Entry, edits: dict[str, Entry] | None = None) -> list[Message]:
    """The agent messages one entry contributes to context, its edit applied (compactions
    excluded: only the projection head speaks for a compaction)."""
    if entry.get("type") == "compaction":
        return []
    return project_context_entry(entry, (edits or {}).get(str(entry.get("id"))))


@dataclass
class ProjectedEntry:
    entry: Entry
    path_index: int
    messages: list[Message] = field(default_factory=list)

    @property
    def is_compaction(self) -> bool:
        return self.entry.get("type") == "compaction"


def build_projection(path_entries: list[Entry]) -> list[ProjectedEntry]:
    """Project a root→leaf path. Entries that contribute no message are kept (with an empty
    list) so callers can still see settings changes next to a cut."""
    index_on_path = {id(entry): i for i, entry in enumerate(path_entries)}
    context = build_context_entries(path_entries)
    edits = collect_context_edits(context)
    projected: list[ProjectedEntry] = []
    for position, entry in enumerate(context):
        if entry.get("type") == "compaction":
            # Only the newest compaction (the head) contributes its checkpoint and summary.
            messages = entry_to_context_messages(entry) if position == 0 else []
        else:
            messages = entry_to_messages(entry, edits)
        projected.append(ProjectedEntry(entry, index_on_path[id(entry)], messages))
    return projected
