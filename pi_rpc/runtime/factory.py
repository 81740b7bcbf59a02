"""Build a session runtime from the command line (every mode) or from explicit options (SDK):
settings, the model registry, the session store (``--no-session``, ``--session``,
``--continue``, ``--fork``, ``--session-id``), the initial model and thinking level, and the
resource flags. Fatal startup problems raise ``StartupError`` (``pi_rpc.errors``) with upstream's texts.

``successor_session`` builds the fresh session that replaces one (``runtime.holder``: new,
switch, fork, clone), as upstream's ``createRuntime`` does for ``AgentSessionRuntime``."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pi_rpc.ai.models.registry import ModelRegistry
from pi_rpc.config import paths
from pi_rpc.config.cli_args import CliArgs
from pi_rpc.config.settings import Settings
from pi_rpc.errors import StartupError
from pi_rpc.log import logger
from pi_rpc.runtime.enabled_extensions import configured_packages, discover_extensions
from pi_rpc.runtime.errors import no_models_available_message
from pi_rpc.runtime.options import RuntimeOptions, session_backend, session_fsync_mode
from pi_rpc.runtime.predecessor import Predecessor
from pi_rpc.session.errors import SessionError
from pi_rpc.session.manager import SessionManager, print_diagnostics
from pi_rpc.session.store import SessionBackend

if TYPE_CHECKING:
    from pi_rpc.ai.types import Model
    from pi_rpc.runtime.tool_control import ToolHost

FAUX_MODEL = ("faux", "faux-1")


if TYPE_CHECKING:
    from pi_rpc.runtime.project_trust import StartupTrust


StartupProblem = StartupError
"""The SDK's name for ``pi_rpc.errors.StartupError`` (one type)."""


def _warn(message: str) -> None:
    logger().warning(message)


def _backend(args: CliArgs, cwd: str, agent_dir: Path, settings: Settings) -> SessionBackend:
    backend = session_backend(settings, agent_dir, cwd, cli_store=args.session_store, cli_database=args.session_db)
    database = getattr(backend, "database", None)
    if isinstance(database, str) and not args.no_session:
        # Another application's database (or a directory, a device) is refused before any
        # session is created in it, and before anything in it is changed.
        from pi_rpc.session.sqlite_store import check_database

        try:
            check_database(database)
        except SessionError as exc:
            raise StartupError(str(exc)) from None
    return backend


def _open_session(
    args: CliArgs, cwd: str, agent_dir: Path, settings: Settings, backend: SessionBackend
) -> SessionManager:
    if args.no_session:
        return SessionManager.in_memory(cwd, session_id=args.session_id)
    choice = paths.resolve_session_dir(
        cwd=cwd, agent=agent_dir, cli_session_dir=args.session_dir, settings_session_dir=settings.session_dir
    )
    session_dir = str(choice.path)
    fsync = session_fsync_mode(settings)
    try:
        if args.fork or args.session:
            from pi_rpc.session.session_arg import resolve_session_arg
        if args.fork:
            resolved = resolve_session_arg(
                args.fork,
                cwd=cwd,
                session_dir=session_dir,
                all_sessions_dir=str(paths.sessions_root(agent_dir)),
                custom_dir=choice.custom,
                backend=backend,
            )
            return SessionManager.fork_from(
                resolved.path, cwd, session_dir, session_id=args.session_id, fsync=fsync, backend=backend
            )
        if args.session:
            resolved = resolve_session_arg(
                args.session,
                cwd=cwd,
                session_dir=session_dir,
                all_sessions_dir=str(paths.sessions_root(agent_dir)),
                custom_dir=choice.custom,
                backend=backend,
            )
            # A database session named by a locator but not stored yet is created there as a
            # missing --session file is (upstream): with that id, listed in this session directory.
            manager = SessionManager.open(resolved.path, base_cwd=cwd, fsync=fsync, new_session_dir=session_dir)
            manager.check_cwd_exists(cwd)
            return manager
        if args.continue_session:
            return SessionManager.continue_recent(
                cwd, session_dir, filter_cwd=choice.custom, fsync=fsync, backend=backend
            )
        if args.session_id:
            existing = backend.find_by_id(session_dir, args.session_id, cwd if choice.custom else None)
            if existing:
                return SessionManager.open(existing, base_cwd=cwd, fsync=fsync)
            _warn(f"No session with id {args.session_id}; creating a new session with that id")
            return SessionManager.create(cwd, session_dir, session_id=args.session_id, fsync=fsync, backend=backend)
        return SessionManager.create(cwd, session_dir, fsync=fsync, backend=backend)
    except SessionError as exc:
        raise StartupError(str(exc)) from None


