"""``run_rpc_mode(args)``: take over stdout, resolve the startup options, answer the first
``get_state`` early when it is already waiting (``early``), build the backend, serve stdin
until EOF/signal.

When extensions must decide project trust first (``runtime.project_trust``), nothing is
answered early: their ``project_trust`` handlers run in the event loop, then the options are
resolved with their decision, as before.

``create_backend`` (``backend_factory``) is the seam where the runtime plugs in: it builds the session runtime from
the resolved options and wraps it in ``RuntimeBackend``. Tests that need no runtime use
``InMemoryBackend`` directly (through ``RpcServer`` or ``MemoryTransport``).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from pi_rpc.log import logger
from pi_rpc.modes.rpc.backend_factory import create_backend

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.modes.rpc.server import RpcServer
    from pi_rpc.modes.wire.framing import ReadSoFar
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.project_trust import TrustPass

TEST_STRAY_ENV = "PI_RPC_TEST_STRAY"


def start_early(
    args: CliArgs, protocol_fd: int, input_fd: int = 0
) -> tuple[RuntimeOptions | TrustPass, ReadSoFar | None]:
    """Resolve the startup options (``StartupError`` on a fatal problem) and answer the
    ``get_state`` commands already waiting, before anything of the runtime is imported
    (``early``); what was read and not answered goes to the server. When extensions must
    decide project trust first, their pass instead of the options, and nothing is read."""
    from pi_rpc.modes.rpc.early import answer_first_commands, can_answer_early, exit_on_signals
    from pi_rpc.runtime.factory import build_runtime_options
    from pi_rpc.runtime.project_trust import pending_trust_pass

    exit_on_signals()  # until the server's signal handling runs
    trust_pass = pending_trust_pass(args)
    if trust_pass is not None:
        return trust_pass, None
    options = build_runtime_options(args)
    so_far = None
    if can_answer_early(args, options, input_fd):
        so_far = answer_first_commands(
            options, input_fd=input_fd, output_fd=protocol_fd, max_frame_bytes=args.max_frame_bytes
        )
    return options, so_far


def _test_only_stray_output() -> None:
    """TEST-ONLY (env PI_RPC_TEST_STRAY=1): write to "stdout" from Python, from the raw fd and
    from a child process, to prove none of it reaches the protocol stream."""
    import subprocess

    print("stray: python print")
    sys.stdout.flush()
    os.write(1, b"stray: raw fd 1\n")
    subprocess.run(["echo", "stray: child process"], check=False)


def run_rpc_mode(args: CliArgs) -> int:
    if args.listen:  # clients that come and go (modes.rpc.listen); stdio only with --stdio
        from pi_rpc.modes.rpc.listen.server import run_listen_mode

        return run_listen_mode(args)
    from pi_rpc.modes.startup_gc import freeze_startup, pause_for_startup, resume_collecting
    from pi_rpc.modes.wire.output import take_over_stdout

    collecting = pause_for_startup()  # until the server is built (startup_gc)
    takeover = take_over_stdout()
    if os.environ.get(TEST_STRAY_ENV) == "1":
        _test_only_stray_output()

    from pi_rpc.errors import StartupError

    try:
        started, so_far = start_early(args, takeover.protocol_fd)
    except StartupError as exc:
        resume_collecting(collecting)
        logger().error(exc.message)
        return exc.exit_code
    from pi_rpc.modes.heap import limit_heap_retention

    limit_heap_retention()  # RSS follows live data in a long-lived server (ctypes: after the early answer)

    async def main() -> int:
        try:
            built = await build_server()
        finally:
            freeze_startup(collecting)
        return built if isinstance(built, int) else await built.serve()

    async def build_server() -> RpcServer | int:
        """The server over the session runtime, or the exit code of a startup problem."""
        from pi_rpc.runtime.options import RuntimeOptions

        if isinstance(started, RuntimeOptions):
            options = started
        else:
            from pi_rpc.runtime.factory import build_runtime_options
            from pi_rpc.runtime.project_trust import run_trust_pass

            # Extensions decide project trust before the session is built (project_trust).
            trust = await run_trust_pass(started, "rpc")
            try:
                options = build_runtime_options(args, trust=trust)
            except StartupError as exc:
                logger().error(exc.message)
                return exc.exit_code
        backend = create_backend(args, options)

        from pi_rpc.modes.rpc.server import RpcServer

        return RpcServer(
            backend,
            output_fd=takeover.protocol_fd,
            max_frame_bytes=args.max_frame_bytes,
            verbose=args.verbose,
            event_buffer=args.event_buffer,
            so_far=so_far,
            max_sessions=args.max_sessions,
        )

    from pi_rpc.modes.exit import run_to_exit_code

    return run_to_exit_code(main)
