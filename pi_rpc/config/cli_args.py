"""Command-line arguments: ``parse_args(argv) -> CliArgs`` (frozen), and mode resolution.

Follows upstream pi 1.6's flags and quirks (protocol reference §1.1, §5.9, §7.5; internals
§1.1/§1.2): a value flag with nothing after it is ignored; unknown long flags are kept (for
extensions, with their values: ``--name value`` / ``--name=value``); unknown short flags are errors; ``@path`` arguments are file
arguments; everything else is a positional message. ``--`` ends option parsing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pi_rpc.config.listen_flags import (
    DEFAULT_MAX_CONNECTION_BUFFER,
    DEFAULT_MAX_CONNECTIONS,
    LISTEN_FLAGS,
    parse_listen_flag,
)
from pi_rpc.errors import StartupError, echo

VALID_MODES = ("text", "json", "rpc", "acp")  # acp: ours (the Agent Client Protocol)
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
SESSION_STORES = ("jsonl", "sqlite", "postgres")  # --session-store / the sessionStore setting
BUILTIN_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024
DEFAULT_EVENT_BUFFER = 10_000  # events get_events can replay (modes.wire.event_ring)
DEFAULT_MAX_SESSIONS = 64  # sessions one RPC process hosts at once, the first included (open_session)
MAX_SESSIONS_LIMIT = 100_000  # the largest --max-sessions
SESSION_ID_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
MAX_SESSION_ID_LENGTH = 200  # as pi_rpc.session.ids (config is a leaf: not imported)
SESSION_ID_ERROR = (
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
    "and start and end with an alphanumeric character"
)


class CliError(StartupError):
    """A fatal argument error: print ``message`` on stderr and exit with ``exit_code``."""


@dataclass(frozen=True)
class CliArgs:
    """The parsed command line (``parse_args``); unset flags keep their defaults."""

    mode: str | None = None  # "text" | "json" | "rpc" | "acp" | None (unset)
    print: bool = False
    provider: str | None = None
    model: str | None = None  # raw pattern: id, provider/id, fuzzy, optional ":<thinking>"
    models: tuple[str, ...] | None = None
    thinking: str | None = None
    api_key: str | None = None
    system_prompt: str | None = None
    append_system_prompt: tuple[str, ...] = ()
    no_session: bool = False
    session: str | None = None
    session_dir: str | None = None
    session_store: str | None = None  # "jsonl" | "sqlite" | "postgres" | None (the sessionStore setting)
    session_db: str | None = None  # --session-db: the session database (a SQLite path or a PostgreSQL conninfo)
    session_id: str | None = None
    continue_session: bool = False
    resume: bool = False
    fork: str | None = None
    name: str | None = None
    tools: tuple[str, ...] | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    exclude_tools: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    no_extensions: bool = False
    no_mcp: bool = False
    skills: tuple[str, ...] = ()
    no_skills: bool = False
    prompt_templates: tuple[str, ...] = ()
    no_prompt_templates: bool = False
    themes: tuple[str, ...] = ()
    no_themes: bool = False
    no_context_files: bool = False
    approve: bool | None = None  # -a -> True, -na -> False, unset -> None
    offline: bool = False
    faux_script: str | None = None
    max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES
    event_buffer: int = DEFAULT_EVENT_BUFFER
    max_sessions: int = DEFAULT_MAX_SESSIONS  # RPC: hosted sessions, the first included
    tui_mode: str | None = None  # "fullscreen" | "regular" | None (the tuiMode setting)
    # Run limits (print, JSON and RPC defaults) and the client's tools (runtime.run_limits).
    max_turns: int | None = None  # --max-turns
    max_cost: float | None = None  # --max-cost (USD)
    timeout: float | None = None  # --timeout (seconds)
    output_schema: str | None = None  # --output-schema <file.json> (print/JSON mode)
    host_tool_timeout: float | None = None  # --host-tool-timeout (seconds; RPC host tools)
    export: tuple[str, ...] | None = None  # (in,) or (in, out)
    list_models: str | bool | None = None
    verbose: bool = False
    # RPC listeners (config.listen_flags; protocol/README §11 "Listeners")
    listen: tuple[str, ...] = ()
    stdio: bool = False
    listen_token_file: str | None = None
    listen_allow_remote: bool = False
    tls_cert: str | None = None
    tls_key: str | None = None
    allow_origin: tuple[str, ...] = ()
    exit_when_idle: float | None = None
    max_connection_buffer: int = DEFAULT_MAX_CONNECTION_BUFFER
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    version: bool = False
    help: bool = False
    messages: tuple[str, ...] = ()
    file_args: tuple[str, ...] = ()
    unknown_flags: tuple[str, ...] = ()
    # Unknown ``--name[=value]`` flags with their values (``True`` when none), as upstream keeps
    # them for extensions that register flags.
    flag_values: tuple[tuple[str, str | bool], ...] = ()
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def run_limits(self) -> dict[str, float]:
        """The run limits the command line sets, as ``limits`` keys."""
        limits: dict[str, float] = {}
        if self.max_turns is not None:
            limits["maxTurns"] = self.max_turns
        if self.max_cost is not None:
            limits["maxCostUsd"] = self.max_cost
        if self.timeout is not None:
            limits["timeoutMs"] = max(1, round(self.timeout * 1000))
        return limits


# Positive-number flags: flag -> (field, integer?).
_NUMBER_FLAGS: dict[str, tuple[str, bool]] = {
    "--max-turns": ("max_turns", True),
    "--max-cost": ("max_cost", False),
    "--timeout": ("timeout", False),
    "--host-tool-timeout": ("host_tool_timeout", False),
}


def _positive_number(flag: str, raw: str, integer: bool) -> float:
    import math

    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = 0
    if value <= 0 or not math.isfinite(value):
        kind = "a positive integer" if integer else "a positive number"
        raise CliError(f'Error: Invalid {flag} "{raw}": expected {kind}')
    return value


# flag -> (field, kind). kinds: "bool", "str", "append", "csv"
_VALUE_FLAGS: dict[str, tuple[str, str]] = {
    "--provider": ("provider", "str"),
    "--model": ("model", "str"),
    "--api-key": ("api_key", "str"),
    "--system-prompt": ("system_prompt", "str"),
    "--append-system-prompt": ("append_system_prompt", "append"),
    "--session": ("session", "str"),
    "--session-dir": ("session_dir", "str"),
    "--session-db": ("session_db", "str"),
    "--session-id": ("session_id", "str"),
    "--fork": ("fork", "str"),
    "--name": ("name", "str"),
    "-n": ("name", "str"),
    "--models": ("models", "csv"),
    "--tools": ("tools", "csv"),
    "-t": ("tools", "csv"),
    "--exclude-tools": ("exclude_tools", "csv"),
    "-xt": ("exclude_tools", "csv"),
    "--extension": ("extensions", "append"),
    "-e": ("extensions", "append"),
    "--skill": ("skills", "append"),
    "--prompt-template": ("prompt_templates", "append"),
    "--theme": ("themes", "append"),
    "--faux-script": ("faux_script", "str"),
    "--output-schema": ("output_schema", "str"),
}

_BOOL_FLAGS: dict[str, str] = {
    "--print": "print",
    "-p": "print",
    "--continue": "continue_session",
    "-c": "continue_session",
    "--resume": "resume",
    "-r": "resume",
    "--no-session": "no_session",
    "--no-tools": "no_tools",
    "-nt": "no_tools",
    "--no-builtin-tools": "no_builtin_tools",
    "-nbt": "no_builtin_tools",
    "--no-extensions": "no_extensions",
    "-ne": "no_extensions",
    "--no-mcp": "no_mcp",
    "--no-skills": "no_skills",
    "-ns": "no_skills",
    "--no-prompt-templates": "no_prompt_templates",
    "-np": "no_prompt_templates",
    "--no-themes": "no_themes",
    "--no-context-files": "no_context_files",
    "-nc": "no_context_files",
    "--offline": "offline",
    "--verbose": "verbose",
    "--version": "version",
    "-v": "version",
    "--help": "help",
    "-h": "help",
}

# Upstream flags we accept and ignore (interactive-only); they take a value.
_IGNORED_VALUE_FLAGS = frozenset({"--use-theme"})
TUI_MODES = ("regular", "fullscreen")


def _split_csv(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _set_mode(flag: str, value: str, values: dict[str, object], warnings: list[str]) -> None:
    if value not in VALID_MODES:
        raise CliError(f'Invalid mode "{value}". Valid values: {", ".join(VALID_MODES)}')
    values["mode"] = value


def _set_session_store(flag: str, value: str, values: dict[str, object], warnings: list[str]) -> None:
    if value not in SESSION_STORES:
        raise CliError(f'Error: Invalid --session-store "{value}". Valid values: {", ".join(SESSION_STORES)}')
    values["session_store"] = value


def _set_thinking(flag: str, value: str, values: dict[str, object], warnings: list[str]) -> None:
    # (an unknown level is a warning, as upstream's)
    if value in THINKING_LEVELS:
        values["thinking"] = value
    else:
        warnings.append(f'Warning: Invalid thinking level "{value}". Valid values: {", ".join(THINKING_LEVELS)}')


def _set_max_frame_bytes(flag: str, value: str, values: dict[str, object], warnings: list[str]) -> None:
    try:
        limit = int(value)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise CliError(f'Error: Invalid --max-frame-bytes "{value}": expected a positive integer')
    values["max_frame_bytes"] = limit


def _set_event_buffer(flag: str, value: str, values: dict[str, object], warnings: list[str]) -> None:
    count = int(value) if value.isascii() and value.isdigit() else -1
    if count < 0:
        raise CliError(f'Error: Invalid --event-buffer "{value}": expected a non-negative integer')
    values["event_buffer"] = count


def _set_max_sessions(flag: str, value: str, values: dict[str, object], warnings: list[str]) -> None:
    count = int(value) if value.isascii() and value.isdigit() else 0
    if count < 1:
        raise CliError(f'Error: Invalid --max-sessions "{echo(value, 40)}": expected a positive integer')
    if count > MAX_SESSIONS_LIMIT:
        # Not a number JSON clients can hold exactly (get_protocol_info's maxSessions).
        raise CliError(f'Error: Invalid --max-sessions "{echo(value, 40)}": at most {MAX_SESSIONS_LIMIT}')
    values["max_sessions"] = count


def _set_number(flag: str, value: str, values: dict[str, object], warnings: list[str]) -> None:
    name, integer = _NUMBER_FLAGS[flag]
    values[name] = _positive_number(flag, value, integer)


# Flags whose value is checked (a flag given last, without its value, is ignored as upstream).
_CHECKED_VALUE_FLAGS: dict[str, Callable[[str, str, dict[str, object], list[str]], None]] = {
    **dict.fromkeys(_NUMBER_FLAGS, _set_number),
    "--mode": _set_mode,
    "--session-store": _set_session_store,
    "--thinking": _set_thinking,
    "--max-frame-bytes": _set_max_frame_bytes,
    "--event-buffer": _set_event_buffer,
    "--max-sessions": _set_max_sessions,
}


def _set_value(arg: str, value: str, values: dict[str, object], appends: dict[str, list[str]]) -> None:
    """A ``_VALUE_FLAGS`` flag's value: kept, appended, or split at commas."""
    name, kind = _VALUE_FLAGS[arg]
    if kind == "str":
        values[name] = value
    elif kind == "append":
        appends.setdefault(name, []).append(value)
    else:
        values[name] = _split_csv(value)