def _custom_session_dir(args: CliArgs, cwd: str, agent_dir: Path, settings: Settings) -> str | None:
    """The configured flat session directory (``--session-dir``, the environment or the
    ``sessionDir`` setting), resolved once from the startup cwd; None for the default layout."""
    choice = paths.resolve_session_dir(
        cwd=cwd, agent=agent_dir, cli_session_dir=args.session_dir, settings_session_dir=settings.session_dir
    )
    return str(choice.path) if choice.custom else None


def _command_line_opts_into_faux(args: CliArgs) -> bool:
    """``--faux-script`` or a model named ``faux/…`` (or ``--provider faux``) turn the offline
    provider on; otherwise only its environment variable or models.json do (see ModelRegistry)."""
    if args.faux_script or args.provider == FAUX_MODEL[0]:
        return True
    return bool(args.model) and str(args.model).startswith(f"{FAUX_MODEL[0]}/")


def _default_model(registry: ModelRegistry, settings: Settings) -> Model | None:
    available = registry.get_available()
    if settings.default_provider and settings.default_model:
        found = registry.find(settings.default_provider, settings.default_model)
        if found is not None and registry.has_auth(found["provider"]):
            return found
    real = [m for m in available if m["provider"] != "faux"]
    if settings.default_provider:
        same = [m for m in real if m["provider"] == settings.default_provider]
        if same:
            return same[0]
    # Upstream's findInitialModel: the first provider of ``defaultModelPerProvider`` (in its
    # order) whose default model is available, else the first available model.
    from pi_rpc.ai.models.catalog import default_model_ids

    for provider, model_id in default_model_ids().items():
        found = next((m for m in real if m["provider"] == provider and m["id"] == model_id), None)
        if found is not None:
            return found
    if real:
        return real[0]
    return registry.find(*FAUX_MODEL)


def _resolve_model(
    args: CliArgs, registry: ModelRegistry, settings: Settings, scoped: list[tuple[Model, str | None]]
) -> tuple[Model | None, str | None]:
    """``--model``; else, with a model scope, the saved default when it is in the scope or the
    scope's first model, with the scope's thinking level (upstream's ``buildSessionOptions``; a
    resumed session's own model still wins, as there); else the default model."""
    if args.model:
        from pi_rpc.runtime.cli_model import resolve_cli_model

        return resolve_cli_model(registry, args.model, args.provider)
    if scoped:
        saved = settings.default_provider, settings.default_model
        chosen = next((entry for entry in scoped if (entry[0]["provider"], entry[0]["id"]) == saved), scoped[0])
        return chosen
    return _default_model(registry, settings), None


def _model_scope(args: CliArgs, registry: ModelRegistry, settings: Settings) -> list[tuple[Model, str | None]]:
    """``--models`` (or ``enabledModels``) over the available models, warnings printed."""
    patterns = args.models or settings.enabled_models or []
    if not patterns:
        return []
    from pi_rpc.ai.models.scope import resolve_model_scope

    found, warnings = resolve_model_scope(list(patterns), cast("list[dict[str, Any]]", registry.get_available()))
    for warning in warnings:
        _warn(f"Warning: {warning}")
    return cast("list[tuple[Model, str | None]]", found)


