"""Where sessions live and how they are found: the per-cwd default directory, listing with
upstream's ``SessionInfo`` fields, ``--continue`` (most recent), ``--session <path|id|prefix>``
and ``--session-id`` lookups. Paths are passed in; nothing here reads pi's config."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from pi_rpc.session._gc import gc_paused
from pi_rpc.session.ids import iso_to_ms
from pi_rpc.session.info_scan import scan_session
from pi_rpc.session.loader import is_valid_header, read_header

if TYPE_CHECKING:
    pass

_CWD_SEPARATORS = re.compile(r"[/\\:]")


def _resolve(path: str, base: str | None = None) -> str:
    path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(base or os.getcwd(), path)
    return os.path.normpath(path)


def encode_cwd(cwd: str) -> str:
    """``--<cwd without one leading / or \\, with / \\ : replaced by ->--``."""
    resolved = _resolve(cwd)
    if resolved[:1] in ("/", "\\"):
        resolved = resolved[1:]
    return f"--{_CWD_SEPARATORS.sub('-', resolved)}--"


def sessions_root(agent_dir: str) -> str:
    """``<agentDir>/sessions``: parent of every per-cwd session dir (``listAll``)."""
    return os.path.join(_resolve(agent_dir), "sessions")


def default_session_dir(cwd: str, agent_dir: str, *, create: bool = True) -> str:
    """``<agentDir>/sessions/--<encoded cwd>--`` (created, like upstream, unless told not to)."""
    path = os.path.join(sessions_root(agent_dir), encode_cwd(cwd))
    if create:
        os.makedirs(path, exist_ok=True)
    return path


@dataclass
class SessionInfo:
    """Upstream ``SessionInfo`` (dates as aware UTC datetimes)."""

    path: str
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: datetime | None
    modified: datetime
    message_count: int
    first_message: str
    all_messages_text: str
    # The text of each user and assistant message, for per-message search.
    message_texts: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """camelCase form, dates as ISO strings, absent optionals left out."""
        out = self._build_summary()
        out["allMessagesText"] = self.all_messages_text
        return out

    def to_summary(self) -> dict[str, object]:
        """``to_dict`` without ``allMessagesText`` (what ``list_sessions`` answers over RPC).
        Built once per summary (a listing of thousands is answered again and again); a copy is
        returned."""
        summary = self.__dict__.get("_summary")
        if summary is None:
            summary = self.__dict__["_summary"] = self._build_summary()
        return dict(summary)

    def _build_summary(self) -> dict[str, object]:
        out: dict[str, object] = {"path": self.path, "id": self.id, "cwd": self.cwd}
        if self.name is not None:
            out["name"] = self.name
        if self.parent_session_path is not None:
            out["parentSessionPath"] = self.parent_session_path
        out["created"] = _iso(self.created)
        out["modified"] = _iso(self.modified)
        out["messageCount"] = self.message_count
        out["firstMessage"] = self.first_message
        return out

    def matches(self, query: str) -> bool:
        """Case-insensitive substring match on the name and on each user/assistant text."""
        needle = query.casefold()
        if self.name is not None and needle in self.name.casefold():
            return True
        return any(needle in text.casefold() for text in self.message_texts)


def _iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    # isoformat is C code (strftime here cost a tenth of a second per 10,000 sessions); its
    # milliseconds are truncated like Date.toISOString's, and its "+00:00" becomes "Z".
    return dt.astimezone(timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"


def datetime_from_ms(ms: float) -> datetime:
    """A listing's ``modified``/``created`` time from epoch milliseconds (UTC)."""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def _read(path: str, size_hint: int) -> bytes | None:
    """The file's bytes. Each read asks for what the file holds (``size_hint``, from its
    ``stat``, plus a byte to see the end) rather than a fixed large buffer: in the RPC server
    the mmap threshold is pinned (``modes.heap``), and a 1 MiB request per file would be an
    ``mmap``/``munmap`` pair each, half again the time of a 10,000-file listing."""
    try:
        # Without blocking: a FIFO named like a session must not stall a listing.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # a FIFO, a device: not a session file
        os.set_blocking(fd, True)
        chunks = []
        want = max(size_hint, 0) + 1
        while True:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            want = _READ_MORE  # the file grew since its stat
    except OSError:
        return None
    finally:
        os.close(fd)
    if not chunks:
        return b""
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_READ_MORE = 64 * 1024


class _SummaryCache:
    """Summaries of the files listed before, by path and (device, inode, size, mtime): a file
    that did not change since is not read again, so listing the same thousands of sessions
    again costs a ``stat`` each. Message texts are never kept (searches read the files)."""

    MAX_ENTRIES = 100_000

    def __init__(self) -> None:
        self._entries: dict[str, tuple[tuple[int, int, int, int], SessionInfo | None]] = {}

    @staticmethod
    def key(stat: os.stat_result) -> tuple[int, int, int, int]:
        return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)

    def get(self, path: str, key: tuple[int, int, int, int]) -> tuple[SessionInfo | None] | None:
        """``(summary,)`` (``(None,)``: not a session) when this state of the file was seen."""
        found = self._entries.get(path)
        if found is None or found[0] != key:
            return None
        return (found[1],)

    def put(self, path: str, key: tuple[int, int, int, int], info: SessionInfo | None) -> None:
        if len(self._entries) >= self.MAX_ENTRIES:
            self._entries.clear()
        if info is not None and info.message_texts:
            info = replace(info, all_messages_text="", message_texts=())
        self._entries[path] = (key, info)

    def clear(self) -> None:
        self._entries.clear()


