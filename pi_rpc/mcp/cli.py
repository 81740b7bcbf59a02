"""``pi mcp``: add, remove and check MCP servers and sign in to them without a session
(upstream's ``pi mcp`` with its options, output and exit codes).

- ``add <server> [options] -- <command> [args...]`` / ``add <server> [options] --url <url>``
  writes ``<agentDir>/mcp.json`` (or ``.pi/mcp.json`` with ``-l``) and does not connect.
- ``remove <server> [-l]``; stored OAuth credentials are kept.
- ``list [--json]`` connects to every enabled server; exit 1 when an entry is invalid or an
  enabled server is not connected.
- ``login <server> [-l] [--timeout <s>]`` runs the browser sign-in; ``logout`` deletes the
  stored credentials.

An unknown subcommand or option prints an error and exits 1 without changing anything.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from pi_rpc.config import paths
from pi_rpc.mcp.config import (
    ServerEntry,
    add_server_config,
    global_config_path,
    load_mcp_config,
    project_config_path,
    remove_server_config,
    validate_server_config,
)
from pi_rpc.mcp.naming import server_exposure, tool_exposure

APP = "pi"
HELP = f"""Usage:
  {APP} mcp add <server> [options] -- <command> [args...]
  {APP} mcp add <server> [options] --url <url>
  {APP} mcp remove <server> [-l]
  {APP} mcp list [--json]
  {APP} mcp login <server> [-l] [--timeout <seconds>]
  {APP} mcp logout <server> [-l]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)
  login <server>          Sign in through the browser
  logout <server>         Delete the stored OAuth credentials

Options for add, remove, login, and logout:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${{NAME}}"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${{NAME}} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     Time limit for the whole sign-in (default: 300)"""
HELP_HINT = f'Use "{APP} mcp --help" for usage.'
DEFAULT_LOGIN_TIMEOUT_S = 300
OPTION_ALIASES = {"-l": "--local"}

Log = Callable[[str], None]


class _Parsed:
    def __init__(self) -> None:
        self.positional: list[str] = []
        self.values: dict[str, Any] = {}
        self.lists: dict[str, list[str]] = {}


def _parse(args: list[str], known: dict[str, str], error: Log, max_positionals: int = 1 << 30) -> _Parsed | None:
    parsed = _Parsed()
    index = 0
    while index < len(args):
        typed = args[index]
        arg = OPTION_ALIASES.get(typed, typed)
        if arg == "--" or len(parsed.positional) >= max_positionals:
            parsed.positional.extend(args[index + 1 if arg == "--" else index :])
            break
        if not arg.startswith("--"):
            parsed.positional.append(arg)
            index += 1
            continue
        name = arg[2:]
        kind = known.get(name)
        if kind is None:
            error(f"Unknown option {typed}.\n{HELP_HINT}")
            return None
        if kind == "flag":
            parsed.values[name] = True
            index += 1
            continue
        if index + 1 >= len(args):
            error(f"{arg} needs a value.")
            return None
        value = args[index + 1]
        if kind == "list":
            parsed.lists.setdefault(name, []).append(value)
        else:
            parsed.values[name] = value
        index += 2
    return parsed


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i]
        for j in range(1, len(b) + 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1])))
        previous = current
    return previous[len(b)]


def _pairs(option: str, pairs: list[str] | None, error: Log) -> dict[str, str] | None:
    record: dict[str, str] = {}
    for pair in pairs or []:
        separator = pair.find("=")
        if separator <= 0:
            error(f'--{option} expects KEY=VALUE, got "{pair}".')
            return None
        record[pair[:separator]] = pair[separator + 1 :]
    return record


def _project_trusted(agent_dir: str, cwd: str) -> bool:
    from pi_rpc.config.settings import saved_trust_decision

    return saved_trust_decision(Path(agent_dir), cwd) is True


def _describe_transport(entry: ServerEntry) -> str:
    config = entry.config
    return str(config["url"]) if "url" in config else " ".join([config["command"], *(config.get("args") or [])])


