"""``SessionManager``: one session as an append-only tree of entries (format v3), mirroring
upstream pi 1.6's ``SessionManager`` in snake_case.

Writing: nothing is stored until the session holds a user or assistant message; then the
header and all entries go to storage at once, and afterwards each entry is appended as it
is accepted. Where and how entries are stored, the single-writer lock, write faults
(``write_error``, ``on_write_state``, ``retry_writes()``) and the repair of crash damage on
load belong to the session's store: ``store.py`` (the interface), ``jsonl_store.py`` (the
JSONL files, the default backend) and ``sqlite_store.py`` (a session database). A manager
creates its new sessions, forks and clones with the backend it was given; a session opened
by its locator uses the backend the locator names (``backends.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TextIO, cast

from pi_rpc.ai.jsjson import fs_path
from pi_rpc.ai.transcript import content_text, content_text_concat, get_current_system_message
from pi_rpc.log import logger
from pi_rpc.session import entries as E
from pi_rpc.session._gc import FREEZE_MIN_ENTRIES, freeze_loaded, gc_paused, thaw
from pi_rpc.session.backends import backend_for, is_database_locator, resolve_session_ref
from pi_rpc.session.backlog import WriteBatch
from pi_rpc.session.branching import branched_entries
from pi_rpc.session.context import (
    build_context_entries,
    build_session_context,
    build_session_path,
    build_session_projection,
)
from pi_rpc.session.entries import Entry, SessionHeader
from pi_rpc.session.errors import (
    EntryNotFoundError,
    MissingSessionCwdError,
    SessionError,
    SessionReadOnlyError,
)
from pi_rpc.session.ids import (
    SESSION_ID_ERROR,
    SESSION_ID_RE,
    assert_valid_session_id,
    iso_to_ms,
    new_entry_id,
    now_iso,
    uuid7,
)
from pi_rpc.session.index import EntryIndex, LinearProjection, index_entries
from pi_rpc.session.jsonl_store import JSONL_BACKEND
from pi_rpc.session.loader import LoadedFile, is_valid_header, read_session_file
from pi_rpc.session.migrations import migrate_to_current_version
from pi_rpc.session.store import FSYNC_MODES as _FSYNC_MODES
from pi_rpc.session.store import FsyncMode, SessionBackend, SessionStore, WriteStateListener
from pi_rpc.session.tree import build_tree


class DeferredWrites:
    """A manager's view of its store's deferred writing (``backlog.py``): switched on by the
    runtime, which then writes the queued batches off its event loop."""

    def __init__(self, store: Callable[[], SessionStore | None]) -> None:
        self._store = store

    def enable(self) -> bool:
        """Queue accepted entries instead of writing them at once, when the store supports
        it (a session database); True when it does."""
        store = self._store()
        if store is None or not store.deferrable:
            return False
        store.defer = True
        return True

    @property
    def enabled(self) -> bool:
        store = self._store()
        return store is not None and store.defer

    def take(self) -> WriteBatch[object] | None:
        """What is queued for writing now, None when nothing is."""
        store = self._store()
        return store.take_batch() if store is not None and store.defer else None

    def write(self, batch: WriteBatch[object]) -> Exception | None:
        """Store ``batch``; safe off the owner's thread. The storage fault, or None."""
        store = self._store()
        assert store is not None
        return store.write_batch(batch)

    def write_without_waiting(self, batch: WriteBatch[object]) -> Exception | None:
        """``write`` on the owner's thread that never waits for another writer: a
        ``backlog.WouldWait`` when it would (nothing written; do not ``settle`` it)."""
        store = self._store()
        assert store is not None
        return store.write_batch(batch, wait=False)

    def settle(self, batch: WriteBatch[object], fault: Exception | None) -> bool:
        """Apply ``write``'s outcome on the owner's thread (reports fault changes)."""
        store = self._store()
        assert store is not None
        return store.settle_batch(batch, fault)

    def mark_final_attempt(self) -> None:
        """The owner's last write attempt was made (off its thread): ``close`` will not wait
        for storage again, it reports what is lost."""
        store = self._store()
        if store is not None:
            store.final_attempt_made = True


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


