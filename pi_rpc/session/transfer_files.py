"""The file side of ``pi sessions import``/``export``, the same for every database: finding and
reading the session files to import (each entry with the exact line to store), what is reported
per session, and writing an exported session where the JSONL store would keep it. ``transfer``
(SQLite, and the dispatch) and ``postgres_transfer`` both use it; it imports neither."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from pi_rpc.session.entries import Entry, SessionHeader, entry_of, header_of
from pi_rpc.session.errors import SessionNotAFileError
from pi_rpc.session.info_scan import parse_line
from pi_rpc.session.jsonfmt import dumps_line
from pi_rpc.session.jsonl_store import session_file_name
from pi_rpc.session.listing import encode_cwd
from pi_rpc.session.loader import is_valid_header, open_regular, parse_session_bytes, salvage_line
from pi_rpc.session.migrations import migrate_to_current_version, needs_migration

if TYPE_CHECKING:
    from pi_rpc.session.sqlite_store import StoredSession


class TransferError(Exception):
    """A source, a database or a destination that cannot be used (the message says which)."""


@dataclass
class SessionSource:
    """One session file read for import: its header, and each entry with the line to store."""

    path: str
    header: SessionHeader
    header_line: str
    entries: list[tuple[Entry, str]]
    mtime_ms: int
    notes: list[str] = field(default_factory=list)

    @property
    def session_id(self) -> str:
        return str(self.header["id"])


@dataclass(frozen=True)
class Outcome:
    """What happened to one session: ``imported``, ``exported``, ``skipped`` or ``error``."""

    status: str
    session_id: str | None
    source: str
    detail: str = ""


# ---------------------------------------------------------------------- reading sources


def session_files(sources: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """``(path, named)`` for every source: a file as given (``named``), a folder's
    ``*.jsonl`` files at any depth, in name order (a sessions root holds one folder per
    cwd). Raises ``TransferError`` for a source that does not exist."""
    for source in sources:
        path = os.path.abspath(os.path.expanduser(source))
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".jsonl"):
                        yield os.path.join(folder, name), False
        elif os.path.exists(path):
            yield path, True
        else:
            raise TransferError(f"{source}: no such file or directory")


def readable_sources(
    files: Iterable[tuple[str, bool]], report: Callable[[Outcome], None]
) -> Iterator[tuple[str, SessionSource | None]]:
    """Each import candidate read (``session_files``): ``(path, source)``, or ``(path, None)``
    for one that failed (already reported as an error); a file found in a folder that is not
    a session is reported as skipped and not yielded. Every database's import reads so."""
    for path, named in files:
        try:
            source = read_source(path)
        except OSError as exc:
            report(Outcome("error", None, path, f"cannot read: {exc.strerror or exc}"))
            yield path, None
            continue
        except SessionNotAFileError as exc:
            report(Outcome("error", None, path, f"not a regular file ({exc.kind})"))
            yield path, None
            continue
        if source is None:
            if named:
                report(Outcome("error", None, path, "not a session file (no session header)"))
                yield path, None
            else:
                report(Outcome("skipped", None, path, "not a session file"))
            continue
        yield path, source


def read_source(path: str) -> SessionSource | None:
    """A session file for import; None when the file is not a session (no valid header
    first). Raises ``OSError`` when it cannot be read, ``SessionNotAFileError`` for a FIFO or
    a device."""
    with open_regular(path) as f:
        data = f.read()
        mtime_ms = os.fstat(f.fileno()).st_mtime_ns // 1_000_000
    notes: list[str] = []
    pairs = list(_entries_with_lines(data, notes))
    if not pairs or not is_valid_header(pairs[0][0]):
        return None
    if needs_migration(pairs[0][0]):
        # As opening the file does: migrate, drop later session lines, rewrite every line.
        loaded = parse_session_bytes(data)
        version = migrate_to_current_version(loaded.entries)
        header = header_of(loaded.entries[0])
        migrated = [entry_of(e) for e in loaded.entries[1:] if e.get("type") != "session"]
        notes.append(f"migrated from format v{version} to v3")
        return SessionSource(path, header, _line(header), [(e, _line(e)) for e in migrated], mtime_ms, notes)
    # The file's JSON objects, as the header and entries they are stored as.
    entries = [(entry_of(value), line) for value, line in pairs[1:]]
    return SessionSource(path, header_of(pairs[0][0]), pairs[0][1], entries, mtime_ms, notes)