def run_mcp_command(
    args: list[str],
    *,
    cwd: str | None = None,
    agent_dir: str | None = None,
    log: Log | None = None,
    error: Log | None = None,
    open_url: Callable[[str], None] | None = None,
) -> int:
    """Run ``pi mcp <args>``; returns the exit code."""
    cwd = cwd or os.getcwd()
    agent_dir = agent_dir or str(paths.agent_dir())
    out: Log = log or (lambda line: print(line, flush=True))
    err: Log = error or (lambda line: print(line, file=sys.stderr, flush=True))
    command, rest = (args[0], args[1:]) if args else (None, [])
    if command is None or command == "help" or "--help" in args or "-h" in args:
        out(HELP)
        return 0
    if command == "add":
        return _add(rest, cwd, agent_dir, out, err)
    if command == "remove":
        return _remove(rest, cwd, agent_dir, out, err)
    if command not in ("list", "login", "logout"):
        err(f'Unknown mcp command "{command}".\n{HELP_HINT}')
        return 1
    trusted = _project_trusted(agent_dir, cwd)
    loaded = load_mcp_config(agent_dir, cwd, trusted)
    project_file = project_config_path(cwd)
    untrusted_note = (
        f"{project_file} is ignored because the project is not trusted. Start {APP} in the project to trust it."
        if not trusted and os.path.exists(project_file)
        else None
    )
    if command == "list":
        parsed = _parse(rest, {"json": "flag"}, err)
        if parsed is None:
            return 1
        if parsed.positional:
            err(f"Usage: {APP} mcp list [--json]\n{HELP_HINT}")
            return 1
        return anyio.run(_list, loaded, bool(parsed.values.get("json")), untrusted_note, cwd, agent_dir, out)
    known = {"local": "flag", "timeout": "value"} if command == "login" else {"local": "flag"}
    parsed = _parse(rest, known, err)
    if parsed is None:
        return 1
    if len(parsed.positional) != 1:
        err(f"Usage: {APP} mcp {command} <server> [-l]\n{HELP_HINT}")
        return 1
    name = parsed.positional[0]
    entry = next((s for s in loaded.servers if s.name == name), None)
    if entry is None:
        names = [s.name for s in loaded.servers]
        suggestion = next((c for c in names if _edit_distance(c, name) <= 2), None)
        err(
            f'No MCP server named "{name}".'
            + (f' Did you mean "{suggestion}"?' if suggestion else "")
            + (f" {untrusted_note}" if untrusted_note else "")
            + f" Configured: {', '.join(names) or 'none'}."
        )
        return 1
    if parsed.values.get("local") and entry.scope != "project":
        err(f'MCP server "{name}" is defined in {entry.source}, not in the project; omit --local.')
        return 1
    auth = entry.config.get("auth") if entry.is_http else None
    if isinstance(auth, dict) and auth.get("provider"):
        err(
            f'MCP server "{name}" uses the credentials of provider "{auth["provider"]}". Run "{APP} auth {command} {auth["provider"]}".'
        )
        return 1
    from pi_rpc.mcp.connection import uses_oauth

    if not uses_oauth(entry):
        err(f'MCP server "{name}" does not use OAuth. Only HTTP servers without an Authorization header do.')
        return 1
    from pi_rpc.mcp.oauth import CredentialStore

    store = CredentialStore(os.path.join(agent_dir, "mcp-auth.json"))
    url = str(entry.config["url"])
    if command == "logout":
        removed = store.remove(name, url)
        out(f'Signed out of MCP server "{name}".' if removed else f'No stored credentials for MCP server "{name}".')
        return 0
    raw_timeout = parsed.values.get("timeout", DEFAULT_LOGIN_TIMEOUT_S)
    try:
        timeout = float(raw_timeout)
    except (TypeError, ValueError):
        timeout = float("nan")
    if not (timeout > 0 and timeout != float("inf")):
        err("--timeout must be a positive number of seconds.")
        return 1
    from pi_rpc.mcp.oauth import login

    return anyio.run(lambda: login(entry, cwd, agent_dir, store, timeout, out, err, open_url))


def _http_config(url: str, values: dict[str, Any], lists: dict[str, Any], err: Log) -> dict[str, Any] | None:
    """An HTTP server's config from ``mcp add`` options (None: a bad --header, said on ``err``)."""
    headers = _pairs("header", lists.get("header"), err)
    if headers is None:
        return None
    if "bearer-token-env-var" in values:
        headers["Authorization"] = "Bearer ${" + values["bearer-token-env-var"] + "}"
    oauth: dict[str, object] = {}
    for option, key in (
        ("oauth-client-id", "clientId"),
        ("oauth-client-secret", "clientSecret"),
        ("oauth-callback-port", "callbackPort"),
        ("oauth-client-name", "clientName"),
        ("oauth-client-registration", "clientRegistration"),
    ):
        if option in values:
            oauth[key] = _js_number(values[option]) if option == "oauth-callback-port" else values[option]
    config: dict[str, object] = {"url": url}
    if headers:
        config["headers"] = headers
    if oauth:
        config["oauth"] = oauth
    return config


