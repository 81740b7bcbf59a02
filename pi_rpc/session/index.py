"""The in-memory index of a session's entries, built in one pass.

``index_entries`` turns the entries after the header (file order) into what the manager
looks things up in: the kept entries (``session`` lines and entries without a string id are
dropped, the latter with a diagnostic), ``by_id``, the labels, the leaf (the last entry) and
whether a user or assistant message exists.

When a file is opened the entries arrive straight from the parser, one at a time, so the
same pass also records what the first projection needs while each entry is still in the CPU
cache: a pass over 100,000 freshly parsed entries costs about as much as a tenth of parsing
them, because every entry sits in a different part of memory. ``LinearProjection`` is that
record: for a session that is one unbranched chain (every entry's parent is the entry
before it, ids unique) the root -> leaf path is the entry list itself, so its context
messages and settings can be collected here. The manager uses it for the first
``build_session_context`` after opening, if nothing changed in between.

The same pass makes every ``parentId`` that equals the previous entry's id share that id's
string object, and every entry ``type`` the interned name: equal values, a few megabytes
less for a long session.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_rpc.session.context import entry_to_context_messages
from pi_rpc.session.entries import ENTRY_TYPES

Entry = dict[str, Any]

_TYPE_NAMES: dict[str, str] = {sys.intern(name): sys.intern(name) for name in (*ENTRY_TYPES, "session")}
# Entry types whose presence needs the general projection (path filtering, content edits).
_REPROJECTING = frozenset(("compaction", "context_edit"))


@dataclass
class LinearProjection:
    """What the projection of a one-chain session needs, gathered while indexing."""

    messages: list[dict[str, Any]]
    # The last entry (file order) of each kind that decides a context setting.
    last_thinking_level_change: Entry | None
    last_model_source: Entry | None
    # The session as indexed: its last entry (the leaf) and its entry count.
    last_entry: Entry
    entry_count: int


@dataclass
class EntryIndex:
    entries: list[Entry] = field(default_factory=list)
    by_id: dict[str, Entry] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    label_timestamps: dict[str, str] = field(default_factory=dict)
    leaf_id: str | None = None
    has_conversation: bool = False
    diagnostics: list[str] = field(default_factory=list)
    # Set when the entries form one chain and hold nothing the general projection handles.
    linear: LinearProjection | None = None


def index_entries(entries: Iterable[Entry]) -> EntryIndex:
    """Index ``entries`` (no header); see the module docstring."""
    index = EntryIndex()
    kept = index.entries
    keep = kept.append
    by_id = index.by_id
    labels = index.labels
    label_ts = index.label_timestamps
    type_names = _TYPE_NAMES
    messages: list[dict[str, Any]] = []
    add_message = messages.append
    add_messages = messages.extend
    has_conversation = False
    chained = True  # every kept entry's parentId is the previous kept entry's id
    reprojecting = False
    last_thinking: Entry | None = None
    last_model: Entry | None = None
    previous_id: str | None = None
    for entry in entries:
        etype = entry.get("type")
        if etype == "session":
            continue
        entry_id = entry.get("id")
        if not isinstance(entry_id, str):
            index.diagnostics.append(f"skipped a {etype!s} entry without an id")
            continue
        keep(entry)
        by_id[entry_id] = entry
        if chained and previous_id is not None:
            parent = entry.get("parentId")
            if parent is previous_id:
                pass
            elif parent == previous_id:
                entry["parentId"] = previous_id
            else:
                chained = False
        previous_id = entry_id
        if etype.__class__ is str:
            name = type_names.get(etype)
            if name is not None and name is not etype:
                entry["type"] = etype = name
        if etype == "message":
            message = entry.get("message")
            if isinstance(message, dict):
                role = message.get("role")
                if role == "assistant":
                    has_conversation = True
                    last_model = entry
                elif role == "user":
                    has_conversation = True
                if message.get("content") is not None:
                    add_message(message)
                    continue
            add_messages(entry_to_context_messages(entry))
        elif etype == "label":
            target: Any = entry.get("targetId")  # as written; not validated here
            if entry.get("label"):
                labels[target] = entry["label"]
                label_ts[target] = entry.get("timestamp")  # type: ignore[assignment]
            else:
                labels.pop(target, None)
                label_ts.pop(target, None)
        elif etype == "thinking_level_change":
            last_thinking = entry
        elif etype == "model_change":
            last_model = entry
        elif etype in _REPROJECTING:
            reprojecting = True
        else:
            add_messages(entry_to_context_messages(entry))
    index.leaf_id = previous_id
    index.has_conversation = has_conversation
    if kept and chained and not reprojecting and len(by_id) == len(kept):
        index.linear = LinearProjection(messages, last_thinking, last_model, kept[-1], len(kept))
    return index
