"""Session format migrations v1 -> v2 -> v3 (upstream ``migrateToCurrentVersion``).

v1 -> v2: every non-header entry, in file order, gets a fresh ``id`` and a ``parentId``
chaining it to the previous entry; a compaction's ``firstKeptEntryIndex`` (index into the
parsed lines, header = 0) becomes ``firstKeptEntryId``. v2 -> v3: message role
``hookMessage`` becomes ``custom``. Entries are mutated in place, new keys land at the end.
"""

from __future__ import annotations

from typing import Any

from pi_rpc.session.entries import CURRENT_SESSION_VERSION
from pi_rpc.session.ids import new_entry_id


def _migrate_v1_to_v2(entries: list[dict[str, Any]]) -> None:
    ids: set[str] = set()
    prev_id: str | None = None
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = 2
            continue
        entry["id"] = new_entry_id(ids)
        ids.add(entry["id"])
        entry["parentId"] = prev_id
        prev_id = entry["id"]
        if entry.get("type") == "compaction":
            index = entry.get("firstKeptEntryIndex")
            if isinstance(index, (int, float)) and not isinstance(index, bool):
                target = entries[int(index)] if 0 <= index < len(entries) and float(index).is_integer() else None
                # Kept entries precede their compaction, so the target already has its id.
                if target is not None and target.get("type") != "session" and target.get("id") is not None:
                    entry["firstKeptEntryId"] = target["id"]
                del entry["firstKeptEntryIndex"]


def _migrate_v2_to_v3(entries: list[dict[str, Any]]) -> None:
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = 3
            continue
        if entry.get("type") == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "hookMessage":
                message["role"] = "custom"


def needs_migration(header: dict[str, object] | None) -> bool:
    """True when a file with this header (None: no header) is in an older format."""
    version = header.get("version", 1) if header is not None else 1
    return isinstance(version, (int, float)) and not version >= CURRENT_SESSION_VERSION


def migrate_to_current_version(entries: list[dict[str, Any]]) -> int | None:
    """Migrate in place; returns the version migrated from, or None when already current."""
    header = next((e for e in entries if e.get("type") == "session"), None)
    if not needs_migration(header):
        return None
    version = header.get("version", 1) if header is not None else 1
    if version < 2:
        _migrate_v1_to_v2(entries)
    if version < 3:
        _migrate_v2_to_v3(entries)
    return int(version)
