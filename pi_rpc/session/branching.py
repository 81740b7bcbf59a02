"""The entries of a branched copy of a session (upstream ``createBranchedSession``): one root-to-
leaf path re-chained without its label entries, compaction targets re-pointed off the dropped
labels, and the labels of the kept entries re-created at the end. Pure: the manager gives the
path and its label tables and writes what comes back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_rpc.session import entries as E
from pi_rpc.session.entries import Entry
from pi_rpc.session.ids import new_entry_id


def branched_entries(path: list[Entry], labels: Mapping[str, str], label_ts: Mapping[str, str]) -> list[Entry]:
    """``path`` (root first) copied for a new session: label entries dropped and re-chained parents,
    then one label entry per label whose target was kept (with the label's own timestamp)."""
    kept: list[Entry] = []
    replacement_by_label: dict[str, str] = {}
    pending_labels: list[str] = []
    path_parent: str | None = None
    for entry in path:
        if entry.get("type") == "label":
            pending_labels.append(entry["id"])
            continue
        for label_id in pending_labels:
            replacement_by_label[label_id] = entry["id"]
        pending_labels.clear()
        copy = {**entry, "parentId": path_parent}
        if entry.get("type") == "compaction":
            fk: Any = entry.get("firstKeptEntryId")
            copy["firstKeptEntryId"] = fk if fk == entry["id"] else replacement_by_label.get(fk, fk)
        kept.append(E.entry_of(copy))  # the entry's own shape, re-parented
        path_parent = entry["id"]
    ids = {e["id"] for e in kept}
    parent = kept[-1]["id"] if kept else None
    label_entries: list[Entry] = []
    kept_labels = [(target, label, label_ts.get(target)) for target, label in labels.items() if target in ids]
    for target, label, ts in kept_labels:
        entry = E.label_entry(new_entry_id(ids), parent, ts, target, label)  # type: ignore[arg-type]
        ids.add(entry["id"])
        label_entries.append(entry)
        parent = entry["id"]
    return kept + label_entries
