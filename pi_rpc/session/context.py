"""The model-visible projection of a session: upstream's ``buildSessionProjection`` /
``buildSessionContext`` (pi 1.6 session-manager.js), entry for entry.

Path = root -> leaf. Without a compaction every path entry projects to its messages. With
one, the latest compaction comes first (its ``systemMessage`` checkpoint, then a
``compactionSummary``), then the non-system entries from ``firstKeptEntryId`` up to the
compaction, then everything after it. ``context_edit`` entries in that list replace or omit
their target's content (the latest edit wins).
"""

from __future__ import annotations


from collections.abc import Mapping, Sequence
from typing import Any

from pi_rpc.session._gc import gc_paused
from pi_rpc.session.ids import iso_to_ms

Entry = dict[str, Any]
Message = dict[str, Any]

_EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")


def _js_date_ms(timestamp: Any) -> Any:
    """``new Date(ts).getTime()``; NaN serialises as null in JSON."""
    ms = iso_to_ms(timestamp)
    return ms if ms is not None else None


def build_session_path(entries: Sequence[Entry], leaf_id: str | None, by_id: Mapping[str, Entry], *,
                       leaf_given: bool = True) -> list[Entry]:
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
    current: Entry | None = leaf
    seen: set[int] = set()
    while current is not None:
        if id(current) in seen:  # a parent cycle in a hand-edited file
            break
        seen.add(id(current))
        path.append(current)
        parent = current.get("parentId")
        current = by_id.get(parent) if parent else None
    path.reverse()
    return path


def session_context_settings(path: Sequence[Entry]) -> tuple[str, dict[str, Any] | None]:
    thinking_level = "off"
    # Values come straight from the file: a hand-edited entry may lack either key (None).
    model: dict[str, Any] | None = None
    for entry in path:
        etype = entry.get("type")
        if etype == "thinking_level_change":
            thinking_level = entry.get("thinkingLevel")  # type: ignore[assignment]
        elif etype == "model_change":
            model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif etype == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
    return thinking_level, model


def create_custom_message(custom_type: Any, content: Any, display: Any, details: Any, timestamp: Any) -> Message:
    message: Message = {"role": "custom", "customType": custom_type, "content": content, "display": display}
    if details is not None:
        message["details"] = details
    message["timestamp"] = _js_date_ms(timestamp)
    return message


def create_branch_summary_message(summary: Any, from_id: Any, timestamp: Any) -> Message:
    return {"role": "branchSummary", "summary": summary, "fromId": from_id, "timestamp": _js_date_ms(timestamp)}


def create_compaction_summary_message(summary: Any, tokens_before: Any, timestamp: Any) -> Message:
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
                return [{**message, "content": ""}]
            if role in ("user", "assistant", "toolResult"):
                return [{**message, "content": []}]
        return [message]
    if etype == "custom_message":
        content = entry.get("content")
        return [create_custom_message(
            entry.get("customType"), [] if content is None else content, entry.get("display"),
            entry.get("details"), entry.get("timestamp"),
        )]
    if etype == "branch_summary" and entry.get("summary"):
        return [create_branch_summary_message(entry["summary"], entry.get("fromId"), entry.get("timestamp"))]
    if etype == "compaction":
        summary = create_compaction_summary_message(entry.get("summary"), entry.get("tokensBefore"), entry.get("timestamp"))
        system_message = entry.get("systemMessage")
        return [system_message, summary] if system_message else [summary]
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
            and isinstance(entry.get("message"), dict)
            and entry["message"].get("role") == "system"
        ):
            out.append(entry)
    out.extend(path[compaction_idx + 1:])
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
            new_content: Any = [{"type": "text", "text": content}]
        else:
            new_content = content
        out.append({**message, "content": new_content})
    return out


def build_session_projection(entries: Sequence[Entry], leaf_id: str | None, by_id: Mapping[str, Entry], *,
                             leaf_given: bool = True) -> dict[str, Any]:
    """``{entries:[{sourceEntry, messages}], messages, thinkingLevel, model}``."""
    with gc_paused():
        return _build_session_projection(entries, leaf_id, by_id, leaf_given)


def _build_session_projection(entries: Sequence[Entry], leaf_id: str | None, by_id: Mapping[str, Entry],
                              leaf_given: bool) -> dict[str, Any]:
    path = build_session_path(entries, leaf_id, by_id, leaf_given=leaf_given)
    thinking_level, model = session_context_settings(path)
    context_entries = build_context_entries(path)
    edits: dict[Any, Entry] = {}
    for entry in context_entries:
        if entry.get("type") == "context_edit":
            edits[entry.get("targetId")] = entry
    projected: list[dict[str, Any]] = []
    messages: list[Message] = []
    for index, source in enumerate(context_entries):
        # Only the newest compaction (index 0) contributes a checkpoint and summary; an
        # older one can sit inside the kept range.
        if source.get("type") == "compaction" and index > 0:
            msgs: list[Message] = []
        else:
            msgs = project_context_entry(source, edits.get(source.get("id")))
        projected.append({"sourceEntry": source, "messages": msgs})
        messages.extend(msgs)
    return {"entries": projected, "messages": messages, "thinkingLevel": thinking_level, "model": model}


def build_session_context(entries: Sequence[Entry], leaf_id: str | None, by_id: Mapping[str, Entry], *,
                          leaf_given: bool = True) -> dict[str, Any]:
    """``{messages, thinkingLevel, model}``: what ``get_messages`` returns as ``messages``."""
    projection = build_session_projection(entries, leaf_id, by_id, leaf_given=leaf_given)
    return {"messages": projection["messages"], "thinkingLevel": projection["thinkingLevel"],
            "model": projection["model"]}


# --------------------------------------------------------------------------- system messages


