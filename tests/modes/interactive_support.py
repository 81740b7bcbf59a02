"""Helpers for the interactive-mode tests: ``running_app`` opens a real ``AgentSession`` (faux
model, options as the command line builds them) and runs ``PiApp`` headless at 80x24 under
Textual's pilot; ``until`` polls a condition while the app runs; ``Tmux`` runs ``python -m pi_rpc``
in a real terminal."""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from pi_rpc.runtime.factory import build_runtime_options
from pi_rpc.runtime.sdk import build_cli_args
from pi_rpc.runtime.session import AgentSession

from .conftest import _env


@asynccontextmanager
async def running_app(
    cwd: Path, *, fullscreen: bool = False, size: tuple[int, int] = (80, 24), **cli: Any
) -> AsyncIterator[tuple[Any, Any]]:
    from pi_rpc.modes.interactive.app import PiApp

    cli.setdefault("model", "faux/faux-1")
    options = build_runtime_options(build_cli_args(**cli), cwd=str(cwd))
    session = AgentSession(options)
    async with anyio.create_task_group() as tg:
        session.bind_task_group(tg)
        await session.load_extensions()
        app = PiApp(session, fullscreen=fullscreen)
        async with app.run_test(size=size) as pilot:
            yield app, pilot
            with anyio.CancelScope(shield=True):
                await session.shutdown()
        tg.cancel_scope.cancel()


async def until(pilot: Any, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        await pilot.pause(0.02)


async def type_and_enter(pilot: Any, text: str) -> None:
    app = pilot.app
    app.editor.load_text(text)
    await pilot.press("enter")


def idle(app: Any) -> bool:
    return not app.session.is_streaming


def roles_texts(app: Any) -> list[tuple[str, str]]:
    from pi_rpc.ai.transcript import content_text_concat

    return [
        (m["role"], content_text_concat(m.get("content"))) for m in app.session.get_messages() if m["role"] != "system"
    ]


class Tmux:
    """``python -m pi_rpc`` in a detached tmux session (a real terminal, 80x24 by default).

    Each terminal has its own tmux server (``-L``): on one shared server, a session created by a
    parallel test with another ``-x``/``-y`` changes the server's default size, and tmux then
    resizes every detached window to it, so a test saw its 100x30 window turn into 80x24 under
    the app. ``-f /dev/null`` keeps the user's tmux configuration out."""

    def __init__(
        self,
        tmp_path: Path,
        shell_command: str,
        extra_env: dict[str, str] | None = None,
        size: tuple[int, int] = (80, 24),
    ) -> None:
        self.name = f"pi-test-{uuid.uuid4().hex[:8]}"
        self.tmux = ["tmux", "-L", self.name, "-f", "/dev/null"]
        env = _env(tmp_path)
        env.update(extra_env or {})
        keep = ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_FAUX_SCRIPT", "PYTHONPATH", "PATH", *(extra_env or {}))
        env_args = [arg for key in keep for arg in ("-e", f"{key}={env[key]}")]
        cwd = tmp_path / "cwd"
        cwd.mkdir(exist_ok=True)
        geometry = ["-x", str(size[0]), "-y", str(size[1])]
        # tmux puts COLUMNS/LINES of its client (80x24 when that client has no terminal, as under
        # pytest) into the pane's environment; Textual prefers them to the terminal's real size,
        # so the app drew 80x24 in a 100x30 pane and kept that size across resizes.
        shell_command = f"unset COLUMNS LINES; {shell_command}"
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-s", self.name, *geometry, "-c", str(cwd), *env_args, shell_command],
            check=True,
        )

    def screen(self, escapes: bool = False) -> str:
        flags = ["-e"] if escapes else []
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", *flags, "-t", self.name], capture_output=True, text=True
        ).stdout

    def wait_for(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not on screen:\n{self.screen()}")

    def type(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "-l", text], check=True)
        time.sleep(0.3)
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "Enter"], check=True)

    def kill(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)

    def history(self) -> str:
        """The whole pane: the scrollback and the screen."""
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-J", "-S", "-", "-t", self.name], capture_output=True, text=True
        ).stdout

    def resize(self, width: int, height: int) -> None:
        subprocess.run([*self.tmux, "resize-window", "-t", self.name, "-x", str(width), "-y", str(height)], check=True)

    def pid(self) -> int:
        """The pane's first process (the program itself when the command ``exec``s it)."""
        out = subprocess.run(
            [*self.tmux, "display-message", "-p", "-t", self.name, "#{pane_pid}"], capture_output=True, text=True
        )
        return int(out.stdout.strip())

    def keys(self, *names: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, *names], check=True)
