"""The session files around the live session: list them with upstream's ``SessionInfo`` fields, rename and delete them, and label entries of the live one.

The sessions root is the configured session directory: ``--session-dir``,
``$PI_CODING_AGENT_SESSION_DIR`` or the ``sessionDir`` setting (a flat directory holding the
sessions of every cwd), else ``<agentDir>/sessions`` with one folder per cwd. Listings come
from the selected backend (the JSONL files, or the session database with the sessions it
holds for those directories); a session is named by its file path or its database locator
(``sqlite:<db>#<id>``). Another session is only ever changed under its single-writer lock,
so a session another pi process has open is refused rather than interleaved with, and a
torn last line is moved aside (by ``SessionManager.open``) before anything is appended.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from pi_rpc.ai.jsjson import fs_path
from pi_rpc.config import paths
from pi_rpc.errors import echo
from pi_rpc.runtime.errors import ERR_SESSION_NAME_EMPTY, RuntimeCommandError
from pi_rpc.session.backends import (
    backend_for,
    is_database_locator,
    is_postgres_locator,
    resolve_session_ref,
    same_session,
)
from pi_rpc.session.errors import SessionLockedError
from pi_rpc.session.jsonl_store import JSONL_BACKEND
from pi_rpc.session.loader import read_header
from pi_rpc.session.lock import SessionLock
from pi_rpc.session.manager import SessionManager, print_diagnostics
from pi_rpc.session.store import SessionBackend

_LINE_BREAKS = re.compile(r"[\r\n]+")


def normalize_session_name(name: str) -> str:
    """Upstream's session name rule: trimmed, each run of CR/LF becomes one space; empty is
    refused (``Session name cannot be empty``)."""
    trimmed = name.strip()
    if not trimmed:
        raise RuntimeCommandError(ERR_SESSION_NAME_EMPTY)
    return _LINE_BREAKS.sub(" ", trimmed).strip()


def client_path(session_path: str) -> Path:
    """A session path a client gave: ``~`` expanded, relative to the process's working
    directory (upstream resolves it so, not against the session's cwd). A lone surrogate
    becomes U+FFFD (``fs_path``, as node does); a NUL, which no path can hold, is refused."""
    if "\x00" in session_path:
        raise RuntimeCommandError(f"Invalid session path (it contains a NUL character): {echo(session_path)!r}")
    path = Path(fs_path(session_path)).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    return path


def client_session_ref(session_path: str) -> str:
    """A session a client named: its database locator normalised (``sqlite:<db>#<id>``), or
    its path as ``client_path`` reads it."""
    if is_database_locator(session_path):
        try:
            return resolve_session_ref(session_path)
        except ValueError:
            raise RuntimeCommandError(f"Session file not found: {session_path}") from None
    return str(client_path(session_path))


def _strictly_inside(path: str, root: str) -> bool:
    return path != root and os.path.commonpath([path, root]) == root


def _holder(exc: SessionLockedError) -> str:
    holder = f"pid {exc.pid}" if exc.pid is not None else "an unknown pid"
    host = getattr(exc, "host", None)  # a database session held from another machine
    return f"{holder} on {host}" if host else holder


class SessionCatalog:
    """The session files of this configuration, seen from the live session."""

    def __init__(
        self,
        *,
        agent_dir: Path,
        session_dir: str | None,
        cwd: str,
        store: SessionManager,
        rename_live: Callable[[str], Awaitable[None]],
        backend: SessionBackend | None = None,
    ) -> None:
        self._agent_dir = agent_dir
        self._session_dir = session_dir
        self._backend: SessionBackend = backend if backend is not None else JSONL_BACKEND
        # The live session's cwd and store: a replaced session gets a new catalog (``holder``).
        self._cwd = cwd
        self._store = store
        self._rename_live = rename_live  # the live session's name changes through the session

    # ------------------------------------------------------------------ where sessions live

    def sessions_root(self) -> str:
        """The directory every session of this configuration lives under."""
        if self._session_dir:
            return self._session_dir
        return os.path.abspath(paths.sessions_root(self._agent_dir))

    @staticmethod
    def _resolve(session_path: str) -> str:
        """A client's path or locator, as ``switch_session`` reads it, normalized."""
        ref = client_session_ref(session_path)
        return ref if is_database_locator(ref) else os.path.normpath(ref)

    def _is_current(self, path: str) -> bool:
        current = self._store.session_file
        return bool(current) and same_session(current or "", path)

    # ------------------------------------------------------------------ listing

    def list_sessions(
        self, scope: str = "cwd", limit: int | None = None, query: str | None = None, *, texts: bool = False
    ) -> list[dict[str, object]]:
        """Upstream ``SessionManager.list`` (``scope="cwd"``) or ``listAll`` (``"all"``),
        newest ``modified`` first; ``query`` keeps sessions whose name or a user/assistant
        text contains it (case-insensitive); at most ``limit`` sessions. ``texts``: each
        summary also carries ``allMessagesText`` (every user/assistant text, as upstream's
        session selector searches it), read from every session of the scope."""
        backend = self._backend
        custom = self._session_dir
        if scope == "all":
            # A custom directory is flat: its own sessions are every project's.
            folder, filter_cwd, every = self.sessions_root(), None, custom is None
        elif custom is not None:
            # A flat directory holds every cwd's sessions: keep this cwd's (upstream rule).
            cwd = self._cwd
            default_dir = os.path.abspath(paths.default_session_dir(self._agent_dir, cwd))
            folder, filter_cwd, every = custom, cwd if os.path.abspath(custom) != default_dir else None, False
        else:
            folder, filter_cwd, every = str(paths.default_session_dir(self._agent_dir, self._cwd)), None, False
        if not texts:
            infos = backend.query_sessions(folder, cwd_filter=filter_cwd, every_project=every, query=query, limit=limit)
            return [info.to_summary() for info in infos]
        if scope == "all":
            infos = backend.list_all_sessions(folder, custom=custom is not None, with_texts=True)
        else:
            infos = backend.list_sessions(folder, filter_cwd, with_texts=True)
        if query is not None:
            infos = [info for info in infos if info.matches(query)]
        return [info.to_dict() for info in (infos if limit is None else infos[:limit])]

    # ------------------------------------------------------------------ rename and delete

    async def rename_session(self, session_path: str, name: str) -> None:
        """Append a ``session_info`` entry to that file (the live session: ``set_session_name``)."""
        path = self._resolve(session_path)
        if self._is_current(path):
            await self._rename_live(name)
            return
        normalized = normalize_session_name(name)
        if is_database_locator(path):
            # Opened, written and closed in a worker thread: a session database locked by
            # another process waits there (up to its busy timeout), never on the event loop.
            # The manager and its connection live and die in that one thread.
            await anyio.to_thread.run_sync(self._rename_other, path, normalized)
        else:
            self._rename_other(path, normalized)  # a file: no lock to wait for (as before)

    def _rename_other(self, path: str, name: str) -> None:
        self._require_session_file(path)
        try:
            manager = SessionManager.open(path)
        except SessionLockedError as exc:
            raise RuntimeCommandError(
                f"Cannot rename {path}: the session is in use by another pi process ({_holder(exc)})"
            ) from None
        # (any other SessionError is the command's error, its own text)
        try:
            print_diagnostics(manager)
            manager.append_session_info(name)
            if manager.write_error is not None:
                # Held, not written (e.g. the database locked past its busy timeout): say so
                # instead of answering success for an entry ``close`` would then report lost
                # (after waiting for the lock once more: this attempt was the last).
                manager.deferred_writes.mark_final_attempt()
                raise RuntimeCommandError(f"Cannot rename {path}: {manager.write_error}")
        finally:
            manager.close()

    async def delete_session(self, session_path: str) -> None:
        """Remove a session file under the sessions root, or a session of the selected session
        database (never the live one, never one another process has open)."""
        path = self._resolve(session_path)
        if self._is_current(path):
            raise RuntimeCommandError(
                f"Cannot delete {path}: it is the current session (switch to another session first)"
            )
        if is_database_locator(path):
            # In a worker thread with a connection of its own: the database's write lock is
            # waited for there (up to its busy timeout), never on the event loop.
            await anyio.to_thread.run_sync(self._delete_stored, path)
            return
        root = self.sessions_root()
        real_root = os.path.realpath(root)
        # Both the directory entry unlink removes (its folder resolved, its own name as given)
        # and the file it names must be under the root: a link outside pointing in is refused.
        entry = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if not (_strictly_inside(entry, real_root) and _strictly_inside(os.path.realpath(path), real_root)):
            raise RuntimeCommandError(f"Cannot delete {path}: it is outside the sessions directory {root}")
        if os.path.islink(path):  # unlinking it would leave the session it names in place
            raise RuntimeCommandError(f"Cannot delete {path}: it is a symbolic link, not a session file")
        self._require_session_file(path)
        lock = SessionLock(path)
        try:
            lock.acquire()
        except SessionLockedError as exc:
            raise RuntimeCommandError(
                f"Cannot delete {path}: the session is in use by another pi process ({_holder(exc)})"
            ) from None
        try:
            os.unlink(path)
        except FileNotFoundError:
            raise RuntimeCommandError(f"Session file not found: {path}") from None
        except OSError as exc:
            raise RuntimeCommandError(f"Cannot delete {path}: {exc.strerror or exc}") from None
        finally:
            lock.release()

    def _delete_stored(self, locator: str) -> None:
        """Delete a session of the selected database (of no other: as a file must be under the
        sessions root), under its single-writer lock."""
        backend = self._backend
        delete = getattr(backend, "delete", None)  # the database backends' own
        if delete is None or backend_for(locator) is not backend:
            where = getattr(backend, "database", None) or self.sessions_root()
            raise RuntimeCommandError(f"Cannot delete {locator}: it is not in the session store in use ({where})")
        self._require_session_file(locator)
        # (the database's driver is loaded already: its backend is in use)
        if is_postgres_locator(locator):
            import psycopg

            faults: tuple[type[BaseException], ...] = (psycopg.Error, OSError)
        else:
            import sqlite3

            faults = (sqlite3.Error, OSError)
        try:
            removed = delete(locator)
        except SessionLockedError as exc:
            raise RuntimeCommandError(
                f"Cannot delete {locator}: the session is in use by another pi process ({_holder(exc)})"
            ) from None
        except faults as exc:  # the database cannot be written
            raise RuntimeCommandError(f"Cannot delete {locator}: {exc}") from None
        if not removed:
            raise RuntimeCommandError(f"Session file not found: {locator}")

    @staticmethod
    def _require_session_file(path: str) -> None:
        if is_database_locator(path):
            if not backend_for(path).exists(path):
                raise RuntimeCommandError(f"Session file not found: {path}")
            return
        if not os.path.lexists(path):
            raise RuntimeCommandError(f"Session file not found: {path}")
        if not os.path.isfile(path) or read_header(path) is None:
            raise RuntimeCommandError(f"Session file is not a valid pi session: {path}")

    # ------------------------------------------------------------------ labels

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Set (non-empty) or clear (``None`` or ``""``) an entry's label (a ``label`` entry)."""
        # EntryNotFoundError (a SessionError) is the command's error, its own text.
        self._store.append_label_change(entry_id, label or None)
