"""``get_tree``: the session as nested nodes ``{entry, children, label?, labelTimestamp?}``.

Roots are entries whose ``parentId`` is null or their own id, and orphans whose parent is
missing, in append order. Every ``children`` list is sorted by the child's entry timestamp
(stable, so equal timestamps keep append order). Built without recursion: a long linear
session is a very deep tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_rpc.session._gc import gc_paused
from pi_rpc.session.entries import Entry
from pi_rpc.session.ids import iso_to_ms, opaque_id


def build_tree(
    entries: Sequence[Entry], labels: Mapping[str, str], label_timestamps: Mapping[str, str]
) -> list[dict[str, object]]:
    with gc_paused():
        return _build_tree(entries, labels, label_timestamps)


def _build_tree(
    entries: Sequence[Entry], labels: Mapping[str, str], label_timestamps: Mapping[str, str]
) -> list[dict[str, object]]:
    nodes: dict[Any, dict[str, Any]] = {}
    ordered: list[tuple[Entry, dict[str, object]]] = []
    for entry in entries:
        node: dict[str, Any] = {"entry": entry, "children": []}
        # Whatever the file holds (an array as a key equal only to itself); a missing id
        # matches no label.
        entry_id: Any = opaque_id(entry.get("id"))
        label = labels.get(entry_id)
        if label is not None:
            node["label"] = label
            ts = label_timestamps.get(entry_id)
            if ts is not None:
                node["labelTimestamp"] = ts
        nodes[entry_id] = node
        ordered.append((entry, node))
    roots: list[dict[str, Any]] = []
    for entry, node in ordered:
        parent_id = entry.get("parentId")
        if parent_id is None or parent_id == entry.get("id"):
            roots.append(node)
            continue
        parent = nodes.get(opaque_id(parent_id))
        if parent is not None:
            parent["children"].append(node)
        else:
            roots.append(node)
    cache: dict[object, float] = {}

    def key(node: dict[str, Any]) -> float:
        ts = node["entry"].get("timestamp")
        if ts.__class__ is not str:
            ms = iso_to_ms(ts)
            return float(ms) if ms is not None else 0.0
        value = cache.get(ts)
        if value is None:
            ms = iso_to_ms(ts)
            value = float(ms) if ms is not None else 0.0
            cache[ts] = value
        return value

    stack = list(roots)
    while stack:
        node = stack.pop()
        children = node["children"]
        if len(children) > 1:
            children.sort(key=key)
        stack.extend(children)
    return roots


def dumps_tree(roots: Sequence[dict[str, object]]) -> bytes:
    """JSON (JS number formatting) of ``get_tree()``'s node list, without recursion.

    A linear session is a tree as deep as it is long; orjson refuses nesting deeper than
    254 levels and Python's recursion limit is ~1000, so the RPC layer must splice this
    into the ``get_tree`` response instead of serialising the nodes directly.
    """
    from pi_rpc.session.jsonfmt import dumps_js

    out: list[bytes] = []
    # Work items: a node to open, or raw bytes to emit.
    stack: list[Any] = [b"]"]
    for index in range(len(roots) - 1, -1, -1):
        stack.append(roots[index])
        if index:
            stack.append(b",")
    out.append(b"[")
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):
            out.append(item)
            continue
        out.append(b'{"entry":' + dumps_js(item["entry"]) + b',"children":[')
        tail = b"]"
        for key in ("label", "labelTimestamp"):
            if key in item:
                tail += b',"' + key.encode() + b'":' + dumps_js(item[key])
        stack.append(tail + b"}")
        children = item["children"]
        for index in range(len(children) - 1, -1, -1):
            stack.append(children[index])
            if index:
                stack.append(b",")
    return b"".join(out)
