"""Session store: pi's JSONL v3 session files, or sessions in one SQLite database
(``backends.py`` says which a locator names), as a tree of entries with lazy crash-safe writes
under a single-writer lock (repair of torn tails for files), the model-visible projection,
fork/clone/new/switch effects, discovery and listing, and session statistics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc._lazy import lazy_exports

# Exported lazily: opening the store at startup must not import listing, statistics and the rest.
_EXPORTS = {
    "build_session_context": "pi_rpc.session.context",
    "build_session_projection": "pi_rpc.session.context",
    "get_current_system_message": "pi_rpc.ai.transcript",
    "CURRENT_SESSION_VERSION": "pi_rpc.session.entries",
    "ENTRY_TYPES": "pi_rpc.session.entries",
    "EntryNotFoundError": "pi_rpc.session.errors",
    "MissingSessionCwdError": "pi_rpc.session.errors",
    "SessionError": "pi_rpc.session.errors",
    "SessionInvalidError": "pi_rpc.session.errors",
    "SessionLockedError": "pi_rpc.session.errors",
    "SessionNotFoundError": "pi_rpc.session.errors",
    "SessionReadOnlyError": "pi_rpc.session.errors",
    "SESSION_ID_ERROR": "pi_rpc.session.ids",
    "assert_valid_session_id": "pi_rpc.session.ids",
    "iso_to_ms": "pi_rpc.session.ids",
    "new_entry_id": "pi_rpc.session.ids",
    "now_iso": "pi_rpc.session.ids",
    "uuid7": "pi_rpc.session.ids",
    "dumps_js": "pi_rpc.session.jsonfmt",
    "dumps_line": "pi_rpc.session.jsonfmt",
    "js_normalize": "pi_rpc.session.jsonfmt",
    "ResolvedSession": "pi_rpc.session.session_arg",
    "SessionInfo": "pi_rpc.session.listing",
    "build_session_info": "pi_rpc.session.listing",
    "default_session_dir": "pi_rpc.session.listing",
    "encode_cwd": "pi_rpc.session.listing",
    "find_by_id": "pi_rpc.session.listing",
    "find_most_recent": "pi_rpc.session.listing",
    "list_all_sessions": "pi_rpc.session.listing",
    "list_sessions": "pi_rpc.session.listing",
    "resolve_session_arg": "pi_rpc.session.session_arg",
    "sessions_root": "pi_rpc.session.listing",
    "session_file_name": "pi_rpc.session.jsonl_store",
    "holder_pid": "pi_rpc.session.lock",
    "dumps_tree": "pi_rpc.session.tree",
    "ForkResult": "pi_rpc.session.manager",
    "SessionManager": "pi_rpc.session.manager",
    "print_diagnostics": "pi_rpc.session.manager",
    "compute_context_usage": "pi_rpc.session.stats",
    "compute_session_stats": "pi_rpc.session.stats",
    "estimate_context_tokens": "pi_rpc.session.stats",
    "estimate_tokens": "pi_rpc.session.stats",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from pi_rpc.ai.transcript import get_current_system_message
    from pi_rpc.session.context import (
        build_session_context,
        build_session_projection,
    )
    from pi_rpc.session.entries import CURRENT_SESSION_VERSION, ENTRY_TYPES
    from pi_rpc.session.errors import (
        EntryNotFoundError,
        MissingSessionCwdError,
        SessionError,
        SessionInvalidError,
        SessionLockedError,
        SessionNotFoundError,
        SessionReadOnlyError,
    )
    from pi_rpc.session.ids import (
        SESSION_ID_ERROR,
        assert_valid_session_id,
        iso_to_ms,
        new_entry_id,
        now_iso,
        uuid7,
    )
    from pi_rpc.session.jsonfmt import dumps_js, dumps_line, js_normalize
    from pi_rpc.session.jsonl_store import session_file_name
    from pi_rpc.session.listing import (
        SessionInfo,
        build_session_info,
        default_session_dir,
        encode_cwd,
        find_by_id,
        find_most_recent,
        list_all_sessions,
        list_sessions,
        sessions_root,
    )
    from pi_rpc.session.lock import holder_pid
    from pi_rpc.session.manager import ForkResult, SessionManager, print_diagnostics
    from pi_rpc.session.session_arg import ResolvedSession, resolve_session_arg
    from pi_rpc.session.stats import (
        compute_context_usage,
        compute_session_stats,
        estimate_context_tokens,
        estimate_tokens,
    )
    from pi_rpc.session.tree import dumps_tree

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
