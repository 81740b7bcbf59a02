"""What the session databases (``sqlite_store``, ``postgres_store``) store alike: an entry's
JSON line, the session summary columns of the ``sessions`` table and their values, and the
normalised form of a session directory. No database driver is imported here."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_rpc.session.ids import iso_to_ms
from pi_rpc.session.info_scan import ScannedSession
from pi_rpc.session.jsonfmt import dumps_line
from pi_rpc.session.sqlite_search import fold_or_none

if TYPE_CHECKING:
    from pi_rpc.session.listing import SessionInfo

# The summary columns of a ``sessions`` row, in ``summary_values`` order.
SUMMARY_COLUMNS = ("name", "message_count", "first_message", "last_activity", "modified", "written_at", "name_folded")


def entry_line(entry: Mapping[str, object]) -> str:
    """The entry as the JSONL store writes it (one line, with its newline)."""
    return dumps_line(entry).decode("utf-8")


def text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def modified_ms(summary: ScannedSession, written_at: int) -> float:
    """``listing.build_session_info``'s ``modified``: the last activity, else the header's
    time, else the last write (a file's mtime)."""
    if summary.last_activity is not None and summary.last_activity > 0:
        return float(summary.last_activity)
    header_ms = iso_to_ms(summary.header.get("timestamp"))
    return float(header_ms) if header_ms is not None else float(written_at)


def summary_values(summary: ScannedSession, written_at: int) -> tuple[object, ...]:
    """The summary columns' values, in ``SUMMARY_COLUMNS`` order."""
    return (
        summary.name,
        summary.message_count,
        summary.first_message,
        summary.last_activity,
        modified_ms(summary, written_at),
        written_at,
        fold_or_none(summary.name),
    )


# The ``sessions`` row's columns, in ``session_row_values`` order.
SESSION_ROW_COLUMNS = (
    "id",
    "header",
    "dir",
    "cwd",
    "created_at",
    "created_ms",
    "parent_session",
    *SUMMARY_COLUMNS,
    "next_seq",
)


def session_row_values(
    session_id: str, header_line: str, session_dir: str | None, summary: ScannedSession, written_at: int, next_seq: int
) -> tuple[object, ...]:
    """A new ``sessions`` row's values, in ``SESSION_ROW_COLUMNS`` order (both databases insert
    the same row; only the placeholder differs)."""
    header = summary.header
    cwd = header.get("cwd")
    return (
        session_id,
        header_line,
        session_dir,
        cwd if isinstance(cwd, str) else "",
        text_or_none(header.get("timestamp")),
        iso_to_ms(header.get("timestamp")),
        text_or_none(header.get("parentSession")),
        *summary_values(summary, written_at),
        next_seq,
    )


def now_ms() -> int:
    return int(time.time() * 1000)


def normdir(path: str) -> str:
    """A session directory as the ``dir`` column holds it."""
    return os.path.normpath(os.path.abspath(os.path.expanduser(path)))


def listing_info(locator: str, row: tuple[Any, ...], texts: tuple[str, ...] = ()) -> SessionInfo:
    """A listing row ``(id, cwd, created ms, parent, name, message count, first message,
    modified ms)`` of either database as the summary the JSONL listing makes; ``locator`` names
    the session, ``texts`` are its message texts when the query read them."""
    from pi_rpc.session.listing import SessionInfo, datetime_from_ms

    session_id, cwd, created_ms, parent, name, count, first, modified = row
    return SessionInfo(
        path=locator,
        id=session_id,
        cwd=cwd,
        name=name,
        parent_session_path=parent,
        created=datetime_from_ms(created_ms) if created_ms is not None else None,
        modified=datetime_from_ms(modified),
        message_count=count,
        first_message=first or "(no messages)",
        all_messages_text=" ".join(texts),
        message_texts=texts,
    )
