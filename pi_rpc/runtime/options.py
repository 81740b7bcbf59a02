"""``RuntimeOptions``: everything a session runtime is built from, already resolved (paths,
settings, model registry, store, initial model and thinking level, resource flags). The
factory builds it from the command line; SDK users may build it directly. Also how the
``sessionFsync`` setting reads (the factory and ``switch_session`` open stores with it) and
which session backend ``--session-store``/``--session-db`` and the ``sessionStore``/
``sessionDatabase`` settings select."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.config.cli_args import SESSION_STORES
from pi_rpc.config.settings import Settings
from pi_rpc.log import logger
from pi_rpc.session.jsonl_store import JSONL_BACKEND
from pi_rpc.session.manager import SessionManager
from pi_rpc.session.store import FsyncMode, SessionBackend

DEFAULT_SESSION_DATABASE = "sessions.db"  # under the agent dir


def session_fsync_mode(settings: Settings) -> FsyncMode:
    """``sessionFsync`` setting: "none" (default, upstream's cost), "entry" (fsync every
    appended entry) or "turn" (fsync at the end of every turn)."""
    mode = settings.get("sessionFsync", "none")
    if mode not in ("none", "entry", "turn"):
        logger().warning(
            f'Warning: invalid sessionFsync "{mode}" in settings (expected none, entry or turn); using "none"'
        )
        return "none"
    return cast(FsyncMode, str(mode))  # one of the three, checked above


def session_backend(
    settings: Settings,
    agent_dir: Path,
    cwd: str,
    *,
    cli_store: str | None = None,
    cli_database: str | None = None,
) -> SessionBackend:
    """Where new sessions are kept: ``--session-store`` over the ``sessionStore`` setting
    ("jsonl", the default, "sqlite" or "postgres"); for SQLite the database ``--session-db``
    over the ``sessionDatabase`` setting over ``<agentDir>/sessions.db`` (``~`` expanded,
    relative paths from the cwd); for PostgreSQL ``--session-db`` over ``sessionDatabase``
    as a conninfo (URL or ``key=value``), else libpq's environment alone (``PGHOST``,
    ``PGSERVICE``, ...). ``--session-dir`` never moves the database."""
    store = cli_store
    if store is None:
        configured = settings.session_store
        if configured is not None and configured not in SESSION_STORES:
            logger().warning(
                f"Warning: invalid sessionStore {configured!r} in settings (expected jsonl, sqlite or postgres);"
                " using jsonl"
            )
            configured = None
        store = configured or "jsonl"
    if store == "postgres":
        return _postgres_backend(cli_database or settings.session_database or "")
    if store != "sqlite":
        return JSONL_BACKEND
    from pi_rpc.session.backends import sqlite_backend

    database = cli_database or settings.session_database
    if database:
        path = os.path.expanduser(database)
        if not os.path.isabs(path):
            path = os.path.join(cwd, path)
    else:
        path = os.path.join(str(agent_dir), DEFAULT_SESSION_DATABASE)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    except OSError:
        pass  # reported as a session write fault when the first entry is written
    return sqlite_backend(path)


def _postgres_backend(conninfo: str) -> SessionBackend:
    """The PostgreSQL backend of ``conninfo`` (empty: libpq's environment and defaults)."""
    from pi_rpc.session.errors import SessionError

    try:
        import psycopg  # noqa: F401  (the pi-rpc[postgres] extra)
    except ImportError:
        raise SessionError("sessionStore postgres needs psycopg 3: pip install 'pi-rpc[postgres]'") from None
    from pi_rpc.session.backends import postgres_backend

    try:
        return postgres_backend(conninfo)
    except ValueError as exc:
        raise SessionError(f"--session-db: {exc}") from None


if TYPE_CHECKING:
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.ai.types import Model


@dataclass
class RuntimeOptions:
    """Everything ``AgentSession`` is built from, resolved once at startup (``runtime.factory``)."""

    cwd: str
    agent_dir: Path
    settings: Settings
    registry: ModelRegistry
    session: SessionManager
    model: Model | None
    # The flat session directory configured by --session-dir, $PI_CODING_AGENT_SESSION_DIR or
    # the sessionDir setting (absolute); None: <agentDir>/sessions/--<cwd>--, one per cwd.
    session_dir: str | None = None
    # Where new sessions, listings and id lookups go (``session_backend``); None: the JSONL files.
    session_backend: SessionBackend | None = None
    thinking_level: str = "off"
    model_explicit: bool = False  # --model given: a restored session does not override it
    thinking_explicit: bool = False
    # ``--models`` scope: each model with the thinking level its pattern named (None: inherit).
    scoped_models: list[tuple[Model, str | None]] = field(default_factory=list)
    tool_names: list[str] | None = None  # None -> settings defaultTools / upstream defaults
    no_tools: bool = False
    # ``--tools`` as given (built-in and extension tool names) and ``--exclude-tools``: they
    # filter extension tools too.
    tool_allowlist: list[str] | None = None
    # --tools of only +name/-name entries: changes to the default selection, not an allowlist
    tool_modifiers: list[str] = field(default_factory=list)
    excluded_tools: list[str] = field(default_factory=list)
    system_prompt: str | None = None
    append_system_prompts: list[str] = field(default_factory=list)
    skill_paths: list[str] = field(default_factory=list)
    no_skills: bool = False
    template_paths: list[str] = field(default_factory=list)
    no_templates: bool = False
    no_context_files: bool = False
    project_trusted: bool = False
    stream_fn: Any = None  # override of pi_rpc.ai.stream.stream (tests)
    # Extensions to load (pi_rpc.extensions.discovery.ExtensionSource); empty: none, at no cost.
    extension_sources: list[Any] = field(default_factory=list)
    # ``--name[=value]`` flags from the command line, for flags extensions register.
    extension_flag_values: list[tuple[str, str | bool]] = field(default_factory=list)
    # No extension runtime, but builtin:mcp is enabled: the session itself lists ``mcp`` in
    # get_commands and answers ``/mcp`` as upstream does without an mcp.json.
    mcp_command: bool = False
    # Extensions project_trust already loaded at startup (pi_rpc.extensions.loader.LoadResult):
    # the session loads only the others, into the same runtime.
    preloaded_extensions: Any = None
    # read/edit/write text through this TextFileAccess (ACP: the editor's buffers); None = disk
    file_access: object = None
    # bash runs its commands through this BashRunner (ACP: the editor's terminals); None = locally
    bash_runner: object = None
    # MCP servers the running mode registers for this session (ACP: the client's mcpServers),
    # as ``pi.get_mcp_servers()`` lists them: ``{"name", "config" (an mcp.json entry),
    # "extensionPath" (who registered it)}``. A server mcp.json defines takes precedence.
    mcp_servers: list[dict[str, object]] = field(default_factory=list)
    # Default run limits (``run_limits``: camelCase keys) from --max-turns/--max-cost/--timeout;
    # a prompt's own limits override them key by key.
    run_limits: dict[str, float] = field(default_factory=dict)
    # How long a host tool call may wait for the client's answer (--host-tool-timeout);
    # None: the RPC mode's default.
    host_tool_timeout_s: float | None = None
    # The configured and ``-e`` packages' resources (pi_rpc.packages.PackageResources): their
    # skills, prompt templates and themes load with the session's own; None: no packages.
    package_resources: Any = None
    # What a reload (``ctx.reload()``) finds again from the files as they are now: the
    # extension sources and the package resources (``runtime.factory``); None: the startup ones.
    rediscover: Callable[[], tuple[list[object], object]] | None = None
    # ``--model`` left to resolve once the extensions registered their providers
    # (``runtime.cli_model.PendingCliModel``); None: ``model`` is final.
    pending_model: Any = None
