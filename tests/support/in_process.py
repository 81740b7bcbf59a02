"""``pi --mode rpc`` in the test process: the same session, backend, dispatcher and record writer
as the real process (``pi_rpc.modes.rpc``), minus the interpreter start, the stdout takeover and
the signal handling -- for the tests where the session is what is tested, not the process.

``start_in_process(root, ...)`` takes ``start_in``'s arguments and returns an ``InProcessPi``:
a ``PiProcess`` (the same ``ok``/``cmd``/``request``/``wait_for``/``settle``/``mark``/``since``,
the same ``records`` and byte-exact ``raw`` lines) whose "process" is an ``RpcServer`` serving a
pipe in a thread of its own (its own event loop). The faux model answers, the session store is
under ``root``; the record writer is the listener that records every response and event, in the
order and with the bytes the process would write.

What it does not cover, so those tests spawn the real process (``tests.support.pi_process``):
stdout as a byte stream owned by the protocol (stray output, the early ``get_state``), signals,
crashes, a process's startup, stderr written other than through pi's logger (``stderr`` here is
what the ``pi`` logger wrote, formatted as the process writes it), and several processes
sharing files. The
environment (``isolated_env``) and the working directory are the test process's own while the
server runs, so only one runs at a time.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from pathlib import Path
from typing import Any

from tests.support.pi_process import PiProcess, prepare_root, stream_lines

_running: list[InProcessPi] = []


class InProcessPi(PiProcess):
    """A ``PiProcess`` whose server runs in this process (see the module docstring)."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, *, root: Path, agent_dir: Path) -> None:
        for earlier in list(_running):
            if earlier.exit_code is None:
                raise RuntimeError("one in-process pi at a time: the environment and cwd are shared")
            earlier._restore()  # it has stopped: its environment and cwd go back first
        self.argv = ["<in-process>", "--mode", "rpc", *args]
        self.root, self.cwd, self.agent_dir = root, cwd, agent_dir
        self.home = Path(env.get("HOME", cwd))
        self.lenient = False
        self.records: list[Any] = []
        self.raw: list[bytes] = []
        self.raw_lines: list[bytes] = []
        self.invalid_lines: list[bytes] = []
        self._lines: queue.Queue[tuple[bytes, bool] | None] = queue.Queue()
        self._stderr = bytearray()
        import itertools

        self._ids = itertools.count(1)
        self._eof = False
        self.exit_code: int | None = None
        self.error: BaseException | None = None
        self._saved_env = dict(os.environ)
        self._saved_cwd = os.getcwd()
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        self._in_read, self._in_write = os.pipe()
        self._out_read, self._out_write = os.pipe()
        self._stdout = os.fdopen(self._out_read, "rb", buffering=0)
        self._server_thread = threading.Thread(target=self._serve, args=(args,), daemon=True, name="in-process pi")
        self._threads = [threading.Thread(target=self._pump_stdout, daemon=True)]
        _running.append(self)
        self._log_handler = _capture_log(self._stderr)
        self._server_thread.start()
        self._threads[0].start()

    # ------------------------------------------------------------------ the server

    def _serve(self, args: list[str]) -> None:
        import anyio

        from pi_rpc.config.cli_args import CliError, parse_args

        try:
            try:
                cli = parse_args(["--mode", "rpc", *args])
            except CliError as exc:  # as ``pi_rpc.cli.main`` reports it
                self._stderr += (exc.message + "\n").encode()
                self.exit_code = exc.exit_code
                return
            if cli.offline:
                os.environ["PI_OFFLINE"] = "1"
            os.environ["PI_CODING_AGENT"] = "true"
            os.environ["AI_AGENT"] = "pi"
            self.exit_code = anyio.run(self._main, cli)
        except BaseException as exc:  # noqa: BLE001 - reported to the test through ``error``
            self.error = exc
            self._stderr += f"{type(exc).__name__}: {exc}\n".encode()
            self.exit_code = 1
        finally:
            os.close(self._out_write)
            os.close(self._in_read)

    async def _main(self, cli: Any) -> int:
        from pi_rpc.errors import StartupError
        from pi_rpc.log import logger
        from pi_rpc.modes.rpc.main import create_backend
        from pi_rpc.modes.rpc.server import RpcServer
        from pi_rpc.runtime.factory import build_runtime_options
        from pi_rpc.runtime.project_trust import pending_trust_pass, run_trust_pass

        trust_pass = pending_trust_pass(cli)
        trust = await run_trust_pass(trust_pass, "rpc") if trust_pass is not None else None
        try:
            options = build_runtime_options(cli, trust=trust)
        except StartupError as exc:  # as ``run_rpc_mode`` reports it
            logger().error(exc.message)
            return exc.exit_code
        server = RpcServer(
            create_backend(cli, options),
            output_fd=self._out_write,
            input_fd=self._in_read,
            max_frame_bytes=cli.max_frame_bytes,
            verbose=cli.verbose,
            handle_signals=False,
            event_buffer=cli.event_buffer,
            max_sessions=cli.max_sessions,
        )
        return await server.serve()

    def _pump_stdout(self) -> None:
        for item in stream_lines(self._stdout):
            self._lines.put(item)
        self._lines.put(None)

    # ------------------------------------------------------------------ PiProcess's surface

    @property
    def pid(self) -> int:
        return os.getpid()

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._in_write, view) :]

    def send(self, obj: Any) -> None:
        self.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")

    def close_stdin(self) -> None:
        if self._in_write >= 0:
            os.close(self._in_write)
            self._in_write = -1

    def close(self, timeout: float = 10.0) -> int:
        self.close_stdin()
        while not self._eof:
            try:
                self._read_one(timeout)
            except AssertionError:
                break
        return self.wait(timeout)

    def wait(self, timeout: float = 10.0) -> int:
        self._server_thread.join(timeout)
        if self._server_thread.is_alive():
            raise TimeoutError(f"the in-process server did not stop within {timeout}s")
        for thread in self._threads:
            thread.join(timeout)
        self._restore()
        if self.error is not None:
            raise self.error
        assert self.exit_code is not None
        return self.exit_code

    def kill(self) -> None:
        """Stop it as EOF does (there is no process to kill); the environment is restored."""
        self.close_stdin()
        self._server_thread.join(15)
        self._restore()

    def _restore(self) -> None:
        if self in _running:
            _running.remove(self)
            from pi_rpc.log import logger

            logger().removeHandler(self._log_handler)
            os.environ.clear()
            os.environ.update(self._saved_env)
            os.chdir(self._saved_cwd)

    def vm_hwm_kb(self, default: int | None = None) -> int:
        raise AssertionError("an in-process pi has no process of its own to measure")

    vm_rss_kb = vm_hwm_kb


def _capture_log(into: bytearray) -> Any:
    """A handler on pi's logger that keeps what the process would write to its stderr (the
    same formatter: each message as given, a newline) in ``into``."""
    import logging

    from pi_rpc.log import logger

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            into.extend((self.format(record) + "\n").encode("utf-8", "replace"))

    handler = Capture()
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger().addHandler(handler)
    return handler


def start_in_process(
    root: Path,
    *,
    script: list[dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
    models: dict[str, Any] | None = None,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    faux: bool = True,
) -> InProcessPi:
    """``start_in`` (same layout under ``root``, same files written first), served in-process."""
    base = prepare_root(root, script=script, settings=settings, models=models, env=env, files=files, faux=faux)
    return InProcessPi(list(args), base, root / "cwd", root=root, agent_dir=root / "agent")
