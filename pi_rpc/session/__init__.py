"""Session store: pi's JSONL v3 session files (tree of entries, lazy crash-safe writes with a
single-writer lock, repair of torn tails), the model-visible projection, fork/clone/new/
switch file effects, discovery and listing, and session statistics."""

from pi_rpc.session.context import (
    build_session_context,
    build_session_projection,
)
from pi_rpc.ai.transcript import get_current_system_message
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
from pi_rpc.session.listing import (
    ResolvedSession,
    SessionInfo,
    build_session_info,
    default_session_dir,
    encode_cwd,
    find_by_id,
    find_most_recent,
    list_all_sessions,
    list_sessions,
    resolve_session_arg,
    sessions_root,
)
from pi_rpc.session.lock import holder_pid
from pi_rpc.session.tree import dumps_tree
from pi_rpc.session.manager import ForkResult, SessionManager, print_diagnostics, session_file_name
from pi_rpc.session.stats import (
    compute_context_usage,
    compute_session_stats,
    estimate_context_tokens,
    estimate_tokens,
)

__all__ = [
    "CURRENT_SESSION_VERSION",
    "ENTRY_TYPES",
    "SESSION_ID_ERROR",
    "EntryNotFoundError",
    "ForkResult",
    "MissingSessionCwdError",
    "ResolvedSession",
    "SessionError",
    "SessionInfo",
    "SessionInvalidError",
    "SessionLockedError",
    "SessionManager",
    "SessionNotFoundError",
    "SessionReadOnlyError",
    "assert_valid_session_id",
    "build_session_context",
    "build_session_info",
    "build_session_projection",
    "compute_context_usage",
    "compute_session_stats",
    "default_session_dir",
    "dumps_js",
    "dumps_line",
    "dumps_tree",
    "encode_cwd",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_by_id",
    "find_most_recent",
    "get_current_system_message",
    "holder_pid",
    "iso_to_ms",
    "js_normalize",
    "list_all_sessions",
    "list_sessions",
    "new_entry_id",
    "now_iso",
    "print_diagnostics",
    "resolve_session_arg",
    "session_file_name",
    "sessions_root",
    "uuid7",
]