def _tui_mode(args: Sequence[str], i: int, values: dict[str, object]) -> int:
    # upstream: a missing value or another option is an error; so is an unknown mode
    if i + 1 >= len(args) or args[i + 1].startswith("-"):
        raise CliError("Error: --tui-mode requires regular or fullscreen")
    i += 1
    if args[i] not in TUI_MODES:
        raise CliError(f'Error: Invalid TUI mode "{args[i]}". Valid values: {", ".join(TUI_MODES)}')
    values["tui_mode"] = args[i]
    return i


def _export(args: Sequence[str], i: int, values: dict[str, object]) -> int:
    """``--export <session> [<output>]``."""
    if i + 1 >= len(args):
        return i
    i += 1
    parts = [args[i]]
    if i + 1 < len(args) and not args[i + 1].startswith("-"):
        i += 1
        parts.append(args[i])
    values["export"] = tuple(parts)
    return i


def _list_models(args: Sequence[str], i: int, values: dict[str, object]) -> int:
    """``--list-models [search]``."""
    if i + 1 < len(args) and not args[i + 1].startswith("-") and not args[i + 1].startswith("@"):
        values["list_models"] = args[i + 1]
        return i + 1
    values["list_models"] = True
    return i


def _extension_flag(args: Sequence[str], i: int, unknown: list[str], flag_values: list[tuple[str, str | bool]]) -> int:
    """A long flag pi does not know: upstream's --name=value, or --name value when the next
    argument is not an option or @file; otherwise a boolean. Extensions read them with
    pi.get_flag()."""
    arg = args[i]
    if "=" in arg:
        unknown.append(arg[: arg.index("=")])
        flag_values.append((arg[2 : arg.index("=")], arg[arg.index("=") + 1 :]))
        return i
    unknown.append(arg)
    if i + 1 < len(args) and not args[i + 1].startswith(("-", "@")):
        flag_values.append((arg[2:], args[i + 1]))
        return i + 1
    flag_values.append((arg[2:], True))
    return i


