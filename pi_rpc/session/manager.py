"""``SessionManager``: one session as an append-only tree of entries in a JSONL file
(format v3), mirroring upstream pi 1.6's ``SessionManager`` in snake_case.

Writing: nothing reaches disk until the session holds a user or assistant message; then the
header and all entries are written at once into a file created exclusively (``O_EXCL``,
mode 0600), and afterwards each entry is appended as one complete line with one
``os.write``. The appending process holds the single-writer lock (``lock.py``).

Write faults (a read-only directory, a full disk, ``RLIMIT_FSIZE``) never lose or corrupt
anything already accepted: an append that fails is cut back off the file (no torn line),
the entry stays in memory and in the tree, and every entry not yet on disk is written, in
order, at the next append or ``retry_writes()`` once the fault is gone. ``write_error``
names the fault while one is in effect and ``on_write_state`` hears every change (the
runtime turns them into ``session_write_error`` / ``session_write_resumed`` events).

Loading is permissive (malformed lines skipped) but every skipped line is reported in
``diagnostics``, and crash damage at the end of the file is repaired: a torn last line is
moved into ``<file>.torn-<timestamp>`` and the file truncated to its valid prefix; a valid
last line without LF gets one.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TextIO

from pi_rpc.ai.jsjson import fs_path
from pi_rpc.log import logger
from pi_rpc.session import entries as E
from pi_rpc.session._gc import FREEZE_MIN_ENTRIES, freeze_loaded, gc_paused, thaw
from pi_rpc.session.context import (
    build_context_entries,
    build_session_context,
    build_session_path,
    build_session_projection,
)
from pi_rpc.ai.transcript import get_current_system_message
from pi_rpc.session.errors import (
    EntryNotFoundError,
    MissingSessionCwdError,
    SessionError,
    SessionInvalidError,
    SessionReadOnlyError,
)
from pi_rpc.session.ids import (
    assert_valid_session_id,
    file_timestamp,
    iso_to_ms,
    new_entry_id,
    now_iso,
    uuid7,
)
from pi_rpc.session.jsonfmt import dumps_line
from pi_rpc.session.index import EntryIndex, LinearProjection, index_entries
from pi_rpc.session.loader import LoadedFile, is_valid_header, iter_parsed_lines, read_session_file
from pi_rpc.session.lock import SessionLock, holder_pid
from pi_rpc.session.migrations import migrate_to_current_version, needs_migration
from pi_rpc.session.tree import build_tree

Entry = dict[str, Any]
FsyncMode = Literal["none", "entry", "turn"]
_FSYNC_MODES = ("none", "entry", "turn")


@dataclass
class ForkResult:
    """Outcome of ``create_branched_session``: the session to continue with and, for
    position ``"before"``, the forked user message's text (to pre-fill an editor)."""

    manager: SessionManager
    selected_text: str | None = None


def _abspath(path: str, base: str | None = None) -> str:
    path = os.path.expanduser(fs_path(path))  # a client's lone surrogate: U+FFFD, as node
    if not os.path.isabs(path):
        path = os.path.join(base or os.getcwd(), path)
    return os.path.normpath(path)


def session_file_name(timestamp: str, session_id: str) -> str:
    """``<ISO timestamp with : and . replaced by ->_<id>.jsonl``."""
    return f"{file_timestamp(timestamp)}_{session_id}.jsonl"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def describe_os_error(exc: OSError) -> str:
    """``File too large (EFBIG)``: the OS text and the errno name, no traceback noise."""
    code = errno.errorcode.get(exc.errno or 0)
    text = exc.strerror or str(exc)
    return f"{text} ({code})" if code else text


WriteStateListener = Callable[[str | None, int, int], None]
"""``(error, pending_entries, written_entries)``: a fault began or changed (``error`` set),
or the backlog was written (``error`` None, ``written_entries`` > 0)."""


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
    """Read a session file; a current-format one is indexed while it is parsed (the index
    covers the entries after the header, and ``LoadedFile.entries`` holds only the header)."""
    loaded = LoadedFile()
    with open(path, "rb") as f:
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


def _user_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(
        p["text"] for p in content or [] if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    )


