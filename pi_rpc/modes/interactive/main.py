"""Process entry of the interactive mode: build the runtime as the other modes do, run the
Textual app inline (the conversation stays in the terminal's scrollback), dispose on the way out.

Exit codes: 0 after ``/quit``, Ctrl+D or a double Ctrl+C; startup problems print their message on
stderr and return its code; SIGTERM 143 and SIGHUP 129 (the app is asked to exit first, so the
terminal is restored by Textual's driver before the process ends).
"""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.errors import StartupError
from pi_rpc.log import logger
from pi_rpc.modes.exit import SHUTDOWN_GRACE_SECONDS, signal_exit_code

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs


def initial_prompt(args: CliArgs) -> tuple[str | None, list[dict[str, Any]] | None, list[str]]:
    """``pi "first message" @file``: the first prompt (file text + first message, as print
    mode builds it), its images, and the remaining messages sent one after the other."""
    from pi_rpc.modes._oneshot import build_prompts, process_file_args

    files = process_file_args(args.file_args, os.getcwd()) if args.file_args else None
    prompts = build_prompts(args.messages, files=files)
    return prompts.initial, prompts.images, prompts.rest


async def _run(args: CliArgs) -> int:
    from pi_rpc.runtime.factory import build_runtime_options
    from pi_rpc.runtime.project_trust import resolve_startup_trust
    from pi_rpc.runtime.session import AgentSession

    trust = await resolve_startup_trust(args, mode="interactive")
    try:
        options = build_runtime_options(args, trust=trust)
        first, images, rest = initial_prompt(args)
    except StartupError as exc:
        logger().error(exc.message)
        return exc.exit_code
    session = AgentSession(options)
    # Textual is imported only now: the other modes never reach this line.
    from pi_rpc.modes.interactive.app import PiApp

    exit_code = 0
    async with anyio.create_task_group() as tg:
        session.bind_task_group(tg)
        try:
            await session.load_extensions()
        except StartupError as exc:
            logger().error(exc.message)
            tg.cancel_scope.cancel()
            return exc.exit_code
        app = PiApp(
            session,
            first_prompt=first,
            first_images=images,
            more_prompts=rest,
            resume_picker=args.resume,
            session_name=args.name,
        )

        async def watch_signals() -> None:
            nonlocal exit_code
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
                async for signum in signals:
                    exit_code = signal_exit_code(signum)
                    app.exit()

        tg.start_soon(watch_signals)
        try:
            await app.run_async(inline=True, inline_no_clear=True)
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                await session.shutdown()
            tg.cancel_scope.cancel()
    if app.return_code:
        exit_code = exit_code or app.return_code
    return exit_code


def run_interactive_mode(args: CliArgs) -> int:
    """The whole process of ``pi`` in a terminal."""
    return int(anyio.run(_run, args, backend="asyncio"))