def _check_session_flags(values: dict[str, object]) -> None:
    session_id = values.get("session_id")
    if isinstance(session_id, str) and not SESSION_ID_RE.match(session_id):
        raise CliError(f"Error: {SESSION_ID_ERROR}")
    if isinstance(session_id, str) and len(session_id) > MAX_SESSION_ID_LENGTH:
        # No file name holds it (upstream accepts it and then cannot write the session).
        raise CliError(f"Error: Session id is too long ({len(session_id)} characters, at most {MAX_SESSION_ID_LENGTH})")
    if values.get("fork") is not None and (
        values.get("session") is not None
        or values.get("continue_session")
        or values.get("resume")
        or values.get("no_session")
    ):
        raise CliError("Error: --fork cannot be combined with --session, --continue, --resume, or --no-session")


def parse_args(argv: Sequence[str]) -> CliArgs:
    """Parse ``argv`` (without the program name). Raises ``CliError`` on fatal errors."""
    values: dict[str, object] = {}
    appends: dict[str, list[str]] = {}
    warnings: list[str] = []
    messages: list[str] = []
    file_args: list[str] = []
    unknown: list[str] = []
    flag_values: list[tuple[str, str | bool]] = []
    args = list(argv)
    i = 0
    n = len(args)
    while i < n:
        arg = args[i]
        has_next = i + 1 < n
        if arg == "--":
            messages.extend(args[i + 1 :])
            break
        if arg in _CHECKED_VALUE_FLAGS:
            if has_next:
                i += 1
                _CHECKED_VALUE_FLAGS[arg](arg, args[i], values, warnings)
        elif arg in _BOOL_FLAGS:
            values[_BOOL_FLAGS[arg]] = True
        elif arg in LISTEN_FLAGS:
            i = parse_listen_flag(args, i, values, appends)
        elif arg in ("-a", "--approve", "-na", "--no-approve"):
            values["approve"] = arg in ("-a", "--approve")
        elif arg == "--tui-mode":
            i = _tui_mode(args, i, values)
        elif arg == "--export":
            i = _export(args, i, values)
        elif arg == "--list-models":
            i = _list_models(args, i, values)
        elif arg in _VALUE_FLAGS:
            if has_next:
                i += 1
                _set_value(arg, args[i], values, appends)
        elif arg in _IGNORED_VALUE_FLAGS:
            if has_next:
                i += 1
        elif arg.startswith("@"):
            file_args.append(arg[1:])
        elif arg.startswith("--"):
            i = _extension_flag(args, i, unknown, flag_values)
        elif arg.startswith("-"):
            raise CliError(f"Error: Unknown option: {arg}")
        else:
            messages.append(arg)
        i += 1

    for name, items in appends.items():
        values[name] = tuple(items)
    _check_session_flags(values)
    return CliArgs(
        **values,  # type: ignore[arg-type]
        messages=tuple(messages),
        file_args=tuple(file_args),
        unknown_flags=tuple(unknown),
        flag_values=tuple(flag_values),
        warnings=tuple(warnings),
    )


def resolve_app_mode(args: CliArgs, *, stdin_is_tty: bool, stdout_is_tty: bool) -> str:
    """Upstream 1.x ``resolveAppMode``: ``rpc``, ``json``, then ``print`` when ``-p``,
    ``--mode text``, or stdin/stdout is not a TTY; else ``interactive``."""
    if args.mode == "rpc":
        return "rpc"
    if args.mode == "acp":
        return "acp"
    if args.mode == "json":
        return "json"
    if args.print or args.mode == "text" or not stdin_is_tty or not stdout_is_tty:
        return "print"
    return "interactive"
