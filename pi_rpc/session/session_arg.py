"""What ``--session``/``--fork`` (and ACP's session load) name: a database locator, a path, or a
session id or id prefix looked up in a backend. It sits above the backends and the listing
(it asks ``backends`` about locators and lists the JSONL files by default), so that neither of
those needs to import the other's dispatcher."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pi_rpc.session.backends import is_database_locator, resolve_session_ref
from pi_rpc.session.errors import SessionNotFoundError
from pi_rpc.session.jsonl_store import JSONL_BACKEND

if TYPE_CHECKING:
    from pi_rpc.session.store import SessionBackend


@dataclass
class ResolvedSession:
    """``type``: ``"path"`` (looked like a path), ``"local"`` (this project's dir) or
    ``"global"`` (another project: upstream asks before forking it in)."""

    type: Literal["path", "local", "global"]
    path: str
    cwd: str | None = None


def resolve_session_arg(
    value: str,
    *,
    cwd: str,
    session_dir: str,
    all_sessions_dir: str | None,
    custom_dir: bool = False,
    backend: SessionBackend | None = None,
) -> ResolvedSession:
    """``--session``/``--fork`` argument: a database locator (``sqlite:<db>#<id>``), or a
    path when it contains ``/`` or ``\\`` or ends in ``.jsonl`` (resolved against ``cwd``);
    otherwise an exact id, then an id prefix in ``session_dir``, then exact/prefix among all
    sessions, looked up in ``backend`` (the JSONL files by default). Raises
    ``SessionNotFoundError`` (``No session found matching '<x>'``)."""
    if is_database_locator(value):
        try:
            return ResolvedSession("path", resolve_session_ref(value))
        except ValueError:
            raise SessionNotFoundError(value) from None
    if "/" in value or "\\" in value or value.endswith(".jsonl"):
        return ResolvedSession("path", resolve_session_ref(value, cwd))
    store = backend if backend is not None else JSONL_BACKEND
    filter_cwd = cwd if custom_dir else None
    exact = store.find_by_id(session_dir, value, filter_cwd)
    if exact:
        return ResolvedSession("local", exact)
    local = next((s for s in store.list_sessions(session_dir, filter_cwd) if s.id.startswith(value)), None)
    if local:
        return ResolvedSession("local", local.path)
    if custom_dir:
        everything = store.list_all_sessions(session_dir, custom=True)
    elif all_sessions_dir:
        everything = store.list_all_sessions(all_sessions_dir)
    else:
        everything = []
    match = next((s for s in everything if s.id == value), None) or next(
        (s for s in everything if s.id.startswith(value)), None
    )
    if match:
        return ResolvedSession("global", match.path, match.cwd)
    raise SessionNotFoundError(value)


__all__ = ["ResolvedSession", "resolve_session_arg"]