def build_runtime_options(
    args: CliArgs,
    *,
    cwd: str | None = None,
    stream_fn: Any = None,
    trust: StartupTrust | None = None,
    mcp_servers: list[dict[str, Any]] | None = None,
) -> RuntimeOptions:
    """``trust``: what extensions' ``project_trust`` handlers decided before
    (``pi_rpc.runtime.project_trust.resolve_startup_trust``); their decision stands in for
    ``-a``/``-na`` and the extensions they ran in are reused by the session. ``mcp_servers``:
    MCP servers the mode registers for the session (ACP's ``mcpServers``), listed by
    ``pi.get_mcp_servers()`` before any extension's."""
    cwd = os.path.abspath(cwd or os.getcwd())
    agent_dir = paths.agent_dir()
    approve = args.approve if trust is None or trust.decision is None else trust.decision
    settings = Settings.load(agent_dir=agent_dir, cwd=cwd, approve=approve)
    registry = ModelRegistry(agent_dir, faux=_command_line_opts_into_faux(args))
    for error in registry.errors:
        _warn(f"Warning: {error}")
    if args.faux_script:
        from pi_rpc.ai.providers.faux import load_script, set_faux_script

        try:
            load_script(args.faux_script)  # fail at startup, not at the first prompt
        except ValueError as exc:
            raise StartupError(f"Error: {exc}") from None
        set_faux_script(args.faux_script)

    scoped = _model_scope(args, registry, settings)
    backend = _backend(args, cwd, agent_dir, settings)
    session = _open_session(args, cwd, agent_dir, settings, backend)
    print_diagnostics(session)
    session_cwd = session.cwd if os.path.isdir(session.cwd) else cwd

    extension_sources, mcp_command = discover_extensions(
        args, cwd=session_cwd, cli_base=cwd, agent_dir=agent_dir, settings=settings, mcp_registered=bool(mcp_servers)
    )
    pending = None
    if args.model and extension_sources:
        from pi_rpc.runtime.cli_model import PendingCliModel, settles_now

        if not settles_now(registry, args.model, args.provider):
            # Upstream resolves --model after the extensions registered their providers: the
            # session applies it once they loaded (``runtime.cli_model``).
            pending = PendingCliModel(args.model, args.provider, args.thinking, args.api_key)
    model: Model | None = None
    pattern_level: str | None = None
    if pending is None:
        model, pattern_level = _resolve_model(args, registry, settings, scoped)
        if model is not None and args.api_key:
            registry.set_runtime_api_key(model["provider"], args.api_key)
        if model is not None and args.model and not registry.has_auth(model["provider"]):
            _warn(f"Warning: No API key found for {model['provider']}")
        elif model is None:
            # As upstream: warn and run with no model (get_state shows the placeholder; prompts fail).
            _warn(f"Warning: {no_models_available_message()}")

    from pi_rpc.runtime.cli_model import initial_thinking

    thinking = initial_thinking(settings, model, args.thinking or pattern_level)
    if not extension_sources and args.flag_values:
        # Upstream refuses --flags that no extension registered (exit 1 before the session).
        from pi_rpc.extensions.loader import unknown_options_error

        raise StartupError("Error: " + unknown_options_error([name for name, _value in args.flag_values]))
    allowlist = list(args.tools) if args.tools is not None else None
    modifiers: list[str] = []
    if allowlist and all(entry.startswith(("+", "-")) for entry in allowlist):
        # Only +name/-name entries: not an allowlist, changes to the default selection.
        modifiers, allowlist = allowlist, None
    tool_names: list[str] | None = None
    if allowlist is not None:
        from pi_rpc.config.cli_args import BUILTIN_TOOLS
        from pi_rpc.config.tool_patterns import tool_name_matcher

        # Exact names in their order, then built-ins matched by `*` patterns.
        patterns = tool_name_matcher([entry for entry in allowlist if "*" in entry])
        tool_names = [t for t in allowlist if t in BUILTIN_TOOLS]
        tool_names += [t for t in BUILTIN_TOOLS if t not in tool_names and patterns(t)]
        if not extension_sources:
            # With extensions, the names may be theirs: checked once they are loaded.
            for name in allowlist:
                if name not in BUILTIN_TOOLS and "*" not in name:
                    _warn(f'Warning: Unknown tool "{name}". Valid tools: {", ".join(BUILTIN_TOOLS)}')
    if args.no_builtin_tools:
        tool_names = []
    if args.exclude_tools:
        from pi_rpc.config.tool_patterns import tool_name_matcher
        from pi_rpc.tools import DEFAULT_TOOL_NAMES

        excluded = tool_name_matcher(args.exclude_tools)
        base = tool_names if tool_names is not None else list(DEFAULT_TOOL_NAMES)
        tool_names = [t for t in base if not excluded(t)]

    return RuntimeOptions(
        cwd=session_cwd,
        agent_dir=agent_dir,
        settings=settings,
        registry=registry,
        session=session,
        model=model,
        session_dir=_custom_session_dir(args, cwd, agent_dir, settings),
        session_backend=backend,
        thinking_level=thinking,
        model_explicit=bool(args.model),
        thinking_explicit=bool(args.thinking or pattern_level),
        scoped_models=scoped,
        tool_names=tool_names,
        no_tools=args.no_tools,
        tool_allowlist=allowlist,
        tool_modifiers=modifiers,
        excluded_tools=list(args.exclude_tools),
        system_prompt=args.system_prompt,
        append_system_prompts=list(args.append_system_prompt),
        skill_paths=list(args.skills),
        no_skills=args.no_skills,
        template_paths=list(args.prompt_templates),
        no_templates=args.no_prompt_templates,
        no_context_files=args.no_context_files,
        project_trusted=settings.project_trusted,
        stream_fn=stream_fn,
        extension_sources=extension_sources,
        extension_flag_values=list(args.flag_values),
        mcp_command=mcp_command,
        preloaded_extensions=trust.preloaded if trust is not None else None,
        mcp_servers=list(mcp_servers or []),
        run_limits=args.run_limits(),
        host_tool_timeout_s=args.host_tool_timeout,
        package_resources=configured_packages(args, cwd=session_cwd, agent_dir=agent_dir, settings=settings),
        rediscover=_rediscovery(args, cwd, session_cwd, agent_dir, approve, bool(mcp_servers)),
        pending_model=pending,
    )


