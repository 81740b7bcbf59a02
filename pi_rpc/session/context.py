"""The model-visible projection of a session: upstream's ``buildSessionProjection`` /
``buildSessionContext`` (pi 1.6 session-manager.js), entry for entry.

Path = root -> leaf. Without a compaction every path entry projects to its messages. With
one, the latest compaction comes first (its ``systemMessage`` checkpoint, then a
``compactionSummary``), then the non-system entries from ``firstKeptEntryId`` up to the
compaction, then everything after it. ``context_edit`` entries in that list replace or omit
their target's content (the latest edit wins).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard, cast

from pi_rpc.session._gc import gc_paused
from pi_rpc.session.entries import Entry
from pi_rpc.session.ids import iso_to_ms, opaque_id

if TYPE_CHECKING:
    from pi_rpc.ai.types import BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, Message


_EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")


def _js_date_ms(timestamp: Any) -> Any:
    """``new Date(ts).getTime()``; NaN serialises as null in JSON."""
    ms = iso_to_ms(timestamp)
    return ms if ms is not None else None


def build_session_path(
    entries: Sequence[Entry], leaf_id: str | None, by_id: Mapping[str, Entry], *, leaf_given: bool = True
) -> list[Entry]:
    """Root -> leaf. ``leaf_id=None`` (an explicit reset) is an empty path; an unknown id
    falls back to the last entry in file order."""
    if leaf_given and leaf_id is None:
        return []
    leaf = by_id.get(leaf_id) if leaf_id else None
    if leaf is None:
        if not entries:
            return []
        leaf = entries[-1]
    path: list[Entry] = []
    add = path.append
    lookup = by_id.get
    # Without a cycle the walk meets each entry of ``by_id`` at most once (plus a leaf that
    # is not in it); a longer walk has gone round a parent cycle in a hand-edited file.
    limit = len(by_id) + 1
    current: Entry | None = leaf
    while current is not None:
        add(current)
        parent = current.get("parentId")
        if not parent:
            break
        try:
            current = lookup(parent)
        except TypeError:  # an unhashable parentId (hand-edited) names no entry, as in JS
            break
        if len(path) > limit:
            return _path_stopping_at_cycle(leaf, lookup)
    path.reverse()
    return path


def _path_stopping_at_cycle(leaf: Entry, lookup: Any) -> list[Entry]:
    path: list[Entry] = []
    seen: set[int] = set()
    current: Entry | None = leaf
    while current is not None:
        if id(current) in seen:
            break
        seen.add(id(current))
        path.append(current)
        parent = current.get("parentId")
        try:
            current = lookup(parent) if parent else None
        except TypeError:
            break
    path.reverse()
    return path


def thinking_level_of(last_thinking_level_change: Entry | None) -> Any:
    """The context's thinking level: the last ``thinking_level_change``'s, else ``"off"``."""
    # Values come straight from the file: a hand-edited entry may lack the key (None).
    if last_thinking_level_change is None:
        return "off"
    return last_thinking_level_change.get("thinkingLevel")


def model_of_change(entry: Entry) -> dict[str, object]:
    return {"provider": entry.get("provider"), "modelId": entry.get("modelId")}


def model_of_message(message: Mapping[str, object]) -> dict[str, object]:
    return {"provider": message.get("provider"), "modelId": message.get("model")}


def session_context_settings(path: Sequence[Entry]) -> tuple[str, dict[str, object] | None]:
    """``(thinkingLevel, model)``: from the last ``thinking_level_change`` on the path and
    the last ``model_change`` or assistant message."""
    last_thinking: Entry | None = None
    model: dict[str, object] | None = None
    model_found = False
    # From the leaf back: the deciding entries are usually near it.
    for index in range(len(path) - 1, -1, -1):
        entry = path[index]
        etype = entry.get("type")
        if etype == "thinking_level_change":
            if last_thinking is None:
                last_thinking = entry
                if model_found:
                    break
        elif not model_found:
            if etype == "model_change":
                model, model_found = model_of_change(entry), True
            elif etype == "message" and _is_assistant_message(message := entry.get("message")):
                model, model_found = model_of_message(message), True
            if model_found and last_thinking is not None:
                break
    return thinking_level_of(last_thinking), model


def _is_assistant_message(message: object) -> TypeGuard[dict[str, object]]:
    return isinstance(message, dict) and message.get("role") == "assistant"


# The arguments are an entry's fields as read from the file (a hand-edited one may hold any
# JSON value), hence ``Any`` in and the message type out.


def create_custom_message(
    custom_type: object, content: object, display: object, details: object, timestamp: object
) -> CustomMessage:
    message: dict[str, object] = {"role": "custom", "customType": custom_type, "content": content, "display": display}
    if details is not None:
        message["details"] = details
    message["timestamp"] = _js_date_ms(timestamp)
    return cast("CustomMessage", message)  # built key by key in upstream's order


def create_branch_summary_message(summary: Any, from_id: Any, timestamp: Any) -> BranchSummaryMessage:
    return {"role": "branchSummary", "summary": summary, "fromId": from_id, "timestamp": _js_date_ms(timestamp)}


def create_compaction_summary_message(summary: Any, tokens_before: Any, timestamp: Any) -> CompactionSummaryMessage:
    return {
        "role": "compactionSummary",
        "summary": summary,
        "tokensBefore": tokens_before,
        "timestamp": _js_date_ms(timestamp),
    }


def entry_to_context_messages(entry: Entry) -> list[Message]:
    """``sessionEntryToContextMessages``: what one entry contributes to the context."""
    etype = entry.get("type")
    if etype == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return []
        role = message.get("role")
        if message.get("content") is None:
            if role == "system":
                message = {**message, "content": ""}
            elif role in ("user", "assistant", "toolResult"):
                message = {**message, "content": []}
        # A message read back from the file is taken for the shape its role names.
        return [cast("Message", message)]
    if etype == "custom_message":
        content = entry.get("content")
        return [
            create_custom_message(
                entry.get("customType"),
                [] if content is None else content,
                entry.get("display"),
                entry.get("details"),
                entry.get("timestamp"),
            )
        ]
    if etype == "branch_summary" and (summary := entry.get("summary")):
        return [create_branch_summary_message(summary, entry.get("fromId"), entry.get("timestamp"))]
    if etype == "compaction":
        summary = create_compaction_summary_message(
            entry.get("summary"), entry.get("tokensBefore"), entry.get("timestamp")
        )
        system_message = entry.get("systemMessage")
        # The stored checkpoint is taken for the system message it was written as.
        return [cast("Message", system_message), summary] if system_message else [summary]
    return []


def build_context_entries(path: Sequence[Entry]) -> list[Entry]:
    """``buildContextEntries`` over an already built path."""
    compaction: Entry | None = None
    compaction_idx = -1
    for index, entry in enumerate(path):
        if entry.get("type") == "compaction":
            compaction, compaction_idx = entry, index
    if compaction is None:
        return list(path)
    out: list[Entry] = [compaction]
    first_kept = compaction.get("firstKeptEntryId")
    found = False
    for entry in path[:compaction_idx]:
        if entry.get("id") == first_kept:
            found = True
        if found and not (
            entry.get("type") == "message"
            and isinstance(message := entry.get("message"), dict)
            and message.get("role") == "system"
        ):
            out.append(entry)
    out.extend(path[compaction_idx + 1 :])
    return out


def project_context_entry(entry: Entry, edit: Entry | None) -> list[Message]:
    """``projectContextEntry``: apply the entry's latest context edit, if any."""
    messages = entry_to_context_messages(entry)
    if edit is None:
        return messages
    replacement = edit.get("replacement")
    if replacement is None:
        return []
    content = replacement.get("content") if isinstance(replacement, dict) else None
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role not in _EDITABLE_ROLES:
            out.append(message)
            continue
        if role in ("assistant", "toolResult") and isinstance(content, str):
            new_content: object = [{"type": "text", "text": content}]
        else:
            new_content = content
        out.append(cast("Message", {**message, "content": new_content}))
    return out


