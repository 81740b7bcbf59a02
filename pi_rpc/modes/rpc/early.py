"""Answering the first ``get_state`` before the runtime is built.

A client that spawns ``pi --mode rpc`` usually writes ``get_state`` at once and waits for it.
Its answer needs only the startup options (model, thinking level, session id, settings), which
exist after a few tens of milliseconds, while importing and building the rest of the runtime
(the event loop, agent, tools, resources, providers) takes several times longer. So, right
after the options are resolved, the records already waiting on stdin are read here and the
leading ``get_state`` commands among them are answered at once, with the bytes the runtime
would write (``runtime.queries.initial_state``, the dispatcher's response envelope, the
writer's encoder). The first record that is anything else, and everything after it, is handed
unparsed to the RPC server (``framing.ReadSoFar``), which serves it as if it had read it.

Only when nothing could make the runtime's answer differ: a new session (no entries), no
extensions (their ``session_start`` handlers run before the first command), no ``--name``,
stdin a pipe or socket, and nothing already waiting that is not ``get_state`` — otherwise
this reads nothing. It never waits for input: records that arrive later are the server's.
Signals in this window (before the server's own handling exists) exit with the server's
codes (SIGTERM 143, SIGHUP 129): a new session has nothing to write or flush yet.
"""

from __future__ import annotations

import os
import select
import signal
import stat
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.rpc.registry import response_head
from pi_rpc.modes.wire.framing import READ_CHUNK, LineFramer, ReadSoFar
from pi_rpc.modes.wire.jsonout import dumps_line
from pi_rpc.modes.wire.jsonparse import parse_record

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.runtime.options import RuntimeOptions


def exit_on_signals() -> None:
    """Until the server watches signals: SIGTERM and SIGHUP exit with its codes, at once."""
    from pi_rpc.modes.exit import hard_exit, signal_exit_code

    def handler(signum: int, frame: object) -> None:
        hard_exit(signal_exit_code(signum))

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)


def can_answer_early(args: CliArgs, options: RuntimeOptions, input_fd: int) -> bool:
    if options.extension_sources or args.name or options.session.get_entry_count() != 0:
        return False
    try:
        mode = os.fstat(input_fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _readable(fd: int) -> bool:
    try:
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [], 1.0)
            continue
        except InterruptedError:
            continue
        view = view[n:]


def answer_first_commands(
    options: RuntimeOptions, *, input_fd: int, output_fd: int, max_frame_bytes: int
) -> ReadSoFar | None:
    """Answer the ``get_state`` commands waiting at the head of stdin; what was read and not
    answered (None: nothing was read). A write error ends the early answers: the server meets
    the same error on its first write and exits as it does for any write error."""
    from pi_rpc.runtime.queries import initial_state

    framer = LineFramer(max_frame_bytes)
    unanswered: list[Any] = []
    state: dict[str, Any] | None = None
    read_any = False
    eof = False
    while not unanswered and _readable(input_fd):
        try:
            data = os.read(input_fd, READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            data = b""  # as the server's reader: an unreadable stdin is its end
        read_any = True
        if not data:
            unanswered.extend(framer.feed_eof())
            eof = True
            break
        for frame in framer.feed(data):
            if not unanswered and type(frame) is bytes:
                try:
                    command = parse_record(frame)
                except Exception:  # noqa: BLE001 - e.g. MemoryError: the server's reader reports it
                    command = None
                # Only the default session exists yet: a get_state addressed to another handle
                # is the server's to refuse.
                if (
                    type(command) is dict
                    and command.get("type") == "get_state"
                    and command.get("handle", "default") in ("default", None)
                ):
                    if state is None:
                        state = initial_state(options)
                    response = response_head("id" in command, command.get("id"), True, "get_state")
                    response["success"] = True
                    response["data"] = state
                    try:
                        _write_all(output_fd, dumps_line(response))
                    except OSError:
                        unanswered.append(frame)  # the server answers it, or fails to as well
                    continue
            unanswered.append(frame)
    if not read_any:
        return None
    return ReadSoFar(framer, unanswered, eof)
