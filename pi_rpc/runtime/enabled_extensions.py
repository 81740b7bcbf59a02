"""Which extensions a session loads: the ``-e`` paths, the settings' and discovered ones and the
built-ins, with MCP's built-ins left out when nothing would use them. Shared by the runtime
factory and the project-trust pass (which asks before the runtime is built), so neither imports
the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_rpc.config.cli_args import CliArgs
from pi_rpc.config.settings import Settings
from pi_rpc.log import logger

_PACKAGE_PREFIXES = ("npm:", "git:", "pypi:", "http://", "https://", "ssh://", "git://")


def _maybe_package(value: str, cwd: str) -> bool:
    """A ``-e`` value that may be a package: npm/git/pypi, or a folder that is not a Python
    package (``pi_rpc.packages.is_local_package_dir`` decides)."""
    import os

    if value.strip().startswith(_PACKAGE_PREFIXES):
        return True
    path = os.path.join(cwd, os.path.expanduser(value.strip()))
    return os.path.isdir(path) and not os.path.isfile(os.path.join(path, "__init__.py"))


def configured_packages(args: CliArgs, *, cwd: str, agent_dir: Path, settings: Settings) -> Any:
    """The configured and ``-e`` packages' resources (:func:`pi_rpc.packages.package_resources`,
    memoised: the skills and prompts loading reuses the same resolve), or None when there is
    no package (then nothing of ``pi_rpc.packages`` is imported). Installs missing ones; their
    npm/git output goes to stderr, or is captured in the interactive mode."""
    configured = settings.get("packages") or (
        settings.global_dict().get("packages") if settings.project_trusted else None
    )
    if not configured and not any(_maybe_package(str(e), cwd) for e in args.extensions):
        return None
    from pi_rpc.packages import package_resources

    return package_resources(
        cwd=cwd,
        agent_dir=str(agent_dir),
        project_trusted=settings.project_trusted,
        global_settings=settings.global_dict(),
        project_settings=settings.project_dict(),
        cli_sources=list(args.extensions),
    )


def discover_extensions(
    args: CliArgs, *, cwd: str, cli_base: str, agent_dir: Path, settings: Settings, mcp_registered: bool = False
) -> tuple[list[Any], bool]:
    """The extensions this session loads (``-e``, settings, discovery, built-ins), and whether
    the session lists and answers ``/mcp`` itself (``builtin:mcp`` is enabled but not needed).
    Only lists directories, so a session without extensions imports nothing more.
    ``mcp_registered``: the mode registers MCP servers for the session (ACP), so MCP's built-in
    is needed."""
    from pi_rpc.extensions.builtin import BUILTIN_PREFIX, DISABLED_BY_FLAGS
    from pi_rpc.extensions.discovery import discover_extension_sources

    disabled = [name for flag, names in DISABLED_BY_FLAGS.items() if getattr(args, flag, False) for name in names]
    warnings: list[str] = []
    packages = configured_packages(args, cwd=cwd, agent_dir=agent_dir, settings=settings)
    if packages is not None:
        warnings.extend(packages.warnings)
    sources = discover_extension_sources(
        cwd=cwd,
        agent_dir=str(agent_dir),
        cli_paths=args.extensions,
        cli_base=cli_base,
        no_extensions=args.no_extensions,
        project_trusted=settings.project_trusted,
        global_settings=settings.global_dict(),
        project_settings=settings.project_dict(),
        disabled_builtins=disabled,
        warnings=warnings,
        package_cli=packages.cli_extensions if packages is not None else (),
        package_configured=packages.extensions if packages is not None and not args.no_extensions else (),
    )
    if packages is not None and packages.python_paths:
        from pi_rpc.packages import add_python_paths

        add_python_paths(packages.python_paths)
    for warning in dict.fromkeys(warnings):
        logger().warning(warning)
    if any(not source.path.startswith(BUILTIN_PREFIX) for source in sources):
        # The extension runtime loads anyway, and an extension may register MCP servers: the
        # enabled built-ins load as upstream's do.
        return list(sources), False
    from pi_rpc.mcp.activation import unneeded_mcp_builtins

    # Without user extensions, MCP's built-ins load only when something uses them (an mcp.json,
    # a tool selection naming codemode or tool_search): a session without MCP loads no
    # extension runtime for them. It still lists `mcp` and answers `/mcp` as upstream.
    unneeded = {
        BUILTIN_PREFIX + name
        for name in unneeded_mcp_builtins(
            agent_dir=str(agent_dir),
            cwd=cwd,
            project_trusted=settings.project_trusted,
            tool_entries=args.tools or (),
            default_tools=settings.default_tools,
            registered_servers=mcp_registered,
        )
    }
    kept = [source for source in sources if source.explicit or source.path not in unneeded]
    mcp_stub = any(source.path == BUILTIN_PREFIX + "mcp" for source in sources) and not any(
        source.path == BUILTIN_PREFIX + "mcp" for source in kept
    )
    return kept, mcp_stub
