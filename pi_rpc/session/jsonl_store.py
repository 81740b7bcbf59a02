"""The JSONL session backend: one session per file (format v3), named
``<timestamp>_<id>.jsonl`` in its session directory, as upstream pi 1.6 writes them.

Writing: the header and all entries the manager hands over at a session's first write go
into a file created exclusively (``O_EXCL``, mode 0600) with one write, and afterwards each
batch is appended as complete lines with one ``os.write``. The appending process holds the
single-writer lock (``lock.py``).

Write faults (a read-only directory, a full disk, ``RLIMIT_FSIZE``) never lose or corrupt
anything already accepted: an append that fails is cut back off the file (no torn line),
the entry stays in memory and in the tree, and every entry not yet on disk is written, in
order, at the next append or ``retry()`` once the fault is gone. ``write_error`` names the
fault while one is in effect and ``on_write_state`` hears every change (the runtime turns
them into ``session_write_error`` / ``session_write_resumed`` events).

Loading is permissive (malformed lines skipped) but every skipped line is reported in
``diagnostics``, and crash damage at the end of the file is repaired: a torn last line is
moved into ``<file>.torn-<timestamp>`` and the file truncated to its valid prefix; a valid
last line without LF gets one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, BinaryIO, ClassVar

from pi_rpc.log import logger
from pi_rpc.session.backlog import WriteBacklog
from pi_rpc.session.entries import Entry, SessionHeader, SessionLine
from pi_rpc.session.errors import SessionInvalidError, SessionReadOnlyError
from pi_rpc.session.ids import file_timestamp, now_iso
from pi_rpc.session.index import EntryIndex, index_entries
from pi_rpc.session.jsonfmt import dumps_line
from pi_rpc.session.loader import LoadedFile, is_valid_header, iter_parsed_lines, open_regular
from pi_rpc.session.lock import SessionLock, holder_pid
from pi_rpc.session.migrations import needs_migration
from pi_rpc.session.store import FsyncMode, describe_os_error

if TYPE_CHECKING:
    from pi_rpc.session.listing import SessionInfo


def session_file_name(timestamp: str, session_id: str) -> str:
    """``<ISO timestamp with : and . replaced by ->_<id>.jsonl``."""
    return f"{file_timestamp(timestamp)}_{session_id}.jsonl"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _size_or_unknown(fd: int) -> int:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return -1  # matches no size: nothing is ever cut on a guess


def _fsync_dir(path: str) -> None:
    try:
        dfd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _read_and_index(path: str) -> tuple[LoadedFile, EntryIndex | None]:
    with open_regular(path) as f:
        return read_and_index(f)


def read_and_index(f: BinaryIO) -> tuple[LoadedFile, EntryIndex | None]:
    """Read a session's lines from ``f``; a current-format session is indexed while it is
    parsed (the index covers the entries after the header, and ``LoadedFile.entries`` holds
    only the header). Shared with the SQLite store, whose stored lines are the file's."""
    loaded = LoadedFile()
    stream = iter_parsed_lines(f, loaded)
    first = next(stream, None)
    if first is not None and is_valid_header(first) and not needs_migration(first):
        index = index_entries(stream)
        loaded.entries.append(first)
        return loaded, index
    if first is not None:
        loaded.entries.append(first)
        loaded.entries.extend(stream)
    return loaded, None


def _serialise_all(entries: Iterable[SessionLine]) -> bytes:
    return b"".join(dumps_line(e) for e in entries)