def _locate(path: str, base: str | None = None) -> str:
    """A session's locator as given by a caller: a database locator normalised, a file path
    made absolute (against ``base``) like ``_abspath``."""
    return resolve_session_ref(path) if is_database_locator(path) else _abspath(path, base)


def _locator_id(locator: str) -> str:
    """The session id a database locator names, refused unless it can be a session's id (a
    new session gets it as its header id)."""
    session_id = locator.rpartition("#")[2]
    if not SESSION_ID_RE.match(session_id):
        raise SessionError(f"Cannot create session {locator}: {SESSION_ID_ERROR}")
    return session_id


def _read_whole(locator: str) -> LoadedFile:
    """Every stored entry of a session, header first (``--fork``'s source); empty when
    nothing is stored there. Read-only: no lock is taken."""
    if not is_database_locator(locator):
        return read_session_file(locator) if os.path.exists(locator) else LoadedFile()
    store = backend_for(locator).store(locator, fsync="none", read_only=True, diagnostics=[])
    try:
        loaded, index = store.load()
    finally:
        store.release()
    if loaded is None:
        return LoadedFile()
    if index is not None:
        loaded.entries = [loaded.entries[0], *cast("list[dict[str, object]]", index.entries)]  # stored JSON again
    return loaded


def _index_paused(entries: Iterable[Mapping[str, object]]) -> EntryIndex:
    """``index_entries`` with the cyclic collector paused (see ``_gc``)."""
    with gc_paused():
        return index_entries(entries)


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
        backend: SessionBackend | None = None,
    ) -> None:
        if fsync not in _FSYNC_MODES:
            raise ValueError(f"fsync must be one of {_FSYNC_MODES}, not {fsync!r}")
        self._cwd = _abspath(cwd)
        self._session_dir = _abspath(session_dir) if session_dir else ""
        self._persist = persist
        self._fsync: FsyncMode = fsync
        self._read_only = read_only
        # Names and stores this manager's new sessions, forks and clones.
        self._backend: SessionBackend = backend if backend is not None else JSONL_BACKEND
        # The store's deferred writing, for a runtime that writes off its event loop.
        self.deferred_writes = DeferredWrites(lambda: None if self._read_only else self._store)
        self._session_id = ""
        self._session_file: str | None = None
        self._header: SessionHeader = cast(SessionHeader, {})  # made by _new_session or read from the file
        self._entries: list[Entry] = []
        self._by_id: dict[str, Entry] = {}
        self._labels: dict[str, str] = {}
        self._label_ts: dict[str, str] = {}
        self._leaf_id: str | None = None
        self._has_conversation = False
        # Where the entries are stored (bound with the session file); None in memory.
        self._store: SessionStore | None = None
        # The first projection of a one-chain session, gathered while indexing; used once.
        self._linear: LinearProjection | None = None
        self._gc_frozen = False
        self.diagnostics: list[str] = []
        if persist and self._session_dir and not read_only and self._backend.creates_directories:
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
        backend: SessionBackend | None = None,
    ) -> SessionManager:
        """A new persisted session in ``session_dir`` (of ``backend``, the JSONL files by
        default); it is stored at the first user or assistant message."""
        manager = cls(cwd, session_dir, persist=True, fsync=fsync, backend=backend)
        manager._new_session(session_id=session_id, parent_session=parent_session)
        return manager

    @classmethod
    def in_memory(
        cls, cwd: str, *, session_id: str | None = None, entries: Iterable[Mapping[str, object]] | None = None
    ) -> SessionManager:
        """A session that never touches disk (``--no-session``)."""
        manager = cls(cwd, None, persist=False)
        manager._new_session(session_id=session_id)
        if entries:
            manager._apply_index(_index_paused([entry for entry in entries if entry.get("type") != "session"]))
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
        new_session_dir: str | None = None,
    ) -> SessionManager:
        """Open ``path`` in place (``--session``, ``--continue``, ``switch_session``): a file
        path, or a database locator (``sqlite:<db>#<id>``).

        A missing file gives a new empty session that will be written exactly there; an
        existing empty file is initialised with a header; a non-empty file without a
        session header raises ``SessionInvalidError``. A session a database does not hold
        yet is created as a locator says: its header id is the locator's id (which must be
        a valid session id), and it is listed under ``new_session_dir`` (the session
        directory it is created for). Unless ``read_only``, the single-writer lock is taken
        now (``SessionLockedError`` if another process has it) and crash damage is
        repaired. ``cwd`` is the header's cwd unless overridden.
        """
        resolved = _locate(path, base_cwd)
        backend = backend_for(resolved)
        if new_session_dir and is_database_locator(resolved) and SESSION_ID_RE.match(resolved.rpartition("#")[2]):
            # (remembered until its store is bound; a stored session keeps its own directory)
            backend.new_locator(_abspath(new_session_dir), "", resolved.rpartition("#")[2])
        diagnostics: list[str] = []
        store = backend.store(resolved, fsync=fsync, read_only=read_only, diagnostics=diagnostics)
        # One collector pause from the first parsed line to the index, then a freeze: see _gc.
        with gc_paused():
            loaded, index = store.load()
            header = loaded.entries[0] if loaded and loaded.entries and is_valid_header(loaded.entries[0]) else None
            cwd = (
                cwd_override
                or (header.get("cwd") if header and isinstance(header.get("cwd"), str) and header.get("cwd") else None)
                or (base_cwd or os.getcwd())
            )
            # New sessions, forks and clones go where this one lives (a file's folder; the
            # directory a database session was created in).
            directory = _abspath(session_dir) if session_dir else store.directory
            manager = cls(cwd, directory, persist=True, fsync=fsync, read_only=read_only, backend=backend)
            manager.diagnostics = diagnostics  # the store's notes on opening come first
            manager._store = store
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
        cls,
        cwd: str,
        session_dir: str,
        *,
        filter_cwd: bool = False,
        fsync: FsyncMode = "none",
        backend: SessionBackend | None = None,
    ) -> SessionManager:
        """``--continue``: the most recently modified session file in ``session_dir`` (only
        those whose header cwd is ``cwd`` when ``filter_cwd``, i.e. a custom dir), or a new
        session there."""
        recent = (backend or JSONL_BACKEND).find_most_recent(session_dir, cwd if filter_cwd else None)
        if recent:
            return cls.open(recent, session_dir=session_dir, fsync=fsync)
        return cls.create(cwd, session_dir, fsync=fsync, backend=backend)

    @classmethod
    def fork_from(
        cls,
        source_path: str,
        target_cwd: str,
        session_dir: str,
        *,
        session_id: str | None = None,
        fsync: FsyncMode = "none",
        backend: SessionBackend | None = None,
    ) -> SessionManager:
        """``--fork <path|locator>``: copy every entry of the source into a new session of
        ``backend`` in ``session_dir`` with ``cwd`` = ``target_cwd`` and ``parentSession`` =
        the source's locator. Written immediately."""
        source = _locate(source_path)
        target = _abspath(target_cwd)
        loaded = _read_whole(source)
        if not loaded.entries or not is_valid_header(loaded.entries[0]):
            raise SessionError(f"Cannot fork: source session file is empty or invalid: {source}")
        if session_id is not None:
            assert_valid_session_id(session_id)
        manager = cls(target, session_dir, persist=True, fsync=fsync, backend=backend)
        manager._new_session(session_id=session_id, parent_session=source)
        # Upstream copies v1/v2 entries verbatim under a v3 header; migrate them first.
        migrate_to_current_version(loaded.entries)
        manager._entries = E.entries_of([e for e in loaded.entries[1:] if e.get("type") != "session"])
        manager.diagnostics.extend(f"{source}: {d}" for d in loaded.diagnostics)
        manager._apply_index(_index_paused(manager._entries))
        assert manager._store is not None  # bound by _new_session: the manager persists
        manager._store.create(manager._header, manager._entries, hold=False)
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
        self._has_conversation = False
        if self._persist and self._store is None:  # open() binds the opened file's store first
            self._session_file = self._backend.new_locator(self._session_dir, timestamp, self._session_id)
            self._store = self._backend.store(
                self._session_file, fsync=self._fsync, read_only=self._read_only, diagnostics=self.diagnostics
            )

    def _set_session_file(self, path: str, loaded: LoadedFile | None, index: EntryIndex | None = None) -> None:
        """Adopt a read file. ``index``: its entries after the header, already indexed while
        streaming (only for a current-format file with a valid header)."""
        self._session_file = path
        if loaded is None:  # missing file: a new session bound to exactly this path
            # A database session is named by its id: the header must carry that id (one
            # session, one id, in listings, exports and imports).
            self._new_session(session_id=_locator_id(path) if is_database_locator(path) else None)
            self._session_file = path
            return
        assert self._store is not None  # open() binds it
        header_ok = bool(loaded.entries) and is_valid_header(loaded.entries[0])
        if not header_ok:  # an empty file (the store refuses a non-empty one without a header)
            self._new_session()
            self._session_file = path
            if not self._read_only:
                self._store.rewrite(self._header, self._entries)
                self.diagnostics.append("empty session file initialised with a header")
            return
        file_entries = loaded.entries
        header = E.header_of(file_entries[0])
        self._header = header
        self._session_id = header["id"]
        if index is not None:
            self._apply_index(index)
            return
        migrated_from = migrate_to_current_version(file_entries)
        self._entries = E.entries_of([e for e in file_entries[1:] if e.get("type") != "session"])
        if migrated_from is not None:
            if self._read_only:
                self.diagnostics.append(
                    f"format v{migrated_from} migrated to v3 in memory (read-only: file not rewritten)"
                )
            else:
                self._store.rewrite(self._header, self._entries)
                self.diagnostics.append(f"migrated from format v{migrated_from} to v3 (file rewritten)")
        self._apply_index(_index_paused(self._entries))

    def _apply_index(self, index: EntryIndex) -> None:
        self.diagnostics.extend(index.diagnostics)
        self._entries = index.entries
        self._by_id = index.by_id
        self._labels = index.labels
        self._label_ts = index.label_timestamps
        self._leaf_id = index.leaf_id
        self._has_conversation = index.has_conversation
        self._linear = index.linear

    # ------------------------------------------------------------------ writing

    def _persist_entry(self, entry: Entry) -> None:
        store = self._store
        if store is None:  # in memory
            return
        if self._read_only:
            raise SessionReadOnlyError(store.locator)
        if not store.created:
            if not self._has_conversation:
                return
            # The first write: the header and every entry so far, at once.
            store.create(self._header, self._entries)
        else:
            store.append((entry,))

    # ------------------------------------------------------------------ write faults (held by the store)

    @property
    def write_error(self) -> str | None:
        """The fault keeping entries off storage while one is in effect, else None."""
        return self._store.write_error if self._store is not None else None

    @property
    def on_write_state(self) -> WriteStateListener | None:
        """Hears every change of the fault state (``store.WriteStateListener``)."""
        return self._store.on_write_state if self._store is not None else None

    @on_write_state.setter
    def on_write_state(self, listener: WriteStateListener | None) -> None:
        if self._store is not None:  # in memory nothing can fail to be written
            self._store.on_write_state = listener

    def pending_entry_count(self) -> int:
        """Entries accepted but not on disk because of a write fault (0 when none)."""
        return self._store.pending_count() if self._store is not None else 0

    def retry_writes(self) -> bool:
        """Try to write what a fault kept off disk; True when nothing is pending any more."""
        return self._store.retry() if self._store is not None else True

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
        if self._store is not None:
            self._store.sync()

    def close(self) -> None:
        """Write what a fault kept pending (last chance), sync (``turn`` mode), close the
        file and release the single-writer lock."""
        try:
            if self._store is not None:
                self._store.close()
        finally:
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
            if self._store is not None:
                self._store.release()
            self._thaw()
        except Exception:  # noqa: BLE001 - best effort in __del__
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
        """The session's locator: its file path (it may not exist yet) or database locator;
        None for in-memory sessions."""
        return self._session_file

    def get_header(self) -> SessionHeader:
        return self._header

    # ------------------------------------------------------------------ appends

    def append_message(self, message: Mapping[str, object]) -> str:
        entry_id = self._next_id()
        self._append_entry(E.message_entry(entry_id, self._leaf_id, now_iso(), message))
        return entry_id

    def append_thinking_level_change(self, thinking_level: str) -> str:
        entry_id = self._next_id()
        self._append_entry(E.thinking_level_change_entry(entry_id, self._leaf_id, now_iso(), thinking_level))
        return entry_id

    def append_model_change(self, provider: str, model_id: str) -> str:
        entry_id = self._next_id()
        self._append_entry(E.model_change_entry(entry_id, self._leaf_id, now_iso(), provider, model_id))
        return entry_id

    def append_usage(
        self, kind: str, provider: str, model: str, usage: dict[str, object], note: str | None = None
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
        details: object = None,
        from_hook: bool | None = None,
        usage: Mapping[str, object] | None = None,
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
            entry_id,
            self._leaf_id,
            timestamp,
            summary,
            first_kept_entry_id or entry_id,
            tokens_before,
            details=details,
            usage=usage,
            from_hook=from_hook,
            system_message=checkpoint,
        )
        self._append_entry(entry)
        return entry_id

    def append_custom_entry(self, custom_type: str, data: object = None) -> str:
        entry_id = self._next_id()
        self._append_entry(E.custom_entry(entry_id, self._leaf_id, now_iso(), custom_type, data))
        return entry_id

    def append_custom_message_entry(
        self, custom_type: str, content: object, display: bool | None, details: object = None
    ) -> str:
        entry_id = self._next_id()
        self._append_entry(
            E.custom_message_entry(entry_id, self._leaf_id, now_iso(), custom_type, content, display, details)
        )
        return entry_id

    def append_session_info(self, name: str) -> str:
        sanitized = re.sub(r"[\r\n]+", " ", name).strip()
        entry_id = self._next_id()
        self._append_entry(E.session_info_entry(entry_id, self._leaf_id, now_iso(), sanitized))
        return entry_id

    def append_context_edit(self, target_id: str, replacement: dict[str, object] | None) -> str:
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
        role = target["message"].get("role") if E.is_message_entry(target) else "custom"
        editable = target.get("type") == "custom_message" or (
            target.get("type") == "message" and role in ("user", "assistant", "toolResult")
        )
        if not editable:
            raise SessionError(f"Entry {target_id} does not contribute editable model content")
        normalized = replacement
        if replacement is not None and role in ("assistant", "toolResult") and isinstance(replacement["content"], str):
            normalized = {"content": [{"type": "text", "text": replacement["content"]}]}
        entry_id = self._next_id()
        self._append_entry(E.context_edit_entry(entry_id, self._leaf_id, now_iso(), target_id, normalized))
        return entry_id

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (non-empty) or clear (None/empty) the label of an entry."""
        if target_id not in self._by_id:
            raise EntryNotFoundError(f"Entry {target_id} not found")
        entry_id = self._next_id()
        entry = E.label_entry(entry_id, self._leaf_id, now_iso(), target_id, label)
        self._append_entry(entry)
        if label:
            self._labels[target_id] = label
            self._label_ts[target_id] = entry["timestamp"]
        else:
            self._labels.pop(target_id, None)
            self._label_ts.pop(target_id, None)
        return entry_id

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: object = None,
        from_hook: bool | None = None,
        usage: dict[str, object] | None = None,
    ) -> str:
        """Move the leaf to ``branch_from_id`` (None = before the root) and append a
        ``branch_summary`` there; ``fromId`` is the abandoned leaf (or ``"root"``)."""
        if branch_from_id is not None and branch_from_id not in self._by_id:
            raise EntryNotFoundError(f"Entry {branch_from_id} not found")
        from_id = self._leaf_id or "root"
        self._leaf_id = branch_from_id
        entry_id = self._next_id()
        entry = E.branch_summary_entry(
            entry_id,
            branch_from_id,
            now_iso(),
            from_id,
            summary,
            details=details,
            usage=usage,
            from_hook=from_hook,
        )
        self._append_entry(entry)
        return entry_id

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
                return self._entries[index + 1 :]
        raise EntryNotFoundError(f"Entry not found: {since}")

    def get_tree(self) -> list[dict[str, object]]:
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
            message = entry.get("message")
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            text = content_text(message.get("content"))
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
        # The projection gathered while indexing, if the session is still as indexed (entries
        # are only ever appended or dropped at the end, so the count and the last entry tell);
        # given out once, since its messages list and built messages belong to the caller.
        linear, self._linear = self._linear, None
        entries = self._entries
        if (
            linear is not None
            and len(entries) == linear.entry_count
            and entries[-1] is linear.last_entry
            and self._leaf_id is not None
            and self._by_id.get(self._leaf_id) is linear.last_entry
        ):
            thinking_level, model = linear.settings()
            return {"messages": linear.messages, "thinkingLevel": thinking_level, "model": model}
        return build_session_context(self._entries, self._leaf_id, self._by_id)

    # ------------------------------------------------------------------ new / fork / clone

    def new_session(self, *, parent_session: str | None = None, session_id: str | None = None) -> SessionManager:
        """A fresh session in the same directory (in memory if this one is), written lazily.
        This manager is left untouched; close it when switching."""
        if self._persist:
            return SessionManager.create(
                self._cwd,
                self._session_dir,
                session_id=session_id,
                parent_session=parent_session,
                fsync=self._fsync,
                backend=self._backend,
            )
        manager = SessionManager.in_memory(self._cwd, session_id=session_id)
        if parent_session:
            manager._header = E.make_header(
                manager._session_id, manager._header["timestamp"], manager._cwd, parent_session
            )
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
            if not E.is_message_entry(selected) or (selected.get("message") or {}).get("role") != "user":
                raise SessionError("Invalid entry ID for forking")
            target_leaf = selected.get("parentId")
            selected_text = content_text_concat(selected["message"].get("content"))
        previous_file = self._session_file if self._persist else None
        if target_leaf is None:
            return ForkResult(self.new_session(parent_session=previous_file), selected_text)
        if self._persist:
            if not self._session_file:
                raise SessionError("Persisted session is missing a session file")
            # A write fault keeps a saved conversation off disk for now: it can still be forked.
            # (the fault first: a database in a directory that became unreadable is not asked)
            if self.write_error is None and not self._backend.exists(self._session_file):
                raise SessionError("This session has not been saved yet. Send a message before cloning or forking it.")
        path = self.get_branch(target_leaf)
        if not path:
            raise EntryNotFoundError(f"Entry {target_leaf} not found")
        manager = SessionManager(
            self._cwd, self._session_dir or None, persist=self._persist, fsync=self._fsync, backend=self._backend
        )
        manager._new_session(parent_session=previous_file)
        manager._apply_index(_index_paused(branched_entries(path, self._labels, self._label_ts)))
        if manager._store is not None and manager._has_conversation:
            if self.deferred_writes.enabled:
                # The copy is written as this session's entries are: off the caller's thread.
                manager.deferred_writes.enable()
            # A fault leaves the copy pending in memory (write_error says why), not failed.
            manager._store.create(manager._header, manager._entries)
        return ForkResult(manager, selected_text)

    def clone(self) -> ForkResult:
        """RPC ``clone``: fork ``"at"`` the current leaf."""
        if not self._leaf_id:
            raise SessionError("Cannot clone session: no current entry selected")
        return self.create_branched_session(self._leaf_id, "at")

    # ------------------------------------------------------------------ checks

    def check_cwd_exists(self, fallback_cwd: str) -> None:
        """Raise ``MissingSessionCwdError`` (upstream's text) when a persisted session's
        stored cwd no longer exists."""
        if not self._session_file:
            return
        if self._cwd and not os.path.exists(self._cwd):
            raise MissingSessionCwdError(self._cwd, self._session_file, fallback_cwd)


class StoreWriter(Protocol):
    """A store with a writer thread of its own (a database server's: ``postgres_store``).
    A runtime opts in (``defer_writes``) and awaits ``settle`` before the next event or
    response reaches a client. (A SQLite session database is written off the event loop by
    the runtime instead, through ``SessionManager.deferred_writes``; the files are written
    synchronously.)"""

    write_generation: int

    @property
    def writes_in_flight(self) -> bool: ...

    def defer_writes(self) -> None: ...

    async def settle(self) -> None: ...


def store_writer(manager: SessionManager) -> StoreWriter | None:
    """The manager's store when it has a writer thread of its own, else None."""
    store = manager._store
    return cast(StoreWriter, store) if store is not None and hasattr(store, "defer_writes") else None


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
