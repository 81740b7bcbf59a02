"""The session store's reading semantics written the plain way, as they were before the
open path was tuned for speed (issue 16): read the whole file, split it on LF, parse each
line, filter and index the entries in a second pass, and project by walking the path with a
seen-set and scanning the whole path for the settings. The tuned store must agree with it on
every input (``test_open_equivalence.py``). The per-entry conversions (upstream's
``sessionEntryToContextMessages`` etc.) are the package's own: they are not what was tuned
and the golden tests pin them against upstream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from pi_rpc.session.context import build_context_entries, project_context_entry
from pi_rpc.session.ids import opaque_id
from pi_rpc.session.loader import _parse_line, is_valid_header, salvage_line
from pi_rpc.session.migrations import migrate_to_current_version

Entry = dict[str, Any]


@dataclass
class Loaded:
    entries: list[Entry] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    size: int = 0
    valid_len: int = 0
    torn_tail: bytes | None = None
    missing_newline: bool = False
    blank: bool = True


def parse(data: bytes) -> Loaded:
    out = Loaded(size=len(data))
    body_end = data.rfind(b"\n") + 1
    out.valid_len = body_end
    out.blank = not data.strip()
    tail = data[body_end:]
    lines = data[:body_end].split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            if not line.strip():
                continue
            try:
                value = _parse_line(line)
            except orjson.JSONDecodeError:
                salvaged = salvage_line(line)
                if salvaged is not None:
                    out.diagnostics.append(
                        f"line {number}: malformed JSON ({len(line)} bytes); recovered the entry "
                        f"appended after a torn line"
                    )
                    out.entries.append(salvaged)
                else:
                    out.diagnostics.append(f"line {number}: skipped malformed JSON ({len(line)} bytes)")
                continue
        if type(value) is not dict:
            out.diagnostics.append(f"line {number}: skipped a JSON value that is not an object")
            continue
        out.entries.append(value)
    if tail.strip():
        number = len(lines) + 1
        try:
            value = _parse_line(tail)
        except orjson.JSONDecodeError:
            out.torn_tail = tail
            out.diagnostics.append(f"line {number}: torn last line ({len(tail)} bytes, no newline, not valid JSON)")
        else:
            out.missing_newline = True
            if type(value) is dict:
                out.entries.append(value)
            else:
                out.diagnostics.append(f"line {number}: skipped a JSON value that is not an object")
    elif tail:
        out.missing_newline = True
    return out


@dataclass
class Store:
    """What a read-only open of a file with a valid header holds."""

    header: Entry
    entries: list[Entry]
    by_id: dict[str, Entry]
    labels: dict[Any, Any]
    label_ts: dict[Any, Any]
    leaf_id: str | None
    has_conversation: bool
    diagnostics: list[str]


def open_read_only(data: bytes) -> Store | None:
    """None when the file has no valid header."""
    loaded = parse(data)
    if not loaded.entries or not is_valid_header(loaded.entries[0]):
        return None
    diagnostics = list(loaded.diagnostics)
    if loaded.torn_tail is not None:
        diagnostics.append("torn last line left in place (opened read-only)")
    if loaded.missing_newline and loaded.torn_tail is None:
        diagnostics.append("last line has no newline (not repaired: opened read-only)")
    migrated_from = migrate_to_current_version(loaded.entries)
    if migrated_from is not None:
        diagnostics.append(f"format v{migrated_from} migrated to v3 in memory (read-only: file not rewritten)")
    candidates = [e for e in loaded.entries[1:] if e.get("type") != "session"]
    by_id: dict[str, Entry] = {}
    labels: dict[Any, Any] = {}
    label_ts: dict[Any, Any] = {}
    leaf = None
    has_conversation = False
    kept: list[Entry] = []
    for entry in candidates:
        entry_id = entry.get("id")
        if entry_id is None:
            diagnostics.append(f"skipped a {entry.get('type')!s} entry without an id")
            continue
        # Any other id is kept (upstream's Map key); an array or object equals only itself.
        entry["id"] = entry_id = opaque_id(entry_id)
        if isinstance(entry.get("parentId"), (list, dict)):
            entry["parentId"] = opaque_id(entry["parentId"])
        kept.append(entry)
        by_id[entry_id] = entry
        leaf = entry_id
        etype = entry.get("type")
        if etype == "label":
            target = entry.get("targetId")
            if entry.get("label"):
                labels[target] = entry["label"]
                label_ts[target] = entry.get("timestamp")
            else:
                labels.pop(target, None)
                label_ts.pop(target, None)
        elif etype == "message" and not has_conversation:
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
                has_conversation = True
    return Store(loaded.entries[0], kept, by_id, labels, label_ts, leaf, has_conversation, diagnostics)


def path_to(store: Store, leaf_id: str | None) -> list[Entry]:
    if leaf_id is None:
        return []
    leaf = store.by_id.get(leaf_id)
    if leaf is None:
        if not store.entries:
            return []
        leaf = store.entries[-1]
    path: list[Entry] = []
    current: Entry | None = leaf
    seen: set[int] = set()
    while current is not None:
        if id(current) in seen:
            break
        seen.add(id(current))
        path.append(current)
        parent = current.get("parentId")
        current = store.by_id.get(parent) if parent else None
    path.reverse()
    return path


def context(store: Store, leaf_id: str | None) -> dict[str, Any]:
    path = path_to(store, leaf_id)
    thinking_level: Any = "off"
    model: dict[str, Any] | None = None
    for entry in path:
        etype = entry.get("type")
        if etype == "thinking_level_change":
            thinking_level = entry.get("thinkingLevel")
        elif etype == "model_change":
            model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif etype == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
    context_entries = build_context_entries(path)
    edits: dict[Any, Entry] = {}
    for entry in context_entries:
        if entry.get("type") == "context_edit":
            edits[entry.get("targetId")] = entry
    projected: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for index, source in enumerate(context_entries):
        if source.get("type") == "compaction" and index > 0:
            msgs: list[dict[str, Any]] = []
        else:
            msgs = project_context_entry(source, edits.get(source.get("id")))
        projected.append({"sourceEntry": source, "messages": msgs})
        messages.extend(msgs)
    return {"entries": projected, "messages": messages, "thinkingLevel": thinking_level, "model": model}
