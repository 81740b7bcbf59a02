"""The ``pi`` command (console script ``pi = pi_rpc.cli:main``; also ``python -m pi_rpc``).

Startup cost matters (clients spawn pi per session), so this module imports only the
argument parser; each mode imports what it needs when it runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from pi_rpc import COMPATIBLE_PI_VERSION, __version__
from pi_rpc.config.cli_args import CliArgs, CliError, parse_args, resolve_app_mode
from pi_rpc.log import logger

HELP = """\
pi - coding agent (Python implementation of pi: interactive, print, JSON, RPC and ACP modes)

Usage:
  pi [options] [@files...] [messages...]
  pi mcp <add|remove|list|login|logout> [options]   Configure and check MCP servers (pi mcp --help)
  pi auth <login|logout|check|print-api-key|print-bearer-token>   Credentials (pi auth --help)
  pi sessions <import|export> [options]            Move sessions between JSONL files and a database (pi sessions --help)
  pi attach <address> [--session <handle>]         The terminal app on a session a --listen server holds (pi attach --help)
  pi install <source> [-l]                         Install a package (npm:, git:, URL, path, pypi:) and add it to settings
  pi remove <source> [-l]                          Remove a package and its settings entry (alias: uninstall)
  pi update [source|--extensions|--all|--models]   Update packages (pi itself updates with pip)
  pi list                                          List configured packages
  pi config [-l]                                   Show or toggle package resources (pi config --help)

Modes:
  --mode <mode>                  text, json, rpc or acp (Agent Client Protocol, for editors)
  --print, -p                    Non-interactive: process the messages and exit
  --tui-mode <mode>              Terminal UI: fullscreen (default) or regular (the tuiMode setting)

Model:
  --provider <name>              Provider (used together with --model)
  --model <pattern>              Model id, provider/id, optionally :<thinking>
  --models <patterns>            Comma-separated scoped models for cycling
  --thinking <level>             off, minimal, low, medium, high, xhigh, max
  --api-key <key>                API key for the selected model's provider (not saved)

Session:
  --no-session                   In-memory session, nothing written
  --session <path|id>            Open a session file or id (prefix)
  --session-id <id>              Open or create the session with this id
  --session-dir <dir>            Directory for session storage and lookup
  --session-store <jsonl|sqlite|postgres>
                                 Keep sessions in JSONL files (default), one SQLite database
                                 or a PostgreSQL database
  --session-db <path|conninfo>   The SQLite session database (default <agentDir>/sessions.db),
                                 or the PostgreSQL URL/conninfo (default: libpq's PG* settings)
  --continue, -c                 Continue the most recent session
  --fork <path|id>               Copy a session into a new one under the current cwd
  --name, -n <name>              Initial session name

Prompt, tools and resources:
  --system-prompt <text|path>    Replace the system prompt body
  --append-system-prompt <text|path>  Append to the system prompt (repeatable)
  --tools, -t <list>             Tools to enable (read,bash,edit,write,grep,find,ls)
  --no-tools, -nt                Disable built-in tools
  --exclude-tools, -xt <list>    Tools to remove from the active set
  --skill <path>                 Load a skill (repeatable)
  --no-skills, -ns               Disable skill discovery
  --prompt-template <path>       Load a prompt template (repeatable)
  --no-prompt-templates, -np     Disable prompt template discovery
  --no-context-files, -nc        Do not load AGENTS.md / CLAUDE.md
  --extension, -e <path>         Load a Python extension (file or package; repeatable)
  --no-extensions, -ne           Do not discover extensions (explicit -e still load)
  --no-mcp                       Disable MCP servers for this run (no connections, tools or /mcp)

Process:
  --approve, -a                  Trust the project (.pi/settings.json and resources)
  --no-approve, -na              Do not trust the project
  --offline                      No network refreshes (also PI_OFFLINE=1)
  --faux-script <path>           Use the offline scripted (faux) provider
  --list-models [search]         List available models (fuzzy search) and exit
  --export <session> [out.html]  Export a session file to HTML and exit
  --max-frame-bytes <n>          RPC input record size limit (default 67108864)
  --event-buffer <n>             RPC events kept for get_events replay (default 10000)
  --max-sessions <n>             RPC sessions hosted at once, the first included (default 64)
  --max-turns <n>                End a run after n model responses (print, JSON, RPC default)
  --max-cost <usd>               End a run once its cost reaches this many USD
  --timeout <seconds>            Abort a run that takes longer (print exits 3 when a limit ends it)
  --output-schema <file.json>    -p/JSON: the final answer must be JSON valid against this schema
  --host-tool-timeout <seconds>  RPC: how long a client tool call may take (default 600)
  --listen <address>             RPC for clients that come and go: unix:<path>, tcp:<host>:<port>,
                                 ws://<host>:<port>[/path], wss://… (repeatable; stdio only with --stdio;
                                 in the interactive mode: the session on screen is served)
  --listen-token-file <path>     Token for TCP/WebSocket clients (default <agentDir>/listen-token)
  --allow-origin <origin>        A WebSocket Origin that may connect (repeatable)
  --exit-when-idle <seconds>     --listen: exit 0 after that long with no connection and no run
  --max-connections <n>          --listen: connections at once (default 64)
  --max-connection-buffer <b>    --listen: bytes queued for a slow client before it is dropped (16 MiB)
  --listen-allow-remote, --tls-cert <pem>, --tls-key <pem>, --stdio
  --verbose                      Verbose startup
  --help, -h                     Show this help
  --version, -v                  Show the version

