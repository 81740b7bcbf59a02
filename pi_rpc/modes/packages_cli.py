"""``pi install|remove|uninstall|list|update|config``: upstream pi 1.6's package commands
(``package-manager-cli.js``), with its options, messages and exit codes.

- ``install <source> [-l]``, ``remove|uninstall <source> [-l]``: install or remove a package
  and its ``packages`` entry in ``settings.json`` (``-l``: the project's ``.pi/settings.json``,
  refused for an untrusted project).
- ``list``: the configured packages by scope with their install paths.
- ``update``: no target means pi itself, which pip installs here: the command says how to update
  it and exits 1, as upstream does when it cannot update itself. ``--extensions`` updates every
  package, ``<source>``/``--extension <source>`` one, ``--all`` both (the packages, then the
  self-update message), ``--models`` has nothing to refresh (the model catalogue is built in).
- ``config [-l]``: on a terminal, a Textual screen like upstream's TUI
  (:mod:`pi_rpc.modes.packages_config_ui`: Space toggles a resource, Tab switches between
  global and project settings); otherwise the package resources and whether they load.
  ``--enable PATH``/``--disable PATH`` toggles one without a screen; with ``-l`` they set the
  project's load/unload override and ``--inherit PATH`` removes it (upstream's three project
  states, ``pi_rpc.packages.project_override``). Both write the entries upstream's TUI writes.

npm, git and pip output passes through to the terminal. ``-a``/``--approve`` and
``-na``/``--no-approve`` decide project trust for one command.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_rpc.packages.manager import PackageError, offline

COMMANDS = ("install", "remove", "uninstall", "update", "list", "config")

_USAGE = {
    "install": "pi install <source> [-l] [--approve|--no-approve]",
    "remove": "pi remove <source> [-l] [--approve|--no-approve]",
    "update": "pi update [source|self|pi] [--self|--extensions|--models|--all] [--extension <source>] [--approve|--no-approve] [--force]",
    "list": "pi list [--approve|--no-approve]",
    "config": "pi config [-l] [--approve|--no-approve] [--enable <path>|--disable <path>|--inherit <path>]",
}

_HELP = {
    "install": """Install a package and add it to settings.

