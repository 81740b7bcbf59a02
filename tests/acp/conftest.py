"""Drive the REAL ``python -m pi_rpc --mode acp`` with the official ACP Python SDK as the client.

``acp_agent(*args, settings=None, script=None, fs=False, env=None, faux=True)`` is an async
context manager yielding an ``AcpRun``: the SDK connection (``conn``), the recording client
(``client``: every ``session/update``, permission requests and form elicitations answered from
a script, the editor's buffers served for ``fs/read_text_file`` and writes recorded, terminals
run as real processes), the project dir (``cwd``) and
every raw JSON-RPC message the agent sent (``raw``, each also validated against the SDK's
schema models). The agent gets the isolated environment of ``tests/conftest.py`` (faux opted
in unless ``faux=False``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

acp = pytest.importorskip("acp")
from acp import schema  # noqa: E402
from acp.exceptions import RequestError  # noqa: E402
from acp.stdio import spawn_agent_process  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402


class RecordingClient:
    """An editor: records updates, answers permission requests, serves buffers."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permission_answers: list[str] = []  # optionIds, "cancelled", or "hold" (never answered)
        self.permission_requests: list[Any] = []
        self.elicitation_answers: list[Any] = []  # a value to accept, "decline", "cancel" or "hold"
        self.elicitations: list[tuple[str, Any]] = []
        self.terminals: dict[str, Any] = {}  # terminal id -> TerminalProcess
        self.terminal_calls: list[tuple[str, Any]] = []
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.watchers: list[tuple[Callable[[Any], bool], Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        for predicate, event in list(self.watchers):
            if predicate(update):
                event.set()

    def when(self, predicate: Callable[[Any], bool]) -> Any:
        import asyncio

        event = asyncio.Event()
        if any(predicate(u) for _, u in self.updates):
            event.set()
        self.watchers.append((predicate, event))
        return event

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        import asyncio

        self.permission_requests.append((tool_call, options))
        answer = self.permission_answers.pop(0)
        if answer == "hold":
            await asyncio.Event().wait()
        if answer == "cancelled":
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(outcome=schema.AllowedOutcome(option_id=answer, outcome="selected"))

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> Any:
        self.reads.append(path)
        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return schema.ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        self.writes.append((path, content))
        self.buffers[path] = content
        return schema.WriteTextFileResponse()

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        import asyncio

        self.elicitations.append((message, mode))
        answer = self.elicitation_answers.pop(0)
        if answer == "hold":
            await asyncio.Event().wait()
        if answer == "decline":
            return schema.DeclineElicitationResponse(action="decline")
        if answer == "cancel":
            return schema.CancelElicitationResponse(action="cancel")
        return schema.AcceptElicitationResponse(action="accept", content={"value": answer})

    # ---------------------------------------------------------------- terminals (real processes)

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> Any:
        import asyncio
        import os

        self.terminal_calls.append(
            ("create", {"command": command, "args": args, "env": env, "cwd": cwd, "limit": output_byte_limit})
        )
        environment = {**os.environ, **{v.name: v.value for v in env or []}}
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env=environment,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        terminal = TerminalProcess(proc)
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = terminal
        return schema.CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append(("output", terminal_id))
        terminal = self.terminals[terminal_id]
        return schema.TerminalOutputResponse(
            output=terminal.output.decode("utf-8", "replace"), truncated=False, exit_status=terminal.exit_status()
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append(("wait_for_exit", terminal_id))
        terminal = self.terminals[terminal_id]
        await terminal.done.wait()
        status = terminal.exit_status()
        return schema.WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append(("kill", terminal_id))
        await self.terminals[terminal_id].kill()
        return schema.KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append(("release", terminal_id))
        await self.terminals[terminal_id].kill()
        return schema.ReleaseTerminalResponse()

    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind) if getattr(u.content, "text", None) is not None)


class TerminalProcess:
    """A command the recording client runs for ``terminal/create`` (a real process)."""

    def __init__(self, proc: Any) -> None:
        import asyncio

        self.proc = proc
        self.output = b""
        self.done = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        while chunk := await self.proc.stdout.read(65536):
            self.output += chunk
        await self.proc.wait()
        self.done.set()

    def exit_status(self) -> Any:
        import signal

        code = self.proc.returncode
        if code is None:
            return None
        if code < 0:
            return schema.TerminalExitStatus(exit_code=None, signal=signal.Signals(-code).name)
        return schema.TerminalExitStatus(exit_code=code, signal=None)

    async def kill(self) -> None:
        import os
        import signal

        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        await self.done.wait()


_NOTIFICATION_MODELS = {
    "session/update": "SessionNotification",
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
    "session/request_permission": "RequestPermissionRequest",
    "elicitation/create": "CreateElicitationRequest",
    "terminal/create": "CreateTerminalRequest",
    "terminal/output": "TerminalOutputRequest",
    "terminal/wait_for_exit": "WaitForTerminalExitRequest",
    "terminal/kill": "KillTerminalRequest",
    "terminal/release": "ReleaseTerminalRequest",
}


@dataclass
class AcpRun:
    conn: Any
    process: Any
    client: RecordingClient
    cwd: Path
    agent_dir: Path
    raw: list[dict[str, Any]] = field(default_factory=list)
    schema_errors: list[str] = field(default_factory=list)

    async def initialize(self, fs: bool = False, terminal: bool = False, elicitation: bool = False) -> Any:
        caps = schema.ClientCapabilities(
            fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
            terminal=terminal,
            elicitation=schema.ElicitationCapabilities(form=schema.ElicitationFormCapabilities())
            if elicitation
            else None,
        )
        return await self.conn.initialize(protocol_version=1, client_capabilities=caps)

    async def new_session(self, mcp_servers: list[Any] | None = None) -> Any:
        return await self.conn.new_session(cwd=str(self.cwd), mcp_servers=mcp_servers or [])

    async def prompt(self, session_id: str, text: str) -> Any:
        return await self.conn.prompt(session_id=session_id, prompt=[schema.TextContentBlock(type="text", text=text)])

    async def prompt_then_cancel(self, session_id: str, text: str, ready: Callable[[], Awaitable[Any]]) -> Any:
        """Send a prompt, wait until ``ready()`` returns while the turn runs, send
        ``session/cancel``; the prompt's result (within 30 s)."""
        result: dict[str, Any] = {}

        async def turn() -> None:
            result["r"] = await self.prompt(session_id, text)

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(turn)
                await ready()
                await self.conn.cancel(session_id=session_id)
        return result["r"]


@pytest.fixture
def acp_agent(tmp_path: Path, pi_environ: Any) -> Callable[..., Any]:
    counter = [0]

    @asynccontextmanager
    async def start(
        *args: str,
        settings: dict[str, Any] | None = None,
        script: list[dict[str, Any]] | None = None,
        env: dict[str, str] | None = None,
        faux: bool = True,
        client: RecordingClient | None = None,
    ) -> AsyncIterator[AcpRun]:
        counter[0] += 1
        cwd = tmp_path / "project"
        cwd.mkdir(exist_ok=True)
        extra = dict(env or {})
        if script is not None:
            path = tmp_path / f"faux-script-{counter[0]}.json"
            path.write_text(json.dumps(script))
            extra["PI_FAUX_SCRIPT"] = str(path)
        environment = pi_environ(extra, faux=faux)
        agent_dir = Path(environment["PI_CODING_AGENT_DIR"])
        if settings is not None:
            (agent_dir / "settings.json").write_text(json.dumps(settings))
        recording = client or RecordingClient()
        async with spawn_agent_process(
            recording,
            sys.executable,
            "-m",
            "pi_rpc",
            "--mode",
            "acp",
            *args,
            env=environment,
            cwd=str(cwd),
            use_unstable_protocol=True,
        ) as (conn, process):
            run = AcpRun(conn, process, recording, cwd, agent_dir)

            def observe(event: Any) -> None:
                message = event.message
                if event.direction.value != "incoming":
                    return
                run.raw.append(message)
                model = _NOTIFICATION_MODELS.get(message.get("method", ""))
                if model is not None:  # the agent's own messages must match the official schema
                    try:
                        TypeAdapter(getattr(schema, model)).validate_python(message["params"])
                    except Exception as exc:  # noqa: BLE001 - reported after the run
                        run.schema_errors.append(f"{message}: {exc}")

            conn._conn.add_observer(observe)
            yield run
            assert run.schema_errors == []

    return start