SUMMARY_CACHE = _SummaryCache()


def build_session_info(path: str, cwd_filter: str | None = None, *, with_texts: bool = False) -> SessionInfo | None:
    """Summarise one file as upstream's ``buildSessionInfo`` does (``info_scan``); None when it
    is unreadable, not a session, or (with ``cwd_filter``) a session of another directory.
    ``allMessagesText`` and ``message_texts`` are filled only ``with_texts``. An unchanged file
    summarised before is not read again (``SUMMARY_CACHE``), unless its texts are wanted."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = _SummaryCache.key(stat)
    cached = None if with_texts else SUMMARY_CACHE.get(path, key)
    if cached is None:
        info = _summarise(path, stat, with_texts)
        SUMMARY_CACHE.put(path, key, info)
    else:
        info = cached[0]
    if info is None or (cwd_filter is not None and not cwd_matches(info.cwd, cwd_filter)):
        return None
    return info


def _summarise(path: str, stat: os.stat_result, with_texts: bool) -> SessionInfo | None:
    data = _read(path, stat.st_size)
    if data is None:
        return None
    scanned = scan_session(data, with_texts=with_texts)
    if scanned is None:
        return None
    header = scanned.header
    header_ms = iso_to_ms(header.get("timestamp"))
    if scanned.last_activity is not None and scanned.last_activity > 0:
        modified = datetime_from_ms(scanned.last_activity)
    elif header_ms is not None:
        modified = datetime_from_ms(header_ms)
    else:
        modified = datetime_from_ms(stat.st_mtime * 1000)
    cwd = header.get("cwd")
    parent = header.get("parentSession")
    return SessionInfo(
        path=path,
        id=str(header.get("id")),
        cwd=cwd if isinstance(cwd, str) else "",
        name=scanned.name,
        parent_session_path=parent if isinstance(parent, str) else None,
        created=datetime_from_ms(header_ms) if header_ms is not None else None,
        modified=modified,
        message_count=scanned.message_count,
        first_message=scanned.first_message or "(no messages)",
        all_messages_text=" ".join(scanned.texts),
        message_texts=tuple(scanned.texts),
    )


def cwd_matches(session_cwd: object, cwd: str) -> bool:
    """Whether a session's stored cwd is ``cwd`` (both resolved; an empty or missing one never is)."""
    return isinstance(session_cwd, str) and session_cwd != "" and _resolve(session_cwd) == _resolve(cwd)


def _sorted(infos: list[SessionInfo]) -> list[SessionInfo]:
    return sorted(infos, key=lambda s: s.modified, reverse=True)


def _jsonl_files(directory: str) -> list[str]:
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in sorted(names, reverse=True) if n.endswith(".jsonl")]


def _infos(files: list[str], cwd_filter: str | None = None, with_texts: bool = False) -> list[SessionInfo]:
    # Thousands of small dicts are parsed and dropped here: the cyclic GC has nothing to find.
    with gc_paused():
        infos = (build_session_info(p, cwd_filter, with_texts=with_texts) for p in files)
        return [i for i in infos if i is not None]


def list_sessions(session_dir: str, cwd_filter: str | None = None, *, with_texts: bool = False) -> list[SessionInfo]:
    """Every session file in ``session_dir`` (not recursive), newest ``modified`` first.
    ``cwd_filter``: keep only sessions whose header cwd is that directory (custom dirs).
    ``with_texts``: keep every message text (``SessionInfo.matches``, ``allMessagesText``)."""
    return _sorted(_infos(_jsonl_files(session_dir), cwd_filter, with_texts))


def list_all_sessions(sessions_dir: str, *, custom: bool = False, with_texts: bool = False) -> list[SessionInfo]:
    """Every session of every project: each subdirectory of ``<agentDir>/sessions``
    (``sessions_root``), or the flat ``sessions_dir`` itself when ``custom``."""
    if custom:
        return list_sessions(sessions_dir, with_texts=with_texts)
    files: list[str] = []
    try:
        subdirs = [os.path.join(sessions_dir, n) for n in os.listdir(sessions_dir)]
    except OSError:
        return []
    for sub in subdirs:
        if os.path.isdir(sub):
            files.extend(_jsonl_files(sub))
    return _sorted(_infos(files, with_texts=with_texts))


def find_most_recent(session_dir: str, cwd: str | None = None) -> str | None:
    """``--continue``: the valid session file with the newest mtime; with ``cwd`` only those
    whose header cwd matches (used for custom session dirs)."""
    files = []
    for path in _jsonl_files(session_dir):
        try:
            files.append((os.stat(path).st_mtime_ns, path))
        except OSError:
            continue
    files.sort(key=lambda t: t[0], reverse=True)
    for _, path in files:
        header = read_header(path)
        if header is not None and (cwd is None or cwd_matches(header.get("cwd"), cwd)):
            return path
    return None


def find_by_id(session_dir: str, session_id: str, cwd: str | None = None) -> str | None:
    """The file whose header id is exactly ``session_id`` (``--session-id``, exact
    ``--session``); with ``cwd`` only sessions of that cwd."""
    for path in _jsonl_files(session_dir):
        header = read_header(path)
        if header is None or header.get("id") != session_id:
            continue
        if cwd is not None and not cwd_matches(header.get("cwd"), cwd):
            continue
        return path
    return None


__all__ = [
    "SessionInfo",
    "build_session_info",
    "default_session_dir",
    "encode_cwd",
    "find_by_id",
    "find_most_recent",
    "is_valid_header",
    "list_all_sessions",
    "list_sessions",
    "sessions_root",
]
