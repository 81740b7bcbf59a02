"""``run_rpc_mode(args)``: take over stdout, build the backend, serve stdin until EOF/signal.

``create_backend`` is the seam where the runtime plugs in: it builds the session runtime and
wraps it in ``RuntimeBackend``. Tests that need no runtime use ``InMemoryBackend`` directly
(through ``RpcServer`` or ``MemoryTransport``).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.config.settings import Settings
    from pi_rpc.modes.rpc.backend import Backend
    from pi_rpc.runtime.project_trust import StartupTrust

TEST_STRAY_ENV = "PI_RPC_TEST_STRAY"


def create_backend(args: CliArgs, settings: Settings, trust: StartupTrust | None = None) -> Backend:
    """The RPC backend over the session runtime (startup problems become ``StartupError``);
    ``trust``: what extensions' ``project_trust`` handlers decided."""
    from pi_rpc.modes.rpc.backend import StartupError
    from pi_rpc.modes.rpc.runtime_backend import RuntimeBackend
    from pi_rpc.runtime.factory import StartupProblem, build_runtime_options
    from pi_rpc.runtime.session import AgentSession

    try:
        session = AgentSession(build_runtime_options(args, trust=trust))
    except StartupProblem as exc:
        raise StartupError(exc.message, exc.exit_code) from None
    return RuntimeBackend(session, initial_name=args.name)


def _test_only_stray_output() -> None:
    """TEST-ONLY (env PI_RPC_TEST_STRAY=1): write to "stdout" from Python, from the raw fd and
    from a child process, to prove none of it reaches the protocol stream."""
    import subprocess

    print("stray: python print")
    sys.stdout.flush()
    os.write(1, b"stray: raw fd 1\n")
    subprocess.run(["echo", "stray: child process"], check=False)


def run_rpc_mode(args: CliArgs) -> int:
    from pi_rpc.modes.wire.output import take_over_stdout

    takeover = take_over_stdout()
    from pi_rpc.modes.heap import limit_heap_retention

    limit_heap_retention()  # RSS follows live data in a long-lived server
    if os.environ.get(TEST_STRAY_ENV) == "1":
        _test_only_stray_output()

    from pi_rpc.config.settings import Settings
    from pi_rpc.modes.rpc.backend import StartupError

    settings = Settings.load(cwd=os.getcwd(), approve=args.approve)

    async def main() -> int:
        from pi_rpc.runtime.project_trust import resolve_startup_trust

        # Extensions may decide project trust before the session is built (project_trust).
        trust = await resolve_startup_trust(args, mode="rpc")
        try:
            backend = create_backend(args, settings, trust)
        except StartupError as exc:
            sys.stderr.write(exc.message + "\n")
            return exc.exit_code

        from pi_rpc.modes.rpc.server import RpcServer

        server = RpcServer(
            backend,
            output_fd=takeover.protocol_fd,
            max_frame_bytes=args.max_frame_bytes,
            verbose=args.verbose,
            event_buffer=args.event_buffer,
        )
        return await server.serve()

    from pi_rpc.modes.exit import run_to_exit_code

    return run_to_exit_code(main)
