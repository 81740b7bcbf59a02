"""Helpers for the interactive-mode tests: ``running_app`` opens a real ``AgentSession`` (faux
model, options as the command line builds them) and runs ``PiApp`` headless at 80x24 under
Textual's pilot; ``until`` polls a condition while the app runs."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from pi_rpc.runtime.factory import build_runtime_options
from pi_rpc.runtime.sdk import build_cli_args
from pi_rpc.runtime.session import AgentSession


@asynccontextmanager
async def running_app(cwd: Path, **cli: Any) -> AsyncIterator[tuple[Any, Any]]:
    from pi_rpc.modes.interactive.app import PiApp

    cli.setdefault("model", "faux/faux-1")
    options = build_runtime_options(build_cli_args(**cli), cwd=str(cwd))
    session = AgentSession(options)
    async with anyio.create_task_group() as tg:
        session.bind_task_group(tg)
        await session.load_extensions()
        app = PiApp(session)
        async with app.run_test(size=(80, 24)) as pilot:
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