def build_session_projection(
    entries: Sequence[Entry], leaf_id: str | None, by_id: Mapping[str, Entry], *, leaf_given: bool = True
) -> dict[str, object]:
    """``{entries:[{sourceEntry, messages}], messages, thinkingLevel, model}``."""
    with gc_paused():
        path = build_session_path(entries, leaf_id, by_id, leaf_given=leaf_given)
        thinking_level, model = session_context_settings(path)
        projected: list[dict[str, object]] = []
        messages: list[Message] = []
        for source, msgs in _project_path(path):
            projected.append({"sourceEntry": source, "messages": msgs})
            messages.extend(msgs)
        return {"entries": projected, "messages": messages, "thinkingLevel": thinking_level, "model": model}


def _project_path(path: Sequence[Entry]) -> Iterator[tuple[Entry, list[Message]]]:
    """Each context entry of ``path`` with the messages it contributes."""
    context_entries = build_context_entries(path)
    edits: dict[object, Entry] = {}
    for entry in context_entries:
        if entry.get("type") == "context_edit":
            edits[opaque_id(entry.get("targetId"))] = entry  # an array names no entry
    for index, source in enumerate(context_entries):
        # Only the newest compaction (index 0) contributes a checkpoint and summary; an
        # older one can sit inside the kept range.
        if source.get("type") == "compaction" and index > 0:
            yield source, []
        else:
            yield source, project_context_entry(source, edits.get(opaque_id(source.get("id"))) if edits else None)


def build_session_context(
    entries: Sequence[Entry], leaf_id: str | None, by_id: Mapping[str, Entry], *, leaf_given: bool = True
) -> dict[str, object]:
    """``{messages, thinkingLevel, model}``: what ``get_messages`` returns as ``messages``
    (the projection without its per-entry list)."""
    with gc_paused():
        path = build_session_path(entries, leaf_id, by_id, leaf_given=leaf_given)
        thinking_level, model = session_context_settings(path)
        messages: list[Message] = []
        for _source, msgs in _project_path(path):
            messages.extend(msgs)
        return {"messages": messages, "thinkingLevel": thinking_level, "model": model}


# --------------------------------------------------------------------------- system messages