class SessionManager:
    """One session. Construct with the class methods ``create``, ``in_memory``, ``open``,
    ``continue_recent`` or ``fork_from``."""

    def __init__(
        self,
        cwd: str,
        session_dir: str | None,
        *,
        persist: bool,
        fsync: FsyncMode = "none",
        read_only: bool = False,
    ) -> None:
        if fsync not in _FSYNC_MODES:
            raise ValueError(f"fsync must be one of {_FSYNC_MODES}, not {fsync!r}")
        self._cwd = _abspath(cwd)
        self._session_dir = _abspath(session_dir) if session_dir else ""
        self._persist = persist
        self._fsync: FsyncMode = fsync
        self._read_only = read_only
        self._session_id = ""
        self._session_file: str | None = None
        self._header: Entry = {}
        self._entries: list[Entry] = []
        self._by_id: dict[str, Entry] = {}
        self._labels: dict[str, str] = {}
        self._label_ts: dict[str, str] = {}
        self._leaf_id: str | None = None
        self._flushed = False
        self._has_conversation = False
        self._fd: int | None = None
        self._lock: SessionLock | None = None
        self._dirty = False
        # The first projection of a one-chain session, gathered while indexing; used once.
        self._linear: LinearProjection | None = None
        self._gc_frozen = False
        self.diagnostics: list[str] = []
        # Lines of entries accepted after the file was created but not yet on disk (a fault).
        self._unwritten: list[bytes] = []
        # Where a failed append that could not be cut back off the file began.
        self._torn_at: int | None = None
        self.write_error: str | None = None
        self.on_write_state: WriteStateListener | None = None
        if persist and self._session_dir and not read_only:
            os.makedirs(self._session_dir, exist_ok=True)

    # ------------------------------------------------------------------ constructors

    @classmethod
    def create(
        cls,
        cwd: str,
        session_dir: str,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
        fsync: FsyncMode = "none",
    ) -> SessionManager:
        """A new persisted session in ``session_dir``; its file appears at the first user or
        assistant message."""
        manager = cls(cwd, session_dir, persist=True, fsync=fsync)
        manager._new_session(session_id=session_id, parent_session=parent_session)
        return manager

    @classmethod
    def in_memory(
        cls, cwd: str, *, session_id: str | None = None, entries: Iterable[Entry] | None = None
    ) -> SessionManager:
        """A session that never touches disk (``--no-session``)."""
        manager = cls(cwd, None, persist=False)
        manager._new_session(session_id=session_id)
        if entries:
            for entry in entries:
                if entry.get("type") != "session":
                    manager._entries.append(entry)
            manager._build_index()
        return manager

    @classmethod
    def open(
        cls,
        path: str,
        *,
        session_dir: str | None = None,
        cwd_override: str | None = None,
        fsync: FsyncMode = "none",
        read_only: bool = False,
        base_cwd: str | None = None,
    ) -> SessionManager:
        """Open ``path`` in place (``--session``, ``--continue``, ``switch_session``).

        A missing file gives a new empty session that will be written exactly there; an
        existing empty file is initialised with a header; a non-empty file without a
        session header raises ``SessionInvalidError``. Unless ``read_only``, the
        single-writer lock is taken now (``SessionLockedError`` if another process has
        it) and crash damage is repaired. ``cwd`` is the header's cwd unless overridden.
        """
        resolved = _abspath(path, base_cwd)
        directory = _abspath(session_dir) if session_dir else os.path.dirname(resolved)
        lock: SessionLock | None = None
        loaded: LoadedFile | None = None
        index: EntryIndex | None = None
        # One collector pause from the first parsed line to the index, then a freeze: see _gc.
        with gc_paused():
            if os.path.exists(resolved):
                if not read_only:
                    lock = SessionLock(resolved)
                    lock.acquire()
                try:
                    loaded, index = _read_and_index(resolved)
                except BaseException:
                    if lock:
                        lock.release()
                    raise
            header = loaded.entries[0] if loaded and loaded.entries and is_valid_header(loaded.entries[0]) else None
            cwd = cwd_override or (header.get("cwd") if header and isinstance(header.get("cwd"), str) and header.get("cwd") else None) or (base_cwd or os.getcwd())
            manager = cls(cwd, directory, persist=True, fsync=fsync, read_only=read_only)
            manager._lock = lock
            if lock is not None and lock.stale_pid is not None:
                manager.diagnostics.append(f"recovered a stale lock left by pid {lock.stale_pid}")
                lock.stale_pid = None
            try:
                manager._set_session_file(resolved, loaded, index)
            except BaseException:
                manager.close()
                raise
            if len(manager._entries) >= FREEZE_MIN_ENTRIES:
                manager._gc_frozen = freeze_loaded()
        return manager

    @classmethod
    def continue_recent(
        cls, cwd: str, session_dir: str, *, filter_cwd: bool = False, fsync: FsyncMode = "none"
    ) -> SessionManager:
        """``--continue``: the most recently modified session file in ``session_dir`` (only
        those whose header cwd is ``cwd`` when ``filter_cwd``, i.e. a custom dir), or a new
        session there."""
        from pi_rpc.session.listing import find_most_recent

        recent = find_most_recent(session_dir, cwd if filter_cwd else None)
        if recent:
            return cls.open(recent, session_dir=session_dir, fsync=fsync)
        return cls.create(cwd, session_dir, fsync=fsync)

    @classmethod
    def fork_from(
        cls,
        source_path: str,
        target_cwd: str,
        session_dir: str,
        *,
        session_id: str | None = None,
        fsync: FsyncMode = "none",
    ) -> SessionManager:
        """``--fork <path>``: copy every entry of the source into a new file in
        ``session_dir`` with ``cwd`` = ``target_cwd`` and ``parentSession`` = the source.
        Written immediately."""
        source = _abspath(source_path)
        target = _abspath(target_cwd)
        loaded = read_session_file(source) if os.path.exists(source) else LoadedFile()
        if not loaded.entries or not is_valid_header(loaded.entries[0]):
            raise SessionError(f"Cannot fork: source session file is empty or invalid: {source}")
        if session_id is not None:
            assert_valid_session_id(session_id)
        manager = cls(target, session_dir, persist=True, fsync=fsync)
        manager._new_session(session_id=session_id, parent_session=source)
        # Upstream copies v1/v2 entries verbatim under a v3 header; migrate them first.
        migrate_to_current_version(loaded.entries)
        manager._entries = [e for e in loaded.entries[1:] if e.get("type") != "session"]
        manager.diagnostics.extend(f"{source}: {d}" for d in loaded.diagnostics)
        manager._build_index()
        manager._write_new_file()
        return manager

    # ------------------------------------------------------------------ setup internals

    def _new_session(self, *, session_id: str | None = None, parent_session: str | None = None) -> None:
        if session_id is not None:
            assert_valid_session_id(session_id)
        self._session_id = session_id or uuid7()
        timestamp = now_iso()
        self._header = E.make_header(self._session_id, timestamp, self._cwd, parent_session or None)
        self._entries = []
        self._by_id = {}
        self._labels = {}
        self._label_ts = {}
        self._leaf_id = None
        self._flushed = False
        self._has_conversation = False
        if self._persist:
            self._session_file = os.path.join(self._session_dir, session_file_name(timestamp, self._session_id))

    def _set_session_file(self, path: str, loaded: LoadedFile | None, index: EntryIndex | None = None) -> None:
        """Adopt a read file. ``index``: its entries after the header, already indexed while
        streaming (only for a current-format file with a valid header)."""
        self._session_file = path
        if loaded is None:  # missing file: a new session bound to exactly this path
            self._new_session()
            self._session_file = path
            return
        header_ok = bool(loaded.entries) and is_valid_header(loaded.entries[0])
        if not header_ok:
            # Validate before any repair: a file that is not a session is never modified.
            if loaded.size > 0:
                raise SessionInvalidError(path)
            self._new_session()
            self._session_file = path
            if not self._read_only:
                self._rewrite_file()
                self._flushed = True
                self.diagnostics.append("empty session file initialised with a header")
            return
        self.diagnostics.extend(loaded.diagnostics)
        if loaded.torn_tail is not None:
            self._repair_torn_tail(path, loaded)
        if loaded.missing_newline and loaded.torn_tail is None:
            if self._read_only:
                self.diagnostics.append("last line has no newline (not repaired: opened read-only)")
            else:
                self._append_raw(b"\n")
                self.diagnostics.append("appended the missing newline after the last line")
        file_entries = loaded.entries
        header = file_entries[0]
        self._header = header
        self._session_id = header["id"]
        if index is not None:
            self._apply_index(index)
            self._flushed = True
            return
        migrated_from = migrate_to_current_version(file_entries)
        self._entries = [e for e in file_entries[1:] if e.get("type") != "session"]
        if migrated_from is not None:
            if self._read_only:
                self.diagnostics.append(f"format v{migrated_from} migrated to v3 in memory (read-only: file not rewritten)")
            else:
                self._rewrite_file()
                self.diagnostics.append(f"migrated from format v{migrated_from} to v3 (file rewritten)")
        self._build_index()
        self._flushed = True

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

    def _build_index(self) -> None:
        with gc_paused():
            self._apply_index(index_entries(self._entries))

    def _apply_index(self, index: EntryIndex) -> None:
        self.diagnostics.extend(index.diagnostics)
        self._entries = index.entries
        self._by_id = index.by_id
        self._labels = index.labels
        self._label_ts = index.label_timestamps
        self._leaf_id = index.leaf_id
        self._has_conversation = index.has_conversation
        self._linear = index.linear

    # ------------------------------------------------------------------ file I/O

    def _ensure_lock(self) -> None:
        if self._lock is None:
            assert self._session_file is not None
            self._lock = SessionLock(self._session_file)
        if not self._lock.held:
            self._lock.acquire()
        if self._lock.stale_pid is not None:
            self.diagnostics.append(f"recovered a stale lock left by pid {self._lock.stale_pid}")
            self._lock.stale_pid = None

    def _open_append_fd(self) -> int:
        if self._fd is None:
            assert self._session_file is not None
            self._fd = os.open(self._session_file, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        return self._fd

    def _append_raw(self, data: bytes) -> None:
        """Append ``data`` completely or not at all: a write that fails part-way (EFBIG,
        ENOSPC) is cut back off, so the file never ends in a torn line we wrote."""
        self._ensure_lock()
        fd = self._open_append_fd()
        if self._torn_at is not None:
            os.ftruncate(fd, self._torn_at)
            self._torn_at = None
        start = os.lseek(fd, 0, os.SEEK_END)
        try:
            _write_all(fd, data)
        except OSError:
            try:
                os.ftruncate(fd, start)
            except OSError:
                self._torn_at = start
            raise
        if self._fsync == "entry":
            self._fsync_quietly(fd)
        elif self._fsync == "turn":
            self._dirty = True

    def _fsync_quietly(self, fd: int) -> None:
        # The bytes are in the file already; a failed fsync must not make us write them twice.
        try:
            os.fsync(fd)
        except OSError as exc:
            logger().warning(f"pi: session {self._session_file}: fsync failed: {describe_os_error(exc)}")

    def _serialise_all(self) -> bytes:
        return b"".join(dumps_line(e) for e in [self._header, *self._entries])

    def _write_new_file(self) -> None:
        """Exclusive create of the file with header and every in-memory entry, one write."""
        assert self._session_file is not None
        if self._read_only:
            raise SessionReadOnlyError(self._session_file)
        self._ensure_lock()
        data = self._serialise_all()
        fd = os.open(
            self._session_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600
        )
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

    def _rewrite_file(self) -> None:
        """Replace the whole file (migration, empty-file header) via a temp file + rename."""
        if not self._persist or not self._session_file or self._read_only:
            return
        self._ensure_lock()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        tmp = f"{self._session_file}.tmp-{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            _write_all(fd, self._serialise_all())
            if self._fsync != "none":
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self._session_file)
        if self._fsync != "none":
            _fsync_dir(self._session_file)

    def _persist_entry(self, entry: Entry) -> None:
        if not self._persist or not self._session_file:
            return
        if self._read_only:
            raise SessionReadOnlyError(self._session_file)
        if not self._flushed:
            if not self._has_conversation:
                return
        else:
            self._unwritten.append(dumps_line(entry))
        self._write_pending()

    # ------------------------------------------------------------------ write faults

    def pending_entry_count(self) -> int:
        """Entries accepted but not on disk because of a write fault (0 when none)."""
        if not self._persist or not self._session_file:
            return 0
        if not self._flushed:
            return len(self._entries) if self._has_conversation else 0
        return len(self._unwritten)

    def retry_writes(self) -> bool:
        """Try to write what a fault kept off disk; True when nothing is pending any more."""
        if self.pending_entry_count() == 0 and self.write_error is None:
            return True
        if self._read_only:
            return False
        return self._write_pending()

    def _write_pending(self) -> bool:
        pending = self.pending_entry_count()
        try:
            if not self._flushed:
                self._write_new_file()
            elif self._unwritten:
                self._append_raw(b"".join(self._unwritten))
                self._unwritten.clear()
        except (OSError, ValueError) as exc:  # ValueError: a path no file system can hold
            reason = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
            error = f"Could not write session file {self._session_file}: {reason}"
            changed = error != self.write_error
            self.write_error = error
            if changed:
                self._notify_write_state(error, self.pending_entry_count(), 0)
            return False
        if self.write_error is not None:
            self.write_error = None
            self._notify_write_state(None, 0, pending)
        return True

    def _notify_write_state(self, error: str | None, pending: int, written: int) -> None:
        listener = self.on_write_state
        if listener is None:
            return
        try:
            listener(error, pending, written)
        except Exception as exc:  # a listener bug must not turn into a lost entry
            logger().error(f"pi: session write listener failed: {exc!r}")

    def _append_entry(self, entry: Entry) -> None:
        previous_leaf = self._leaf_id
        previous_conv = self._has_conversation
        self._entries.append(entry)
        self._by_id[entry["id"]] = entry
        self._leaf_id = entry["id"]
        if entry["type"] == "message" and entry["message"].get("role") in ("user", "assistant"):
            self._has_conversation = True
        try:
            self._persist_entry(entry)
        except BaseException:
            # An entry that was not written must not become the parent of later entries.
            self._entries.pop()
            self._by_id.pop(entry["id"], None)
            self._leaf_id = previous_leaf
            self._has_conversation = previous_conv
            raise

    def _next_id(self) -> str:
        return new_entry_id(self._by_id)

    def sync(self) -> None:
        """Per-turn durability point: with ``fsync="turn"`` flush appended lines to stable
        storage (no-op otherwise, and when nothing was written since the last sync)."""
        if self._fd is not None and self._dirty:
            self._dirty = False
            self._fsync_quietly(self._fd)

    def close(self) -> None:
        """Write what a fault kept pending (last chance), sync (``turn`` mode), close the
        file and release the single-writer lock."""
        try:
            if self.pending_entry_count() and not self._read_only and not self._write_pending():
                logger().error(
                    f"pi: session {self._session_file}: {self.pending_entry_count()} entries could not be "
                    f"written and are lost ({self.write_error})"
                )
            self.sync()
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            if self._lock is not None:
                self._lock.release()
            self._thaw()

    def _thaw(self) -> None:
        if self._gc_frozen:
            self._gc_frozen = False
            thaw()

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # best effort; callers should close()
        try:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            if self._lock is not None:
                self._lock.release()
            self._thaw()
        except Exception:
            pass

    # ------------------------------------------------------------------ properties

    def is_persisted(self) -> bool:
        return self._persist

    @property
    def cwd(self) -> str:
        return self._cwd

    @property
    def session_dir(self) -> str:
        return self._session_dir

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def session_file(self) -> str | None:
        """The file path (it may not exist yet); None for in-memory sessions."""
        return self._session_file

    @property
    def is_written(self) -> bool:
        """True once the session file exists on disk with this session's header."""
        return bool(self._persist and self._session_file and self._flushed)

    @property
    def fsync_mode(self) -> FsyncMode:
        return self._fsync

    def get_header(self) -> Entry:
        return self._header

    def print_diagnostics(self, stream: TextIO | None = None) -> None:
        print_diagnostics(self, stream)

    # ------------------------------------------------------------------ appends

    def append_message(self, message: dict[str, Any]) -> str:
        entry = E.message_entry(self._next_id(), self._leaf_id, now_iso(), message)
        self._append_entry(entry)
        return entry["id"]

    def append_thinking_level_change(self, thinking_level: str) -> str:
        entry = E.thinking_level_change_entry(self._next_id(), self._leaf_id, now_iso(), thinking_level)
        self._append_entry(entry)
        return entry["id"]

    def append_model_change(self, provider: str, model_id: str) -> str:
        entry = E.model_change_entry(self._next_id(), self._leaf_id, now_iso(), provider, model_id)
        self._append_entry(entry)
        return entry["id"]

    def append_usage(
        self, kind: str, provider: str, model: str, usage: dict[str, Any], note: str | None = None
    ) -> Entry:
        """Metered usage that never enters the context. Returns the entry (like upstream)."""
        entry = E.usage_entry(self._next_id(), self._leaf_id, now_iso(), kind, provider, model, usage, note)
        self._append_entry(entry)
        return entry

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Mapping[str, Any] | None = None,
    ) -> str:
        """``firstKeptEntryId`` None = keep nothing (the compaction's own id). The current
        system message is checkpointed into ``systemMessage``."""
        timestamp = now_iso()
        system = get_current_system_message(self.build_session_projection()["messages"])
        entry_id = self._next_id()
        checkpoint = None
        if system:
            checkpoint = {**system, "timestamp": iso_to_ms(timestamp)}
        entry = E.compaction_entry(
            entry_id, self._leaf_id, timestamp, summary, first_kept_entry_id or entry_id, tokens_before,
            details=details, usage=usage, from_hook=from_hook, system_message=checkpoint,
        )
        self._append_entry(entry)
        return entry_id

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        entry = E.custom_entry(self._next_id(), self._leaf_id, now_iso(), custom_type, data)
        self._append_entry(entry)
        return entry["id"]

    def append_custom_message_entry(
        self, custom_type: str, content: Any, display: bool | None, details: Any = None
    ) -> str:
        entry = E.custom_message_entry(self._next_id(), self._leaf_id, now_iso(), custom_type, content, display, details)
        self._append_entry(entry)
        return entry["id"]

    def append_session_info(self, name: str) -> str:
        sanitized = re.sub(r"[\r\n]+", " ", name).strip()
        entry = E.session_info_entry(self._next_id(), self._leaf_id, now_iso(), sanitized)
        self._append_entry(entry)
        return entry["id"]

    def append_context_edit(self, target_id: str, replacement: dict[str, Any] | None) -> str:
        """Replace (``{"content": ...}``) or omit (None) an earlier entry's model content on
        the active branch."""
        if replacement is not None and (
            not isinstance(replacement, dict)
            or "content" not in replacement
            or not isinstance(replacement["content"], (str, list))
        ):
            raise SessionError("Context edit replacement must be null or contain string/array content")
        target = self._by_id.get(target_id)
        if target is None:
            raise EntryNotFoundError(f"Entry {target_id} not found")
        if not any(e.get("id") == target_id for e in self.get_branch()):
            raise SessionError(f"Entry {target_id} is not on the active branch")
        role = target["message"].get("role") if target.get("type") == "message" else "custom"
        editable = target.get("type") == "custom_message" or (
            target.get("type") == "message" and role in ("user", "assistant", "toolResult")
        )
        if not editable:
            raise SessionError(f"Entry {target_id} does not contribute editable model content")
        normalized = replacement
        if replacement is not None and role in ("assistant", "toolResult") and isinstance(replacement["content"], str):
            normalized = {"content": [{"type": "text", "text": replacement["content"]}]}
        entry = E.context_edit_entry(self._next_id(), self._leaf_id, now_iso(), target_id, normalized)
        self._append_entry(entry)
        return entry["id"]

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (non-empty) or clear (None/empty) the label of an entry."""
        if target_id not in self._by_id:
            raise EntryNotFoundError(f"Entry {target_id} not found")
        entry = E.label_entry(self._next_id(), self._leaf_id, now_iso(), target_id, label)
        self._append_entry(entry)
        if label:
            self._labels[target_id] = label
            self._label_ts[target_id] = entry["timestamp"]
        else:
            self._labels.pop(target_id, None)
            self._label_ts.pop(target_id, None)
        return entry["id"]

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: dict[str, Any] | None = None,
    ) -> str:
        """Move the leaf to ``branch_from_id`` (None = before the root) and append a
        ``branch_summary`` there; ``fromId`` is the abandoned leaf (or ``"root"``)."""
        if branch_from_id is not None and branch_from_id not in self._by_id:
            raise EntryNotFoundError(f"Entry {branch_from_id} not found")
        from_id = self._leaf_id or "root"
        self._leaf_id = branch_from_id
        entry = E.branch_summary_entry(
            self._next_id(), branch_from_id, now_iso(), from_id, summary, details=details, usage=usage,
            from_hook=from_hook,
        )
        self._append_entry(entry)
        return entry["id"]

    # ------------------------------------------------------------------ tree

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_entry(self) -> Entry | None:
        return self._by_id.get(self._leaf_id) if self._leaf_id else None

    def get_entry(self, entry_id: str) -> Entry | None:
        return self._by_id.get(entry_id)

    def get_entry_count(self) -> int:
        return len(self._by_id)

    def get_children(self, parent_id: str) -> list[Entry]:
        return [e for e in self._entries if e.get("parentId") == parent_id]

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_session_name(self) -> str | None:
        """The latest ``session_info`` in file order (all branches); an empty name clears."""
        for entry in reversed(self._entries):
            if entry.get("type") == "session_info":
                name = entry.get("name")
                return (name.strip() or None) if isinstance(name, str) else None
        return None

    def get_branch(self, from_id: str | None = None) -> list[Entry]:
        """Root -> ``from_id`` (default: the leaf), all entry types."""
        start = from_id if from_id is not None else self._leaf_id
        path: list[Entry] = []
        current = self._by_id.get(start) if start else None
        while current is not None and len(path) <= len(self._by_id):
            path.append(current)
            parent = current.get("parentId")
            current = self._by_id.get(parent) if parent else None
        path.reverse()
        return path

    def get_entries(self, since: str | None = None) -> list[Entry]:
        """All entries (no header) in append order; with ``since`` only those appended
        strictly after it (``Entry not found: <since>`` for an unknown id)."""
        if since is None:
            return list(self._entries)
        for index, entry in enumerate(self._entries):
            if entry.get("id") == since:
                return self._entries[index + 1:]
        raise EntryNotFoundError(f"Entry not found: {since}")

    def get_tree(self) -> list[dict[str, Any]]:
        """Root nodes ``{entry, children, label?, labelTimestamp?}`` (RPC ``get_tree.tree``)."""
        return build_tree(self._entries, self._labels, self._label_ts)

    def branch(self, branch_from_id: str) -> None:
        """Move the leaf; the next append becomes a child of ``branch_from_id``."""
        if branch_from_id not in self._by_id:
            raise EntryNotFoundError(f"Entry {branch_from_id} not found")
        self._leaf_id = branch_from_id

    def reset_leaf(self) -> None:
        """Leaf = None: the next append is a new root."""
        self._leaf_id = None

    def get_fork_messages(self) -> list[dict[str, str]]:
        """``[{entryId, text}]`` for every user message with text, all branches, append order."""
        out: list[dict[str, str]] = []
        for entry in self._entries:
            if entry.get("type") != "message":
                continue
            message = entry.get("message") or {}
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                text = content
            else:
                text = "\n".join(
                    b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"
                )
            if text:
                out.append({"entryId": entry["id"], "text": text})
        return out

    # ------------------------------------------------------------------ projection

    def build_context_entries(self) -> list[Entry]:
        return build_context_entries(build_session_path(self._entries, self._leaf_id, self._by_id))

    def build_session_projection(self) -> dict[str, Any]:
        """``{entries:[{sourceEntry, messages}], messages, thinkingLevel, model}``."""
        return build_session_projection(self._entries, self._leaf_id, self._by_id)

    def build_session_context(self) -> dict[str, Any]:
        """``{messages, thinkingLevel, model:{provider, modelId}|None}`` from the active branch:
        the model-visible context that ``get_messages`` returns."""
        linear = self._take_linear_projection()
        if linear is not None:
            thinking_level, model = linear.settings()
            return {"messages": linear.messages, "thinkingLevel": thinking_level, "model": model}
        return build_session_context(self._entries, self._leaf_id, self._by_id)

    def _take_linear_projection(self) -> LinearProjection | None:
        """The projection gathered while indexing, if the session is still as indexed (entries
        are only ever appended or dropped at the end, so the count and the last entry tell);
        given out once, since its messages list and built messages belong to the caller."""
        linear = self._linear
        if linear is None:
            return None
        self._linear = None
        entries = self._entries
        if (
            len(entries) == linear.entry_count
            and entries[-1] is linear.last_entry
            and self._leaf_id is not None
            and self._by_id.get(self._leaf_id) is linear.last_entry
        ):
            return linear
        return None

    # ------------------------------------------------------------------ new / fork / clone

    def new_session(self, *, parent_session: str | None = None, session_id: str | None = None) -> SessionManager:
        """A fresh session in the same directory (in memory if this one is), written lazily.
        This manager is left untouched; close it when switching."""
        if self._persist:
            return SessionManager.create(
                self._cwd, self._session_dir, session_id=session_id, parent_session=parent_session,
                fsync=self._fsync,
            )
        manager = SessionManager.in_memory(self._cwd, session_id=session_id)
        if parent_session:
            manager._header = E.make_header(manager._session_id, manager._header["timestamp"], manager._cwd, parent_session)
        return manager

    def create_branched_session(self, entry_id: str | None, position: Literal["before", "at"] = "before") -> ForkResult:
        """fork/clone (upstream runtime ``fork(entryId, {position})``).

        ``"before"``: ``entry_id`` must be a user message; the new session holds the path up
        to its parent (a root user message gives an empty session). ``"at"``: any entry; the
        path up to and including it. Persisted: a new file in the same dir with
        ``parentSession`` = this file, written now if the path has a user/assistant message;
        in-memory: a new in-memory session. This manager is left untouched.
        """
        selected = self._by_id.get(entry_id) if entry_id else None
        if selected is None:
            raise SessionError("Invalid entry ID for forking")
        selected_text: str | None = None
        if position == "at":
            target_leaf: str | None = selected["id"]
        else:
            if selected.get("type") != "message" or (selected.get("message") or {}).get("role") != "user":
                raise SessionError("Invalid entry ID for forking")
            target_leaf = selected.get("parentId")
            selected_text = _user_text(selected["message"].get("content"))
        previous_file = self._session_file if self._persist else None
        if target_leaf is None:
            return ForkResult(self.new_session(parent_session=previous_file), selected_text)
        if self._persist:
            if not self._session_file:
                raise SessionError("Persisted session is missing a session file")
            # A write fault keeps a saved conversation off disk for now: it can still be forked.
            if not os.path.exists(self._session_file) and self.write_error is None:
                raise SessionError(
                    "This session has not been saved yet. Send a message before cloning or forking it."
                )
        return ForkResult(self._branched_copy(target_leaf, previous_file), selected_text)

    def clone(self) -> ForkResult:
        """RPC ``clone``: fork ``"at"`` the current leaf."""
        if not self._leaf_id:
            raise SessionError("Cannot clone session: no current entry selected")
        return self.create_branched_session(self._leaf_id, "at")

    def _branched_copy(self, leaf_id: str, parent_session: str | None) -> SessionManager:
        """Upstream ``createBranchedSession``: the path without its label entries (labels are
        re-created at the end), re-chained, compaction targets re-pointed off dropped labels."""
        path = self.get_branch(leaf_id)
        if not path:
            raise EntryNotFoundError(f"Entry {leaf_id} not found")
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
            kept.append(copy)
            path_parent = entry["id"]
        ids = {e["id"] for e in kept}
        labels = [(t, lbl, self._label_ts.get(t)) for t, lbl in self._labels.items() if t in ids]
        manager = SessionManager(self._cwd, self._session_dir or None, persist=self._persist, fsync=self._fsync)
        manager._new_session(parent_session=parent_session)
        parent = kept[-1]["id"] if kept else None
        label_entries: list[Entry] = []
        for target, label, ts in labels:
            entry = E.label_entry(new_entry_id(ids), parent, ts, target, label)  # type: ignore[arg-type]
            ids.add(entry["id"])
            label_entries.append(entry)
            parent = entry["id"]
        manager._entries = kept + label_entries
        manager._build_index()
        if manager._persist and manager._has_conversation:
            # A fault leaves the copy pending in memory (write_error says why), not failed.
            manager._write_pending()
        return manager

    # ------------------------------------------------------------------ checks

    def check_cwd_exists(self, fallback_cwd: str) -> None:
        """Raise ``MissingSessionCwdError`` (upstream's text) when a persisted session's
        stored cwd no longer exists."""
        if not self._session_file:
            return
        if self._cwd and not os.path.exists(self._cwd):
            raise MissingSessionCwdError(self._cwd, self._session_file, fallback_cwd)


def print_diagnostics(manager: SessionManager, stream: TextIO | None = None) -> None:
    """Write the manager's load/repair diagnostics to stderr (``pi_rpc.log``), or to ``stream``
    when given, one line each."""
    where = manager.session_file or "(in-memory session)"
    lines = [f"pi: session {where}: {diagnostic}" for diagnostic in manager.diagnostics]
    if stream is None:
        for line in lines:
            logger().warning(line)
        return
    for line in lines:
        stream.write(line + "\n")
    stream.flush()