class JsonlSessionStore(WriteBacklog[bytes]):
    """One session's JSONL file (a ``SessionStore``): its append descriptor, its
    single-writer lock and what a write fault holds back (``backlog.WriteBacklog``: the
    lines of entries accepted but not yet on disk)."""

    # ValueError: a path no file system can hold.
    _FAULTS: ClassVar[tuple[type[Exception], ...]] = (OSError, ValueError)

    def __init__(
        self, path: str, *, fsync: FsyncMode = "none", read_only: bool = False, diagnostics: list[str] | None = None
    ) -> None:
        super().__init__(read_only=read_only)
        self._session_file = path
        self._fsync: FsyncMode = fsync
        self.diagnostics: list[str] = diagnostics if diagnostics is not None else []
        self._fd: int | None = None
        self._lock: SessionLock | None = None
        self._dirty = False
        # A failed append that could not be cut back off the file: where it began and where the
        # file ended after it (its bytes are ours only while nothing follows them).
        self._torn: tuple[int, int] | None = None

    @property
    def locator(self) -> str:
        return self._session_file

    @property
    def directory(self) -> str:
        return os.path.dirname(self._session_file)

    # ------------------------------------------------------------------ open

    def load(self) -> tuple[LoadedFile | None, EntryIndex | None]:
        """Read the file under the single-writer lock (taken now unless read-only), validate
        its header and repair crash damage at its end; ``(None, None)`` when it is missing."""
        path = self._session_file
        if not os.path.exists(path):
            return None, None
        try:
            if not self._read_only:
                self._ensure_lock()
            loaded, index = _read_and_index(path)
            if not (loaded.entries and is_valid_header(loaded.entries[0])):
                # Validate before any repair: a file that is not a session is never modified.
                if loaded.size > 0:
                    raise SessionInvalidError(path)
                return loaded, None
            self.diagnostics.extend(loaded.diagnostics)
            if loaded.torn_tail is not None:
                self._repair_torn_tail(path, loaded)
            if loaded.missing_newline and loaded.torn_tail is None:
                if self._read_only:
                    self.diagnostics.append("last line has no newline (not repaired: opened read-only)")
                else:
                    self._append_raw(b"\n")
                    self.diagnostics.append("appended the missing newline after the last line")
        except BaseException:
            self.close()
            raise
        self._flushed = True
        return loaded, index

    def _repair_torn_tail(self, path: str, loaded: LoadedFile) -> None:
        tail = loaded.torn_tail or b""
        if self._read_only:
            pid = holder_pid(path)
            who = f"; in use by pid {pid}" if pid is not None else ""
            self.diagnostics.append(f"torn last line left in place (opened read-only{who})")
            return
        sidecar = f"{path}.torn-{file_timestamp(now_iso())}"
        n = 0
        while True:
            candidate = sidecar if n == 0 else f"{sidecar}-{n}"
            try:
                fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            except FileExistsError:
                n += 1
            else:
                break
        try:
            _write_all(fd, tail)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.truncate(path, loaded.valid_len)
        if self._fsync != "none":
            fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        self.diagnostics.append(
            f"moved the torn last line ({len(tail)} bytes) to {candidate} and truncated the file to "
            f"{loaded.valid_len} bytes"
        )

    # ------------------------------------------------------------------ file I/O

    def _ensure_lock(self) -> None:
        self._refuse_closed()  # a closed store never takes the lock again
        if self._lock is None:
            self._lock = SessionLock(self._session_file)
        if not self._lock.held:
            self._lock.acquire()
        if self._lock.stale_pid is not None:
            self.diagnostics.append(f"recovered a stale lock left by pid {self._lock.stale_pid}")
            self._lock.stale_pid = None

    def _open_append_fd(self) -> int:
        if self._fd is None:
            self._fd = os.open(self._session_file, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        return self._fd

    def _append_raw(self, data: bytes) -> None:
        """Append ``data`` completely or not at all: a write that fails part-way (EFBIG,
        ENOSPC) is cut back off, so the file never ends in a torn line we wrote."""
        self._ensure_lock()
        fd = self._open_append_fd()
        if self._torn is not None:
            self._cut_torn(fd, *self._torn)
        start = os.lseek(fd, 0, os.SEEK_END)
        try:
            _write_all(fd, data)
        except OSError:
            try:
                os.ftruncate(fd, start)
            except OSError:
                self._torn = (start, _size_or_unknown(fd))
            raise
        if self._fsync == "entry":
            self._fsync_quietly(fd)
        elif self._fsync == "turn":
            self._dirty = True

    def _cut_torn(self, fd: int, start: int, end: int) -> None:
        """Cut off the torn bytes of an earlier failed append, but only while the file still
        ends exactly where that append left it: never below the end of what this store wrote
        itself, never into what another writer appended since (those bytes then stay, one
        malformed line the loader skips and reports, rather than losing someone's entries)."""
        size = os.fstat(fd).st_size
        if size == end and end > start:
            os.ftruncate(fd, start)
        elif size != start:
            logger().warning(
                f"pi: session {self._session_file}: the bytes of a failed append (from offset {start}) "
                "are left in place: the file changed since"
            )
        self._torn = None

    def _fsync_quietly(self, fd: int) -> None:
        # The bytes are in the file already; a failed fsync must not make us write them twice.
        try:
            os.fsync(fd)
        except OSError as exc:
            logger().warning(f"pi: session {self._session_file}: fsync failed: {describe_os_error(exc)}")

    def _write_new(self, entries: Sequence[SessionLine]) -> None:
        """Exclusive create of the file with header and every in-memory entry, one write."""
        if self._read_only:
            raise SessionReadOnlyError(self._session_file)
        self._ensure_lock()
        data = _serialise_all(entries)
        fd = os.open(self._session_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
        self._fd = fd
        try:
            _write_all(fd, data)
        except BaseException:
            # Leave no half-written new file behind.
            os.close(fd)
            self._fd = None
            try:
                os.unlink(self._session_file)
            except OSError:
                pass
            raise
        if self._fsync != "none":
            self._fsync_quietly(fd)
            _fsync_dir(self._session_file)
        self._flushed = True

    def rewrite(self, header: SessionHeader, entries: Sequence[Entry]) -> None:
        """Replace the whole file (migration, empty-file header) via a temp file + rename."""
        if self._read_only:
            return
        self._ensure_lock()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        from pi_rpc.config.safe_write import replace_file

        # (a temp file no one can plant: a link at a guessable name never redirects the write)
        replace_file(self._session_file, _serialise_all([header, *entries]), fsync=self._fsync != "none")
        if self._fsync != "none":
            _fsync_dir(self._session_file)
        self._flushed = True

    # ------------------------------------------------------------------ the backlog's hooks

    def _prepare(self, entry: SessionLine) -> bytes:
        return dumps_line(entry)

    def _write_items(self, items: list[bytes]) -> None:
        self._append_raw(b"".join(items))

    def _fault_message(self, exc: Exception) -> str:
        reason = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
        return f"Could not write session file {self._session_file}: {reason}"

    # ------------------------------------------------------------------ sync / close

    def sync(self) -> None:
        """Per-turn durability point: with ``fsync="turn"`` flush appended lines to stable
        storage (no-op otherwise, and when nothing was written since the last sync)."""
        if self._fd is not None and self._dirty:
            self._dirty = False
            self._fsync_quietly(self._fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock is not None:
            self._lock.release()


class JsonlBackend:
    """The JSONL files as a ``SessionBackend``: a locator is the file's path; listing and
    finding are ``listing.py``'s (imported when used: opening a session at startup does not
    need them)."""

    # A session is a file in its session directory, which is created with the manager.
    creates_directories = True

    def exists(self, locator: str) -> bool:
        return os.path.exists(locator)

    def holder_pid(self, locator: str) -> int | None:
        return holder_pid(locator)

    def new_locator(self, session_dir: str, timestamp: str, session_id: str) -> str:
        return os.path.join(session_dir, session_file_name(timestamp, session_id))

    def store(self, locator: str, *, fsync: FsyncMode, read_only: bool, diagnostics: list[str]) -> JsonlSessionStore:
        return JsonlSessionStore(locator, fsync=fsync, read_only=read_only, diagnostics=diagnostics)

    def list_sessions(
        self, session_dir: str, cwd_filter: str | None = None, *, with_texts: bool = False
    ) -> list[SessionInfo]:
        from pi_rpc.session.listing import list_sessions

        return list_sessions(session_dir, cwd_filter, with_texts=with_texts)

    def list_all_sessions(
        self, sessions_root: str, *, custom: bool = False, with_texts: bool = False
    ) -> list[SessionInfo]:
        from pi_rpc.session.listing import list_all_sessions

        return list_all_sessions(sessions_root, custom=custom, with_texts=with_texts)

    def query_sessions(
        self,
        session_dir: str,
        *,
        cwd_filter: str | None = None,
        every_project: bool = False,
        query: str | None = None,
        limit: int | None = None,
    ) -> list[SessionInfo]:
        # Files have no index: every session's summary (with its texts for a query) is read,
        # then filtered.
        with_texts = query is not None
        if every_project:
            infos = self.list_all_sessions(session_dir, with_texts=with_texts)
        else:
            infos = self.list_sessions(session_dir, cwd_filter, with_texts=with_texts)
        if query is not None:
            infos = [info for info in infos if info.matches(query)]
        return infos if limit is None else infos[:limit]

    def find_most_recent(self, session_dir: str, cwd: str | None = None) -> str | None:
        from pi_rpc.session.listing import find_most_recent

        return find_most_recent(session_dir, cwd)

    def find_by_id(self, session_dir: str, session_id: str, cwd: str | None = None) -> str | None:
        from pi_rpc.session.listing import find_by_id

        return find_by_id(session_dir, session_id, cwd)


JSONL_BACKEND = JsonlBackend()