def _line(entry: Mapping[str, object]) -> str:
    return dumps_line(entry).decode("utf-8")


def _entries_with_lines(data: bytes, notes: list[str]) -> Iterator[tuple[dict[str, object], str]]:
    """Each entry of the file with the line to store for it: the file's own line (with its
    LF) when it is text, else the JSONL store's serialisation. Lines split on LF only, read
    as the loader reads them (``loader.iter_parsed_lines``)."""
    lines = data.split(b"\n")
    last = len(lines) - 1
    for number, raw in enumerate(lines, 1):
        is_last = number - 1 == last
        if not raw.strip():
            continue
        try:
            value: object = parse_line(raw)
        except orjson.JSONDecodeError:
            if is_last:
                notes.append(f"torn last line dropped ({len(raw)} bytes)")
                continue
            value = salvage_line(raw)
            if value is None:
                notes.append(f"line {number}: malformed JSON dropped ({len(raw)} bytes)")
                continue
            notes.append(f"line {number}: entry recovered after a torn line")
            yield value, _line(value)
            continue
        if not isinstance(value, dict):
            notes.append(f"line {number}: a JSON value that is not an object dropped")
            continue
        if is_last:
            notes.append("final newline added")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            notes.append(f"line {number}: invalid UTF-8, stored as the JSONL store writes it")
            yield value, _line(value)
            continue
        yield value, text + "\n"


def export_path(root: str, session: StoredSession) -> str:
    """Where the JSONL store would keep the session under the sessions root ``root``.
    Raises ``TransferError`` when its id or timestamp cannot name a file."""
    timestamp = session.created_at
    name = session_file_name(timestamp if timestamp is not None else "unknown", session.id)
    if os.path.basename(name) != name or "\x00" in name or name.startswith("."):
        raise TransferError(f"session id {session.id!r} cannot be used in a file name")
    folder = encode_cwd(session.cwd) if session.cwd else "--unknown--"
    return os.path.join(root, folder, name)


def export_one(root: str, session: StoredSession, report: Callable[[Outcome], None]) -> int:
    try:
        path = export_path(root, session)
    except TransferError as exc:
        report(Outcome("error", session.id, "", str(exc)))
        return 1
    try:
        with open_regular(path) as f:
            existing: bytes | None = f.read()
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        report(Outcome("error", session.id, path, f"cannot read the existing file: {exc.strerror or exc}"))
        return 1
    except SessionNotAFileError as exc:
        report(Outcome("error", session.id, path, f"a {exc.kind.removeprefix('a ')} is there (not overwritten)"))
        return 1
    if existing is not None:
        if existing == session.data:
            report(Outcome("skipped", session.id, path, "already exported (same bytes)"))
            return 0
        report(Outcome("error", session.id, path, "a different file is there already (not overwritten)"))
        return 1
    try:
        _write_file(path, session.data, session.written_at)
    except OSError as exc:
        report(Outcome("error", session.id, path, f"cannot write: {exc.strerror or exc}"))
        return 1
    report(Outcome("exported", session.id, path))
    return 0


def _write_file(path: str, data: bytes, mtime_ms: int) -> None:
    """Write via a temporary file and rename (no half file under the final name), mode 0600
    like the JSONL store's files, mtime the session's last write (``--continue`` order)."""
    from pi_rpc.config.safe_write import replace_file

    os.makedirs(os.path.dirname(path), exist_ok=True)
    # (a temp file no one can plant: a link at a guessable name never redirects the write)
    replace_file(path, data, fsync=True, mtime_ns=mtime_ms * 1_000_000)


__all__ = [
    "Outcome",
    "SessionSource",
    "TransferError",
    "export_one",
    "export_path",
    "read_source",
    "readable_sources",
    "session_files",
]
