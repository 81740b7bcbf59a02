"""The in-memory index of a session's entries, built in one pass.

``index_entries`` turns the entries after the header (file order) into what the manager
looks things up in: the kept entries (``session`` lines and entries without an id are
dropped, the latter with a diagnostic; an id, ``parentId`` or ``targetId`` that is a JSON
array or object is kept as a key equal only to itself, ``ids.opaque_id``, as upstream's
``Map`` treats it), ``by_id``, the labels, the leaf (the last entry) and
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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.session.context import entry_to_context_messages, model_of_change, model_of_message, thinking_level_of
from pi_rpc.session.entries import ENTRY_TYPES, Entry, ModelChangeEntry, ThinkingLevelChangeEntry, entries_of, entry_of
from pi_rpc.session.ids import opaque_id

if TYPE_CHECKING:
    from pi_rpc.ai.types import Message


_TYPE_NAMES: dict[str, str] = {sys.intern(name): sys.intern(name) for name in (*ENTRY_TYPES, "session")}
# Entry types whose presence needs the general projection (path filtering, content edits).
_REPROJECTING = frozenset(("compaction", "context_edit"))
_CONVERSATION_ROLES = ("user", "assistant")
_HASH_KEEPING_KEY = object()


@dataclass
class LinearProjection:
    """What the projection of a one-chain session needs, gathered while indexing."""

    messages: list[Message]
    last_thinking_level_change: ThinkingLevelChangeEntry | None
    # The last model_change entry, and how many messages came before it: a later assistant
    # message (found from the end of ``messages``) overrides it.
    last_model_change: ModelChangeEntry | None
    messages_before_model_change: int
    # The session as indexed: its last entry (the leaf) and its entry count.
    last_entry: Entry
    entry_count: int

    def settings(self) -> tuple[object, dict[str, object] | None]:
        """``(thinkingLevel, model)`` of the chain (see ``session_context_settings``)."""
        messages = self.messages
        model: dict[str, object] | None = None
        # The newest assistant message after the last model_change wins; usually the last few.
        for index in range(len(messages) - 1, self.messages_before_model_change - 1, -1):
            message = messages[index]
            if message.get("role") == "assistant":
                model = model_of_message(message)
                break
        else:
            if self.last_model_change is not None:
                model = model_of_change(self.last_model_change)
        return thinking_level_of(self.last_thinking_level_change), model


@dataclass
class EntryIndex:
    """The entries of one session file, by id, with their labels and the current leaf."""

    entries: list[Entry] = field(default_factory=list)
    by_id: dict[str, Entry] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    label_timestamps: dict[str, str] = field(default_factory=dict)
    leaf_id: str | None = None
    has_conversation: bool = False
    diagnostics: list[str] = field(default_factory=list)
    # Set when the entries form one chain and hold nothing the general projection handles.
    linear: LinearProjection | None = None


def index_entries(entries: Iterable[Mapping[str, object]]) -> EntryIndex:
    """Index ``entries`` (no header), JSON objects as read back from storage or entries the
    session built: the boundary where stored JSON becomes ``Entry`` (the objects are kept,
    and repaired in place, not copied); see the module docstring."""
    index = EntryIndex()
    # Every caller's entries are dicts, repaired in place below (ids, parents, type names).
    raw_entries = cast("Iterable[dict[str, object]]", entries)
    kept: list[dict[str, object]] = []
    keep = kept.append
    by_id: dict[object, dict[str, object]] = {}
    # A key that is not a str makes CPython keep every key's hash in the table itself
    # ("general" keys), so growing it and resolving collisions never go back to the id
    # strings, which by then are cold in memory: the dominant cost of indexing 100k
    # entries otherwise. Removed again below; lookups behave the same either way.
    by_id[_HASH_KEEPING_KEY] = {}
    labels = index.labels
    label_ts = index.label_timestamps
    # Every message any kept entry contributes, in order (message entries, custom messages,
    # branch summaries): the linear projection, and where conversation and model are found.
    messages: list[Message] = []
    add_message = messages.append
    add_messages = messages.extend
    chained = True  # every kept entry's parentId is the previous kept entry's id
    reprojecting = False
    last_thinking: dict[str, object] | None = None
    last_model_change: dict[str, object] | None = None
    messages_before_model_change = 0
    previous_id: object = None
    # The loop body runs per entry of a long session: the common path (a message entry) is
    # kept to as few operations as possible; other types take the branches at the end.
    for entry in raw_entries:
        etype = entry.get("type")
        entry_id = entry.get("id")
        if entry_id.__class__ is not str:
            if etype == "session":
                continue
            if entry_id is None:
                index.diagnostics.append(f"skipped a {etype!s} entry without an id")
                continue
            # A number, an array, an object (hand-edited): kept as upstream keeps it, an
            # array or object as a key equal only to itself (a JS Map key).
            entry["id"] = entry_id = opaque_id(entry_id)
        elif etype == "session":
            continue
        keep(entry)
        by_id[entry_id] = entry
        parent = entry.get("parentId")
        if parent.__class__ is list or parent.__class__ is dict:
            entry["parentId"] = parent = opaque_id(parent)  # names no entry, as in JS
        if chained and parent is not previous_id:
            if parent == previous_id:
                entry["parentId"] = previous_id
            elif previous_id is not None:
                chained = False
            # The first entry's parent may be anything: the walk from the leaf stops there
            # either way (nothing, or an entry already on the path).
        previous_id = entry_id
        if etype == "message":
            entry["type"] = "message"
            message: Any = entry.get("message")
            try:
                if message.get("content") is not None:
                    add_message(message)
                    continue
            except AttributeError:  # not an object: contributes nothing (below)
                pass
            add_messages(entry_to_context_messages(entry_of(entry)))
            continue
        if etype.__class__ is str:
            name = _TYPE_NAMES.get(etype)
            if name is not None:
                entry["type"] = etype = name
        if etype == "label":
            _apply_label(entry, labels, label_ts)
        elif etype == "thinking_level_change":
            last_thinking = entry
        elif etype == "model_change":
            last_model_change = entry
            messages_before_model_change = len(messages)
        elif etype.__class__ is str and etype in _REPROJECTING:
            reprojecting = True
        else:
            add_messages(entry_to_context_messages(entry_of(entry)))
    del by_id[_HASH_KEEPING_KEY]
    index.entries = entries_of(kept)
    index.by_id = cast("dict[str, Entry]", by_id)  # keyed by id (an opaque key for a hand-edited one)
    index.leaf_id = cast("str | None", previous_id)
    index.has_conversation = any(message.get("role") in _CONVERSATION_ROLES for message in messages)
    if kept and chained and not reprojecting and len(by_id) == len(kept):
        index.linear = LinearProjection(
            messages,
            cast("ThinkingLevelChangeEntry | None", last_thinking),
            cast("ModelChangeEntry | None", last_model_change),
            messages_before_model_change,
            index.entries[-1],
            len(kept),
        )
    return index


def _apply_label(entry: dict[str, object], labels: dict[Any, str], label_ts: dict[Any, str]) -> None:
    """A label entry: its target (as written; not validated here) labelled, or unlabelled by
    an empty label."""
    written: object = entry.get("targetId")
    target = opaque_id(written)
    if target is not written:
        entry["targetId"] = target
    if entry.get("label"):
        labels[target] = entry["label"]  # type: ignore[assignment]  # as written (a hand-edited file)
        label_ts[target] = entry.get("timestamp")  # type: ignore[assignment]
    else:
        labels.pop(target, None)
        label_ts.pop(target, None)