def _rediscovery(
    args: CliArgs, cli_base: str, cwd: str, agent_dir: Path, approve: bool | None, mcp_registered: bool
) -> Callable[[], tuple[list[Any], Any]]:
    """A reload's discovery: the settings read again, so a package or extension added to
    ``settings.json`` (or its folders) since startup loads, a removed one no longer does."""

    def rediscover() -> tuple[list[Any], Any]:
        settings = Settings.load(agent_dir=agent_dir, cwd=cwd, approve=approve)
        sources, _mcp_command = discover_extensions(
            args, cwd=cwd, cli_base=cli_base, agent_dir=agent_dir, settings=settings, mcp_registered=mcp_registered
        )
        return sources, configured_packages(args, cwd=cwd, agent_dir=agent_dir, settings=settings)

    return rediscover


def extension_flag_help(args: CliArgs, *, cwd: str | None = None) -> list[str]:
    """``--help``'s ``Extension CLI Flags:`` lines: the flags the discovered extensions
    register (upstream loads them for ``--help``); load failures go to stderr. Without
    extensions nothing is imported."""
    cwd = os.path.abspath(cwd or os.getcwd())
    agent_dir = paths.agent_dir()
    settings = Settings.load(agent_dir=agent_dir, cwd=cwd, approve=args.approve)
    sources, _mcp_command = discover_extensions(args, cwd=cwd, cli_base=cwd, agent_dir=agent_dir, settings=settings)
    from pi_rpc.extensions.builtin import BUILTIN_PREFIX

    user_sources = [source for source in sources if not source.path.startswith(BUILTIN_PREFIX)]
    if not user_sources:
        return []
    import anyio

    from pi_rpc.extensions.loader import help_lines, load_extensions

    result = anyio.run(load_extensions, user_sources)
    for failure in result.failures:
        _warn(failure.message())
    return help_lines(result.extensions)


P = TypeVar("P", bound=Predecessor)


def successor_session(previous: P, store: SessionManager, cwd: str, *, keep_queue_texts: bool = False) -> P:
    """A fresh session (of ``previous``'s class) on ``store``, working in ``cwd``, under
    ``previous``'s holder, so its events reach the same subscribers and its background work
    the same task group.

    Carried over, as upstream's runtime does or as this session did before it was replaced by
    a fresh one (the bytes a client sees do not change): the options (with the new store and
    cwd; extensions load anew, not from the startup's preloaded ones), the model, thinking
    level and model scope (a resumed session's own model and level are restored from its
    file over them, as at startup), the queue modes, the agent's queued messages (a new
    session's were cleared by the holder) and, for a fork, the listed queue texts; the mode's
    tool gate (ACP's permission requests), the client's tool control (host tools) and the
    ``/mcp`` command with its notice channel. Not carried: the agent, the parts, the
    resources (loaded again in ``cwd``) and the extensions (loaded again by the holder)."""
    agent = previous.agent
    options = replace(
        previous.options,
        session=store,
        cwd=cwd,
        model=agent.model,
        thinking_level=agent.thinking_level,
        scoped_models=list(previous.models.scope),
        # The command line's choice applied to the first session only.
        model_explicit=False,
        thinking_explicit=False,
        pending_model=None,
        preloaded_extensions=None,
    )
    fresh = type(previous)(options, previous.holder)
    fresh.agent.steering_mode = agent.steering_mode
    fresh.agent.follow_up_mode = agent.follow_up_mode
    for message in agent.clear_steering_queue():
        fresh.agent.steer(message)
    for message in agent.clear_follow_up_queue():
        fresh.agent.follow_up(message)
    if keep_queue_texts:
        fresh.queue.restore(previous.queue.snapshot())
    if previous.mcp_command is not None:
        fresh.mcp_command = previous.mcp_command
    fresh.set_tool_gate(previous.tool_gate)
    if previous.tool_control is not None:
        fresh.tool_control = previous.tool_control.moved_to(cast("ToolHost", fresh))
        fresh.tool_control.take_effect()
    return fresh
