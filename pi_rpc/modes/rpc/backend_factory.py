"""``create_backend``: the RPC backend over a session runtime, for ``pi --mode rpc`` and for each
connection of ``--listen``. A module of its own so that the listener's server and the stdio
main share it without importing each other; what it builds is imported when it is called."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.modes.rpc.backend import Backend
    from pi_rpc.runtime.options import RuntimeOptions


def create_backend(args: CliArgs, options: RuntimeOptions) -> Backend:
    """The RPC backend over the session runtime built from ``options``: the session host, with
    it as ``"default"``; ``open_session`` builds more from ``args`` (the extensions'
    ``project_trust`` handlers deciding again for each session's cwd, as at startup)."""
    from pi_rpc.modes.rpc.runtime_backend import RuntimeBackend
    from pi_rpc.modes.rpc.session_host import SessionHost
    from pi_rpc.runtime.session import AgentSession

    first = RuntimeBackend(AgentSession(options), initial_name=args.name)
    return SessionHost(first, args, max_sessions=args.max_sessions)