def _stdio_config(command: list[str], values: dict[str, Any], lists: dict[str, Any], err: Log) -> dict[str, Any] | None:
    """A stdio server's config from ``mcp add`` options (None: a bad --env, said on ``err``)."""
    env = _pairs("env", lists.get("env"), err)
    if env is None:
        return None
    config: dict[str, object] = {"command": command[0]}
    if command[1:]:
        config["args"] = command[1:]
    if env:
        config["env"] = env
    if "cwd" in values:
        config["cwd"] = values["cwd"]
    return config


def _add(args: list[str], cwd: str, agent_dir: str, out: Log, err: Log) -> int:
    usage = f"Usage: {APP} mcp add <server> [options] (--url <url> | -- <command> [args...])\n{HELP_HINT}"
    known = {
        "local": "flag",
        "url": "value",
        "env": "list",
        "cwd": "value",
        "header": "list",
        "bearer-token-env-var": "value",
        "oauth-client-id": "value",
        "oauth-client-secret": "value",
        "oauth-callback-port": "value",
        "oauth-client-name": "value",
        "oauth-client-registration": "value",
        "exposure": "value",
        "description": "value",
    }
    parsed = _parse(args, known, err, 2)
    if parsed is None:
        return 1
    name, command = (parsed.positional[0], parsed.positional[1:]) if parsed.positional else ("", [])
    url = parsed.values.get("url")
    if not name or (url is None) == (len(command) == 0):
        err(usage)
        return 1
    values, lists = parsed.values, parsed.lists
    http_only = [
        "header",
        "bearer-token-env-var",
        "oauth-client-id",
        "oauth-client-secret",
        "oauth-callback-port",
        "oauth-client-name",
        "oauth-client-registration",
    ]
    stdio_only = ["env", "cwd"]
    misplaced = next((o for o in (http_only if url is None else stdio_only) if o in values or o in lists), None)
    if misplaced is not None:
        where = "HTTP servers (--url)" if url is None else "stdio servers"
        err(f"--{misplaced} only applies to {where}.")
        return 1
    config = _http_config(url, values, lists, err) if url is not None else _stdio_config(command, values, lists, err)
    if config is None:
        return 1
    if "exposure" in values:
        config["exposure"] = values["exposure"]
    if "description" in values:
        config["description"] = values["description"]
    validated = validate_server_config(name, config)
    if isinstance(validated, str):
        err(validated)
        return 1
    project = bool(values.get("local"))
    path = project_config_path(cwd) if project else global_config_path(agent_dir)
    scope = "project" if project else "global"
    try:
        replaced = add_server_config(path, name, validated)
    except (OSError, ValueError) as exc:
        err(f"Could not update {path}: {exc}")
        return 1
    out(f'{"Replaced" if replaced else "Added"} {scope} MCP server "{name}" in {path}.')
    if project and not _project_trusted(agent_dir, cwd):
        out(f"The project is not trusted, so {path} is ignored until you start {APP} in the project and trust it.")
    may_sign_in = "url" in validated and not any(h.lower() == "authorization" for h in (validated.get("headers") or {}))
    out(f"Check it with: {APP} mcp list" + (f". If it requires sign-in: {APP} mcp login {name}" if may_sign_in else ""))
    return 0


def _js_number(value: str) -> object:
    """``Number(value)`` for a port: integral text becomes an int; anything else stays as it
    would in JS (a float, or NaN as the text), so validation reports it."""
    try:
        number = float(value)
    except ValueError:
        return value
    return int(number) if number.is_integer() else number


def _remove(args: list[str], cwd: str, agent_dir: str, out: Log, err: Log) -> int:
    parsed = _parse(args, {"local": "flag"}, err)
    if parsed is None:
        return 1
    if len(parsed.positional) != 1:
        err(f"Usage: {APP} mcp remove <server> [-l]\n{HELP_HINT}")
        return 1
    name = parsed.positional[0]
    project = bool(parsed.values.get("local"))
    path = project_config_path(cwd) if project else global_config_path(agent_dir)
    scope = "project" if project else "global"
    try:
        removed = remove_server_config(path, name)
    except (OSError, ValueError) as exc:
        err(f"Could not update {path}: {exc}")
        return 1
    if removed:
        out(f'Removed {scope} MCP server "{name}" from {path}.')
        return 0
    other = next(
        (s for s in load_mcp_config(agent_dir, cwd, True).servers if s.name == name and s.scope != scope), None
    )
    hint = ""
    if other is not None:
        hint = f" It is defined in {other.source}" + (
            "; use --local." if other.scope == "project" else "; omit --local."
        )
    err(f'No {scope} MCP server named "{name}" in {path}.{hint}')
    return 1


