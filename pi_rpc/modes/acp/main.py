"""``run_acp_mode(args)``: take over stdout and serve the Agent Client Protocol on stdio."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc.log import logger

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs


def run_acp_mode(args: CliArgs) -> int:
    from pi_rpc.modes.wire.output import take_over_stdout

    takeover = take_over_stdout()
    if args.file_args:
        logger().error("Error: @file arguments are not supported in ACP mode")
        return 1
    from pi_rpc.modes.acp.agent import AcpAgent
    from pi_rpc.modes.acp.server import AcpServer
    from pi_rpc.modes.exit import run_to_exit_code

    server = AcpServer(
        AcpAgent(args),
        output_fd=takeover.protocol_fd,
        max_frame_bytes=args.max_frame_bytes,
        verbose=args.verbose,
    )
    return run_to_exit_code(server.serve)
