"""``pi attach <address> [--session <handle>] [--token-file <path>] [--tui-mode <mode>]
[--reconnect <seconds>]``: the
interactive mode as a client of a running ``pi --listen`` server (``pi --mode rpc --listen`` or
an interactive ``pi --listen``).

The address is one the server printed (``unix:<path>``, ``tcp:<host>:<port>``, ``ws://…``). TCP
and WebSocket need the token: ``--token-file``, else ``<agentDir>/listen-token`` (the file the
server made when it was started by the same user). ``--session`` attaches to another open
session than ``"default"``. The app is the interactive mode's (``PiApp``) over a
``RemoteSession``; quitting closes the connection and leaves the server and its session
running. When the connection drops, it is made again (reconnect.py) for up to ``--reconnect``
seconds (30; 0: not at all), else the app ends with exit code 1 and the reason. After quitting,
as the interactive mode prints ``To resume this session:`` and its command, ``pi attach`` prints
the command that attaches to the same session again (``pi attach <address> [--session
<handle>] [--token-file <path>]``), to a terminal only.

Exit codes: the app's (0 after ``/quit``); 1 when the address cannot be reached, the token is
refused or the handle is unknown (the reason on stderr); 2 for a usage error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

USAGE = """Usage: pi attach <address> [--session <handle>] [--token-file <path>] [--tui-mode fullscreen|regular]
                 [--reconnect <seconds>]

Open the interactive mode on a session of a running `pi --listen` server (it goes on running
after you quit). <address>: unix:<path>, tcp:<host>:<port>, ws://<host>:<port>[/path], wss://…
A dropped connection is made again for up to --reconnect seconds (default 30; 0: never).
"""
DEFAULT_RECONNECT_SECONDS = 30.0


class _Usage(Exception):
    pass


def parse_attach_args(argv: list[str]) -> dict[str, Any]:
    """``{address, handle, token_file, tui_mode, reconnect}``; ``_Usage`` with the problem."""
    parsed: dict[str, Any] = {
        "address": None,
        "handle": "default",
        "token_file": None,
        "tui_mode": None,
        "reconnect": DEFAULT_RECONNECT_SECONDS,
    }
    flags = {"--session": "handle", "--token-file": "token_file", "--tui-mode": "tui_mode", "--reconnect": "reconnect"}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in flags:
            if i + 1 >= len(argv):
                raise _Usage(f"{arg} needs a value")
            parsed[flags[arg]] = argv[i + 1]
            i += 2
            continue
        if arg.startswith("-"):
            raise _Usage(f"unknown option {arg}")
        if parsed["address"] is not None:
            raise _Usage(f"unexpected argument {arg}")
        parsed["address"] = arg
        i += 1
    if parsed["address"] is None:
        raise _Usage("the server's address is missing")
    if parsed["tui_mode"] not in (None, "fullscreen", "regular"):
        raise _Usage("--tui-mode is fullscreen or regular")
    try:
        parsed["reconnect"] = float(parsed["reconnect"])
    except ValueError:
        raise _Usage("--reconnect needs a number of seconds") from None
    if not parsed["reconnect"] >= 0:
        raise _Usage("--reconnect needs a number of seconds")
    return parsed


def resume_command(parsed: dict[str, Any]) -> str:
    """The command that attaches this terminal to the same session again."""
    import shlex

    args = ["pi", "attach", shlex.quote(str(parsed["address"]))]
    if parsed["handle"] != "default":
        args += ["--session", shlex.quote(str(parsed["handle"]))]
    if parsed["token_file"]:
        args += ["--token-file", shlex.quote(str(parsed["token_file"]))]
    return " ".join(args)


def _token(address: str, token_file: str | None, agent_dir: Path) -> str | None:
    if address.startswith("unix:"):
        return None
    path = Path(os.path.expanduser(token_file)) if token_file else agent_dir / "listen-token"
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConnectionError(f"cannot read the token file {path} ({exc.strerror}): give --token-file") from None


async def _run(parsed: dict[str, Any]) -> int:
    import anyio

    from pi_rpc.config.paths import agent_dir as find_agent_dir
    from pi_rpc.config.settings import Settings
    from pi_rpc.modes.attach.connection import CommandFailed, Connection
    from pi_rpc.modes.attach.remote_session import RemoteOptions, RemoteSession
    from pi_rpc.modes.exit import SHUTDOWN_GRACE_SECONDS

    address = str(parsed["address"])
    agent = Path(find_agent_dir())
    cwd = os.getcwd()
    try:
        token = _token(address, parsed["token_file"], agent)
        connection = await Connection.open(address, token=token)
    except (OSError, ConnectionError, TimeoutError) as exc:
        sys.stderr.write(f"pi attach: cannot connect to {address}: {exc}\n")
        return 1
    settings = Settings.load(agent_dir=agent, cwd=cwd)

    async def reopen() -> Connection:
        # (the token file is read again: a server started anew may have another token)
        try:
            fresh = _token(address, parsed["token_file"], agent)
        except ConnectionError:
            fresh = token
        return await Connection.open(address, token=fresh)

    remote = RemoteSession(
        connection,
        str(parsed["handle"]),
        RemoteOptions(agent, cwd),
        settings,
        reopen=reopen,
        reconnect_seconds=float(parsed["reconnect"]),
    )
    from pi_rpc.modes.interactive import display
    from pi_rpc.modes.interactive.app import PiApp
    from pi_rpc.modes.interactive.main import SignalExit

    lost = False
    async with anyio.create_task_group() as tg:
        try:
            await remote.start(tg)
        except (CommandFailed, RuntimeError, ConnectionError) as exc:
            sys.stderr.write(f"pi attach: {address}: {exc}\n")
            await connection.aclose()
            tg.cancel_scope.cancel()
            return 1
        fullscreen = display.tui_mode(settings, parsed["tui_mode"]) == "fullscreen"
        app = PiApp(remote, fullscreen=fullscreen, notices=[f"Attached to session {remote.handle} on {address}"])  # type: ignore[arg-type]

        async def watch() -> None:
            nonlocal lost
            await remote.closed.wait()
            if app.is_running:
                lost = True
                app.exit(1)

        tg.start_soon(watch)
        signals = SignalExit(app)
        signals.install()
        try:
            await app.run_async(inline=not fullscreen, inline_no_clear=True)
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                await remote.shutdown()  # (the server and its session go on)
            signals.uninstall()
            tg.cancel_scope.cancel()
    if lost:
        sys.stderr.write(f"pi attach: {address}: {remote.lost_reason or 'the server closed the connection'}\n")
        return 1
    from pi_rpc.modes.interactive.exit_output import print_exit_output

    output = app.fullscreen and display.fullscreen_exit_output(settings) == "transcript"
    print_exit_output(
        remote,  # type: ignore[arg-type]
        app.exit_renderables if output else [],
        color="NO_COLOR" not in os.environ,
        command=resume_command(parsed),
    )
    return signals.code or app.return_code or 0


def run_attach_command(argv: list[str]) -> int:
    """``pi attach …`` (argv after ``attach``)."""
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    try:
        parsed = parse_attach_args(argv)
    except _Usage as exc:
        sys.stderr.write(f"pi attach: {exc}\n{USAGE}")
        return 2
    import anyio

    return int(anyio.run(_run, parsed, backend="asyncio"))
