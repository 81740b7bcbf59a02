"""``project_trust``: extensions decide whether to trust the project, before the session is
built (upstream 1.6's ``resolveProjectTrusted`` with its pre-trust extension pass).

It runs at startup when nothing on the command line decided (``-a``/``-na``) and the project
has resources that need trust (``pi_rpc.config.trust.needs_trust``). The extensions that load
without trust (``-e``, the user's, the settings', the built-ins; never the project's own) are
loaded first, and their ``project_trust`` handlers run in load order: the first
``{"trusted": "yes" | "no"}`` decides (``"remember": True`` saves it in ``trust.json``),
``"undecided"`` passes. Without a decision the usual order applies (a saved decision, then
``defaultProjectTrust``). The loaded extensions are handed to the session, which loads the
project's extensions (when trusted) into the same runtime: ``setup(pi)`` runs once.

Handlers get ``ctx.cwd``, ``ctx.mode``, ``ctx.has_ui`` (false: no dialog can be answered at
this point, as in upstream's RPC, print and JSON modes) and ``ctx.ui`` with ``select``,
``confirm``, ``input`` (their defaults at once) and ``notify`` (written to stderr). A handler
that raises, or answers nothing, is reported on stderr as
``Warning: Extension "<path>" project_trust error: <message>`` and the next one runs.

Nothing is imported or loaded when no extension could take part.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_rpc.config import paths
from pi_rpc.config.cli_args import CliArgs
from pi_rpc.log import logger

if TYPE_CHECKING:
    from pi_rpc.extensions.loader import LoadResult


@dataclass
class StartupTrust:
    """What the pre-trust pass found: the handlers' decision (None: none decided) and the
    extensions it loaded (the session reuses them)."""

    decision: bool | None
    preloaded: LoadResult | None


class _TrustUI:
    """``ctx.ui`` of ``project_trust``: nobody can answer a dialog yet."""

    async def select(self, title: str, options: list[str], timeout: int | None = None, signal: object = None) -> None:
        return None

    async def confirm(self, title: str, message: str, timeout: int | None = None, signal: object = None) -> bool:
        return False

    async def input(
        self, title: str, placeholder: str | None = None, timeout: int | None = None, signal: object = None
    ) -> None:
        return None

    def notify(self, message: str, type: str | None = None) -> None:
        logger().info(message)


class TrustContext:
    """The limited ``ctx`` of a ``project_trust`` handler."""

    def __init__(self, cwd: str, mode: str) -> None:
        self.cwd = cwd
        self.mode = mode
        self.has_ui = False
        self.ui = _TrustUI()


@dataclass
class TrustPass:
    """A pre-trust pass this startup has to run: the project, the agent dir and the extensions
    that load without trust (at least one not built in)."""

    cwd: str
    agent_dir: Path
    sources: list[Any]


def pending_trust_pass(args: CliArgs, *, cwd: str | None = None) -> TrustPass | None:
    """The pre-trust pass to run, or None when this startup has nothing for extensions to
    decide (trust given on the command line, no resource that needs it, or no extension that
    could take part). Synchronous and import-light: the RPC mode asks before it answers a
    waiting ``get_state`` early, and answers early only when this is None."""
    if args.approve is not None:
        return None
    from pi_rpc.config.trust import needs_trust

    where = os.path.abspath(cwd or os.getcwd())
    if not needs_trust(where):
        return None
    from pi_rpc.config.settings import Settings
    from pi_rpc.extensions.builtin import BUILTIN_PREFIX
    from pi_rpc.runtime.enabled_extensions import discover_extensions

    agent_dir = paths.agent_dir()
    untrusted = Settings.load(agent_dir=agent_dir, cwd=where, approve=False, warn=None)
    sources, _mcp_command = discover_extensions(
        args, cwd=where, cli_base=where, agent_dir=agent_dir, settings=untrusted
    )
    if not any(not source.path.startswith(BUILTIN_PREFIX) for source in sources):
        return None  # the built-ins have no project_trust handler
    return TrustPass(where, agent_dir, list(sources))


async def run_trust_pass(found: TrustPass, mode: str) -> StartupTrust:
    """Load the pass's extensions and let their ``project_trust`` handlers decide."""
    from pi_rpc.extensions.bus import EventBus
    from pi_rpc.extensions.loader import load_extensions
    from pi_rpc.runtime.extension_host import validate_mcp_registration

    preloaded = await load_extensions(found.sources, bus=EventBus(), mcp_validator=validate_mcp_registration)
    decision = await _emit(preloaded, found.cwd, mode, found.agent_dir)
    return StartupTrust(decision, preloaded)


async def resolve_startup_trust(args: CliArgs, *, cwd: str | None = None, mode: str = "rpc") -> StartupTrust | None:
    """Run the extensions' ``project_trust`` handlers if this startup has to decide trust;
    None when it does not (or no extension can take part)."""
    found = pending_trust_pass(args, cwd=cwd)
    return None if found is None else await run_trust_pass(found, mode)


async def _emit(result: LoadResult, cwd: str, mode: str, agent_dir: Path) -> bool | None:
    event = {"type": "project_trust", "cwd": cwd}
    ctx = TrustContext(cwd, mode)
    errors: list[str] = []
    try:
        return await _decide(result, event, ctx, agent_dir, errors)
    finally:
        # Reported once the handlers ran (upstream's order).
        for line in errors:
            logger().error(line)


async def _decide(
    result: LoadResult, event: dict[str, Any], ctx: TrustContext, agent_dir: Path, errors: list[str]
) -> bool | None:
    from pi_rpc.extensions.api import error_message
    from pi_rpc.extensions.runner import call_handler

    cwd = ctx.cwd
    for extension in result.extensions:
        for handler in list(extension.handlers.get("project_trust") or ()):
            try:
                answer = await call_handler(handler, dict(event), ctx)
                if not isinstance(answer, dict):
                    raise TypeError('the handler returned no {"trusted": ...} result')
            except Exception as exc:  # noqa: BLE001 - reported; the next handler decides
                errors.append(f'Warning: Extension "{extension.path}" project_trust error: {error_message(exc)}')
                continue
            if answer.get("trusted") == "undecided":
                continue
            trusted = answer.get("trusted") == "yes"
            if answer.get("remember") is True:
                from pi_rpc.config.trust import remember

                remember(agent_dir, cwd, trusted)
            return trusted
    return None