{extension_flags}Environment:
  PI_CODING_AGENT_DIR            Agent dir (default ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR    Session dir
  PI_OFFLINE                     1/true/yes: offline
"""


def _help(args: CliArgs) -> str:
    """The help text; flags that the discovered extensions register are listed as upstream
    lists them (the extensions are loaded for that, only when there are any)."""
    from pi_rpc.runtime.factory import extension_flag_help

    lines = extension_flag_help(args)
    block = "Extension CLI Flags:\n" + "\n".join(lines) + "\n\n" if lines else ""
    return HELP.replace("{extension_flags}", block)


def _err(message: str) -> None:
    logger().error(message)


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _run_other_mode(mode: str, args: CliArgs) -> int:
    """interactive, json and print modes (each imported only when it runs)."""
    import importlib
    import importlib.util

    target = {
        "json": ("pi_rpc.modes.json_mode", "run_json_mode"),
        "print": ("pi_rpc.modes.print_mode", "run_print_mode"),
    }
    if mode == "interactive":
        from pi_rpc.modes.interactive.main import run_interactive_mode

        return run_interactive_mode(args)
    module_name, func_name = target[mode]
    if importlib.util.find_spec(module_name) is None:
        _err(f"Error: {'--mode json' if mode == 'json' else 'print mode'} is not implemented yet")
        return 1
    module = importlib.import_module(module_name)
    return int(getattr(module, func_name)(args))


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "mcp":
        # `pi mcp ...` configures and checks MCP servers without a session (upstream's order:
        # before the regular flags are parsed).
        from pi_rpc.mcp.cli import run_mcp_command

        return run_mcp_command(argv[1:])
    if argv and argv[0] == "auth":
        # `pi auth ...`: credentials without a session (upstream's runAuthCommand, also first).
        from pi_rpc.modes.auth_command import run_auth_command

        return run_auth_command(argv[1:])

    if argv and argv[0] in ("install", "remove", "uninstall", "update", "list", "config"):
        # `pi install|remove|list|update|config`: pi packages (upstream's handlePackageCommand,
        # before the regular flags are parsed).
        from pi_rpc.modes.packages_cli import run_package_command

        return run_package_command(argv)

    if argv and argv[0] == "attach":
        # `pi attach <address>`: the interactive mode on a session a `--listen` server holds.
        from pi_rpc.modes.attach.main import run_attach_command

        return run_attach_command(argv[1:])

    if argv and argv[0] == "sessions":
        # `pi sessions import|export ...` moves sessions between JSONL files and a database.
        from pi_rpc.modes.sessions_cli import run_sessions_command

        return run_sessions_command(argv[1:])
    try:
        args = parse_args(argv)
    except CliError as exc:
        _err(exc.message)
        return exc.exit_code

    if args.version:
        # Report the upstream version we are wire-compatible with (clients and adapters gate on
        # it, as Valkey reports redis_version); our own version only with --verbose.
        sys.stdout.write(COMPATIBLE_PI_VERSION + "\n")
        if args.verbose:
            sys.stdout.write(f"pi_rpc {__version__}\n")
        return 0
    if args.help:
        sys.stdout.write(_help(args))
        return 0

    for warning in args.warnings:
        _err(warning)

    if args.export:
        from pi_rpc.modes.commands import export_session

        output = args.export[1] if len(args.export) > 1 else (args.messages[0] if args.messages else None)
        return export_session(args.export[0], output)
    if args.list_models is not None and args.list_models is not False:
        from pi_rpc.modes.commands import list_models

        return list_models(
            args.list_models if isinstance(args.list_models, str) else None,
            faux=bool(args.faux_script) or args.provider == "faux" or str(args.model or "").startswith("faux/"),
        )

    if args.api_key is not None and args.model is None and not args.models:
        _err("--api-key requires a model to be specified via --model, --provider/--model, or --models")
        return 1
    if args.offline:
        os.environ["PI_OFFLINE"] = "1"
    # Markers upstream sets for everything it spawns (tools, bash commands, hooks).
    os.environ["PI_CODING_AGENT"] = "true"
    os.environ["AI_AGENT"] = "pi"

    mode = resolve_app_mode(args, stdin_is_tty=_isatty(0), stdout_is_tty=_isatty(1))
    if args.listen and mode not in ("rpc", "interactive"):
        _err("Error: --listen needs --mode rpc or the interactive mode")
        return 1
    if args.listen and mode == "interactive" and (args.stdio or args.exit_when_idle is not None):
        # (stdin is the terminal's; the process ends when the person quits)
        _err("Error: --stdio and --exit-when-idle go with --mode rpc --listen, not the interactive mode")
        return 1
    if mode == "rpc":
        if args.file_args:
            _err("Error: @file arguments are not supported in RPC mode")
            return 1
        from pi_rpc.modes.rpc.main import run_rpc_mode

        return run_rpc_mode(args)
    if mode == "acp":
        from pi_rpc.modes.acp.main import run_acp_mode

        return run_acp_mode(args)
    return _run_other_mode(mode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
