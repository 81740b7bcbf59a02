"""Process entry of the interactive mode: build the runtime as the other modes do, run the
Textual app fullscreen (upstream's default ``tuiMode``: the alternate screen) or inline
(``regular``: its last frame stays in the terminal), dispose on the way out, then print what
upstream prints on quitting (exit_output.py).

Exit codes: 0 after ``/quit``, Ctrl+D or a double Ctrl+C; startup problems print their message on
stderr and return its code; SIGTERM 143 and SIGHUP 129 (the app is asked to exit first, so the
terminal is restored by Textual's driver before the process ends).
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.config import children
from pi_rpc.errors import StartupError
from pi_rpc.log import logger
from pi_rpc.modes.exit import SHUTDOWN_GRACE_SECONDS, hard_exit, signal_exit_code

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs


def initial_prompt(args: CliArgs) -> tuple[str | None, list[dict[str, Any]] | None, list[str]]:
    """``pi "first message" @file``: the first prompt (file text + first message, as print
    mode builds it), its images, and the remaining messages sent one after the other."""
    from pi_rpc.modes._oneshot import build_prompts, process_file_args

    files = process_file_args(args.file_args, os.getcwd()) if args.file_args else None
    prompts = build_prompts(args.messages, files=files)
    return prompts.initial, prompts.images, prompts.rest


class SignalExit:
    """SIGTERM/SIGHUP: ask the app to exit (Textual restores the terminal) and end the process
    within the grace period in any case. A plain ``signal.signal`` handler and a timer thread,
    not the event loop: a hung-up terminal can leave the loop blocked on the driver's writes."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.code = 0
        self._previous: dict[int, Any] = {}
        self._loop = asyncio.get_running_loop()

    def install(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            self._previous[signum] = signal.signal(signum, self._on_signal)

    def uninstall(self) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)

    def _on_signal(self, signum: int, _frame: Any) -> None:
        code = signal_exit_code(signum)
        children.kill_all()
        if self.code:
            hard_exit(code)  # a repeated signal does not wait
        self.code = code
        self._loop.call_soon_threadsafe(self.app.exit)
        timer = threading.Timer(SHUTDOWN_GRACE_SECONDS + 1, hard_exit, (code,))
        timer.daemon = True
        timer.start()


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
    listening = None
    if args.listen:  # the session on screen served to RPC clients too (modes.rpc.listen.terminal)
        from pi_rpc.modes.rpc.listen.terminal import TerminalListener

        try:
            listening = TerminalListener(args, session)
            await listening.bind()
        except StartupError as exc:
            logger().error(exc.message)
            return exc.exit_code
    # Textual is imported only now: the other modes never reach this line.
    from pi_rpc.modes.interactive import display
    from pi_rpc.modes.interactive.app import PiApp
    from pi_rpc.modes.interactive.exit_output import print_exit_output

    fullscreen = display.tui_mode(session.settings, args.tui_mode) == "fullscreen"
    async with anyio.create_task_group() as tg:
        session.bind_task_group(tg)
        try:
            await session.load_extensions()
        except StartupError as exc:
            logger().error(exc.message)
            if listening is not None:
                await listening.stop()
            tg.cancel_scope.cancel()
            return exc.exit_code
        app = PiApp(
            session,
            first_prompt=first,
            first_images=images,
            more_prompts=rest,
            resume_picker=args.resume,
            session_name=args.name,
            fullscreen=fullscreen,
            notices=[listening.notice()] if listening is not None else None,
        )
        if listening is not None:
            tg.start_soon(listening.serve)

        signals = SignalExit(app)
        signals.install()
        try:
            # Regular: finished messages were already printed into the scrollback above the
            # region (``PiApp.print_above``); the last frame (editor, footer, any unfinished
            # tail) stays below them, so nothing is printed twice. Fullscreen: the alternate
            # screen goes away on exit and the transcript is printed after it.
            await app.run_async(inline=not fullscreen, inline_no_clear=True)
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                if listening is not None:
                    await listening.stop()  # (connections closed; runs they started end below)
                # The session now current: a replacement (/new, /resume, /fork) disposed this one.
                session = session.holder.current
                await session.shutdown()
            signals.uninstall()
            tg.cancel_scope.cancel()
    if not signals.code:
        # (the mode the app ended in: /settings can switch it while running)
        output = app.fullscreen and display.fullscreen_exit_output(session.settings) == "transcript"
        print_exit_output(session, app.exit_renderables if output else [], color="NO_COLOR" not in os.environ)
    return signals.code or app.return_code or 0


def run_interactive_mode(args: CliArgs) -> int:
    """The whole process of ``pi`` in a terminal."""
    import pi_rpc.packages

    # npm/git output of startup package installs must not draw over the screen (upstream
    # captures it in the interactive mode and reports failures as warnings)
    pi_rpc.packages.command_output = "capture"
    return int(anyio.run(_run, args, backend="asyncio"))