Options:
  -l, --local       Install project-locally (.pi/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command

Examples:
  pi install npm:@foo/bar
  pi install git:github.com/user/repo
  pi install git:git@github.com:user/repo
  pi install https://github.com/user/repo
  pi install ssh://git@github.com/user/repo
  pi install ./local/path
  pi install pypi:pi-hello           (pi_rpc: a Python distribution)
""",
    "remove": """Remove a package and its source from settings.
Alias: pi uninstall <source> [-l]

Options:
  -l, --local       Remove from project settings (.pi/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command

Examples:
  pi remove npm:@foo/bar
  pi uninstall npm:@foo/bar
""",
    "update": """Update pi, installed packages, or model catalogs.

Options:
  --self                  Update pi only (default when no target is given)
  --extensions            Update installed packages only
  --models                Refresh model catalogs only
  --all                   Update pi and installed packages
  --extension <source>    Update one package only
  -a, --approve           Trust project-local files for this command
  -na, --no-approve       Ignore project-local files for this command
  --force                 Reinstall pi even if the current version is latest

Short forms:
  pi update                Update pi only
  pi update --all          Update pi and all extensions
  pi update --models       Refresh model catalogs only
  pi update <source>       Update one package
  pi update pi             Update pi only (self works as alias to pi)
""",
    "list": """List installed packages from user and project settings.

Options:
  -a, --approve      Trust project-local files for this command
  -na, --no-approve  Ignore project-local files for this command
""",
    "config": """Enable or disable package resources (a screen on a terminal; Tab switches scope).
Without a terminal, lists them; --enable/--disable toggle one.
Without -l, changes global settings (~/.pi/agent/settings.json).

Options:
  -l, --local         Edit project overrides (.pi/settings.json)
  --enable <path>     Load this resource (a path as listed); with -l: project load
  --disable <path>    Do not load this resource; with -l: project unload
  --inherit <path>    With -l: drop the project's override (the global setting applies)
  -a, --approve       Trust project-local files for this command with -l
  -na, --no-approve   Ignore project-local files for this command with -l
""",
}


@dataclass
class _Parsed:
    command: str
    source: str | None = None
    local: bool = False
    force: bool = False
    approve: bool | None = None
    help: bool = False
    invalid_option: str | None = None
    invalid_argument: str | None = None
    missing_value: str | None = None
    conflict: str | None = None
    target: tuple[str, str | None] | None = None  # (self|extensions|all|models, source)
    extensions_skipped_note: bool = False
    toggle: tuple[str, str] | None = None  # ("enable"|"disable"|"inherit", path)


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _parse(argv: Sequence[str]) -> _Parsed:
    raw, rest = argv[0], list(argv[1:])
    parsed = _Parsed("remove" if raw == "uninstall" else raw)
    command = parsed.command
    flags = {"self": False, "extensions": False, "models": False, "all": False}
    extension_source: str | None = None
    index = 0
    while index < len(rest):
        arg = rest[index]
        index += 1
        if arg in ("-h", "--help"):
            parsed.help = True
        elif arg in ("-l", "--local"):
            if command in ("install", "remove", "config"):
                parsed.local = True
            else:
                parsed.invalid_option = parsed.invalid_option or arg
        elif arg in ("--self", "--extensions", "--models", "--all"):
            if command == "update":
                flags[arg[2:]] = True
            else:
                parsed.invalid_option = parsed.invalid_option or arg
        elif arg in ("--approve", "-a"):
            parsed.approve = True
        elif arg in ("--no-approve", "-na"):
            parsed.approve = False
        elif arg == "--force":
            if command == "update":
                parsed.force = True
            else:
                parsed.invalid_option = parsed.invalid_option or arg
        elif arg == "--extension" and command == "update":
            value = rest[index] if index < len(rest) else None
            if not value or value.startswith("-"):
                parsed.missing_value = parsed.missing_value or arg
            elif extension_source is not None:
                parsed.conflict = parsed.conflict or "--extension can only be provided once"
                index += 1
            else:
                extension_source = value
                index += 1
        elif arg in ("--enable", "--disable", "--inherit") and command == "config":
            value = rest[index] if index < len(rest) else None
            if not value:
                parsed.missing_value = parsed.missing_value or arg
            else:
                parsed.toggle = (arg[2:], value)
                index += 1
        elif arg.startswith("-"):
            parsed.invalid_option = parsed.invalid_option or arg
        elif parsed.source is None and command != "config":
            parsed.source = arg
        else:
            parsed.invalid_argument = parsed.invalid_argument or arg
    if command == "update":
        _update_target(parsed, flags, extension_source)
    return parsed


def _update_target(parsed: _Parsed, flags: dict[str, bool], extension_source: str | None) -> None:
    source = parsed.source
    conflict = parsed.conflict
    if flags["all"] and (flags["self"] or flags["extensions"] or flags["models"] or extension_source):
        conflict = conflict or "--all cannot be combined with --self, --extensions, --models, or --extension"
    if flags["all"] and source:
        conflict = conflict or "--all cannot be combined with a positional source"
    if flags["models"]:
        if flags["self"] or flags["extensions"] or flags["all"] or extension_source:
            conflict = conflict or "--models cannot be combined with --self, --extensions, --all, or --extension"
        if source:
            conflict = conflict or "--models cannot be combined with a positional source"
        parsed.target = ("models", None)
    elif extension_source:
        if flags["self"] or flags["extensions"] or flags["all"]:
            conflict = conflict or "--extension cannot be combined with --self, --extensions, or --all"
        if source:
            conflict = conflict or "--extension cannot be combined with a positional source"
        parsed.target = ("extensions", extension_source)
    elif source:
        if source in ("self", "pi"):
            parsed.target = ("all", None) if flags["extensions"] else ("self", None)
        else:
            if flags["extensions"] or flags["self"] or flags["all"]:
                conflict = (
                    conflict or "positional update targets cannot be combined with --self, --extensions, or --all"
                )
            parsed.target = ("extensions", source)
    elif flags["all"] or (flags["self"] and flags["extensions"]):
        parsed.target = ("all", None)
    elif flags["self"]:
        parsed.target = ("self", None)
    elif flags["extensions"]:
        parsed.target = ("extensions", None)
    else:
        parsed.target = ("self", None)
        parsed.extensions_skipped_note = True
    parsed.conflict = conflict


def _print_self_update_unavailable() -> None:
    """Upstream's ``printSelfUpdateUnavailable``, naming pip."""
    _err("error: pi cannot self-update this installation.")
    _err(f"pi_rpc is a Python package; update it with pip: {sys.executable} -m pip install --upgrade pi-rpc")
    _err(
        "To make `pi update` run your own update command, set PI_SELF_UPDATE_COMMAND or the selfUpdateCommand setting."
    )
    if sys.argv and sys.argv[0]:
        _err("")
        _err(f"Location of pi executable: {os.path.abspath(sys.argv[0])}")


def _manager(parsed: _Parsed, *, saved_trust_only: bool) -> Any:
    from pi_rpc.config import paths
    from pi_rpc.config.settings import read_json_object, resolve_project_trust, saved_trust_decision
    from pi_rpc.packages.manager import PackageManager

    cwd = os.getcwd()
    agent_dir = paths.agent_dir()
    global_settings = read_json_object(paths.settings_path(agent_dir))
    if saved_trust_only:
        trusted = parsed.approve if parsed.approve is not None else saved_trust_decision(agent_dir, cwd) is True
    else:
        trusted = resolve_project_trust(
            agent=agent_dir, cwd=cwd, global_settings=global_settings, approve=parsed.approve
        )

    def progress(kind: str, message: str) -> None:
        if kind in ("start", "progress"):
            _out(message)

    return PackageManager(
        cwd=cwd, agent_dir=str(agent_dir), project_trusted=trusted, output="inherit", progress=progress
    )


def _usage_ok(parsed: _Parsed) -> bool:
    """Whether the command line is usable; when not, the problem and the usage are said."""
    command = parsed.command
    if parsed.invalid_option:
        _err(f'Unknown option {parsed.invalid_option} for "{command}".')
        _err(f'Use "pi --help" or "{_USAGE[command]}".')
        return False
    if parsed.missing_value:
        problem = f"Missing value for {parsed.missing_value}."
    elif parsed.invalid_argument:
        problem = f"Unexpected argument {parsed.invalid_argument}."
    elif parsed.conflict:
        problem = parsed.conflict
    elif command in ("install", "remove") and not parsed.source:
        problem = f"Missing {command} source."
    else:
        return True
    _err(problem)
    _err(f"Usage: {_USAGE[command]}")
    return False


def _update_packages(manager: Any, source: str | None) -> None:
    """``pi update`` of the packages (all, or ``source``), said as upstream says it."""
    warnings: list[str] = []
    base_progress = manager.progress

    def progress(event: str, message: str) -> None:
        if event == "progress":
            warnings.append(message)
        base_progress(event, message)

    manager.progress = progress
    updated = manager.update(source)
    if offline():
        _out("Skipped package updates (offline mode)")
    elif not updated and warnings:
        _out(
            f"{source} was not updated, see the warnings above"
            if source
            else "No packages were updated, see the warnings above"
        )
    elif not updated:
        _out(f"{source} is already up to date" if source else "Packages are already up to date")
    else:
        _out(f"Updated {len(updated)} package{'' if len(updated) == 1 else 's'}:")
        for line in updated:
            _out(f"  {line}")


def run_package_command(argv: Sequence[str]) -> int:
    parsed = _parse(argv)
    command = parsed.command
    if parsed.help:
        _out(f"Usage:\n  {_USAGE[command]}\n\n{_HELP[command]}")
        return 0
    if not _usage_ok(parsed):
        return 1
    if command == "update" and parsed.target == ("models", None):
        _out("Model catalogs are built into pi_rpc; there is nothing to refresh (pip updates them with pi).")
        return 0
    if command == "config":
        return _config(parsed)

    try:
        manager = _manager(parsed, saved_trust_only=command == "update")
        if command in ("install", "remove") and parsed.local and not manager.project_trusted:
            _err("Project is not trusted. Use --approve to modify local package config.")
            return 1
        if command == "install":
            assert parsed.source is not None
            manager.install_and_persist(parsed.source, local=parsed.local)
            _out(f"Installed {parsed.source}")
            return 0
        if command == "remove":
            assert parsed.source is not None
            if not manager.remove_and_persist(parsed.source, local=parsed.local):
                _err(f"No matching package found for {parsed.source}")
                return 1
            _out(f"Removed {parsed.source}")
            return 0
        if command == "list":
            return _list(manager)
        kind, source = parsed.target or ("self", None)
        if parsed.extensions_skipped_note:
            _out("Extensions are skipped. Run pi update --extensions to update extensions.")
        if kind in ("extensions", "all"):
            _update_packages(manager, source)
        if kind in ("self", "all"):
            _print_self_update_unavailable()
            return 1
        return 0
    except PackageError as exc:
        _err(f"Error: {exc}")
        return 1
    except KeyboardInterrupt:
        return 130


def _list(manager: Any) -> int:
    configured = manager.list_configured()
    if not configured:
        _out("No packages installed.")
        return 0
    user = [p for p in configured if p["scope"] == "user"]
    project = [p for p in configured if p["scope"] == "project"]

    def show(pkg: dict[str, object]) -> None:
        _out(f"  {pkg['source']} (filtered)" if pkg["filtered"] else f"  {pkg['source']}")
        if pkg["installedPath"]:
            _out(f"    {pkg['installedPath']}")

    if user:
        _out("User packages:")
        for pkg in user:
            show(pkg)
    if project:
        if user:
            _out()
        _out("Project packages:")
        for pkg in project:
            show(pkg)
    return 0


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _config(parsed: _Parsed) -> int:
    try:
        manager = _manager(parsed, saved_trust_only=False)
        if parsed.local and not manager.project_trusted:
            _err("Project is not trusted. Use --approve to modify local resource config.")
            return 1
        if parsed.toggle is None and _isatty(0) and _isatty(1):
            from pi_rpc.modes.packages_config_ui import run_config_ui

            return run_config_ui(manager, local=parsed.local)
        from pi_rpc.modes.config_items import config_items

        items, failures = config_items(manager)
        for failure in failures:
            _err(f"Warning: {failure}")
        if parsed.toggle is None:
            if not items:
                _out("No resources.")
                return 0
            current = None
            for item in items:
                if item.group != current:
                    current = item.group
                    _out(item.group)
                _out(f"  [{'x' if item.enabled else ' '}] {item.kind[:-1]}: {item.path}")
            return 0
        action, raw_path = parsed.toggle
        if action == "inherit" and not parsed.local:
            _err("--inherit edits project overrides: use it with -l")
            return 1
        target = os.path.abspath(raw_path)
        match = next((i for i in items if i.path == target or i.path == raw_path), None)
        if match is None:
            _err(f"No resource found for {raw_path}")
            return 1
        if parsed.local:
            from pi_rpc.modes.config_items import project_overrides

            state = {"enable": "load", "disable": "unload"}.get(action, "inherit")
            project_overrides(manager).set_state(match.kind, match.resource, match.package, state)
            _out(f"Project {state}: {match.path}")
            return 0
        match.toggle(manager, action == "enable", match.scope)
        _out(f"{'Enabled' if action == 'enable' else 'Disabled'} {match.path}")
        return 0
    except PackageError as exc:
        _err(f"Error: {exc}")
        return 1