def _server_report(entry: ServerEntry) -> dict[str, object]:
    """A configured server's ``mcp list`` entry before it is checked (keys in output order)."""
    auth = entry.config.get("auth") if entry.is_http else None
    report: dict[str, object] = {"name": entry.name, "scope": entry.scope or "global", "source": entry.source}
    if entry.override:
        report["override"] = entry.override
    report.update(
        {"enabled": entry.enabled, "exposure": server_exposure(entry.config), "transport": _describe_transport(entry)}
    )
    if isinstance(auth, dict) and auth.get("provider"):
        report["authProvider"] = auth["provider"]
    report.update({"state": "disabled", "tools": []})
    return report


async def _check_server(connection: Any, entry: ServerEntry, report: dict[str, Any]) -> None:
    """Connect, record the state, tools (and per-tool exposures that differ), then close."""
    try:
        await connection.get_session()
    except Exception:  # noqa: BLE001 - the connection records state and error
        pass
    report["state"] = connection.state
    report["tools"] = [t.get("name") for t in connection.tools]
    overrides = {
        t.get("name"): tool_exposure(entry.config, str(t.get("name")))
        for t in connection.tools
        if tool_exposure(entry.config, str(t.get("name"))) != report["exposure"]
    }
    if overrides:
        report["toolExposure"] = overrides
    if connection.has_resources:
        report["resources"] = True
    if connection.state != "connected" and connection.error:
        report["error"] = connection.error
    await connection.close()


async def _list(loaded: Any, as_json: bool, untrusted_note: str | None, cwd: str, agent_dir: str, out: Log) -> int:
    from pi_rpc.mcp.connection import McpConnection
    from pi_rpc.mcp.log import ServerLog
    from pi_rpc.mcp.oauth import CredentialStore, OAuthSupport

    log = ServerLog(os.path.join(agent_dir, "mcp.log"))
    oauth = OAuthSupport(CredentialStore(os.path.join(agent_dir, "mcp-auth.json")))
    reports: list[dict[str, Any]] = []

    async def check(entry: ServerEntry, report: dict[str, Any], host: Any) -> None:
        connection = McpConnection(entry, cwd, host, log=log, oauth=oauth, provider_token=_provider_token(agent_dir))
        await _check_server(connection, entry, report)

    async with anyio.create_task_group() as tg:
        async with anyio.create_task_group() as checks:
            for entry in loaded.servers:
                report = _server_report(entry)
                reports.append(report)
                if entry.enabled:
                    checks.start_soon(check, entry, report, tg)
        tg.cancel_scope.cancel()
    failed = bool(loaded.errors) or any(r["enabled"] and r["state"] != "connected" for r in reports)
    if as_json:
        payload: dict[str, object] = {"servers": reports, "errors": loaded.errors}
        if untrusted_note:
            payload["note"] = untrusted_note
        out(json.dumps(payload, indent=2, ensure_ascii=False))
        return 1 if failed else 0
    if not reports and not loaded.errors:
        from pi_rpc.mcp.command import not_configured

        out(not_configured(agent_dir))
    for r in reports:
        count = len(r["tools"])
        state = (
            f"connected, {count} tool{'' if count == 1 else 's'}"
            if r["state"] == "connected"
            else "needs sign-in"
            if r["state"] == "needs-auth"
            else r["state"]
        )
        out(f"{r['name']}: {state} ({r['exposure']}, {r['scope']})")
        out(f"  {r['transport']}")
        if r.get("override"):
            out(f"  project override: {r['override']}")
        if r["state"] == "needs-auth":
            out(
                f"  sign in with: /login {r['authProvider']} in {APP}"
                if r.get("authProvider")
                else f"  sign in with: {APP} mcp login {r['name']}"
            )
        if r["tools"]:
            names = [f"{t} [{r['toolExposure'][t]}]" if t in r.get("toolExposure", {}) else str(t) for t in r["tools"]]
            out(f"  tools: {', '.join(names)}")
        if r.get("resources"):
            out("  offers resources")
        if r.get("error"):
            out("  " + r["error"].replace("\n", "\n  "))
    for problem in loaded.errors:
        out(f"config error: {problem}")
    if untrusted_note:
        out(untrusted_note)
    return 1 if failed else 0


def _provider_token(agent_dir: str) -> Callable[[str], str | None]:
    """Credentials of a ``/login`` provider for servers with ``auth.provider``."""
    registry: list[Any] = []

    def token(provider: str) -> str | None:
        if not registry:
            from pi_rpc.ai.models.registry import ModelRegistry

            registry.append(ModelRegistry(Path(agent_dir)))
        try:
            return registry[0].get_api_key(provider)
        except Exception:  # noqa: BLE001 - the server's 401 then reports the missing sign-in
            return None

    return token
