"""Helpers for the ``pi attach`` tests: ``attached_app`` runs the interactive app (Textual's
pilot) over a ``RemoteSession`` attached to a real listening server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio


@asynccontextmanager
async def attached_app(
    address: str,
    agent_dir: Path,
    cwd: Path,
    handle: str = "default",
    *,
    reopen: Callable[[], Awaitable[Any]] | None = None,
    reconnect_seconds: float = 30.0,
) -> AsyncIterator[Any]:
    from pi_rpc.config.settings import Settings
    from pi_rpc.modes.attach.connection import Connection
    from pi_rpc.modes.attach.remote_session import RemoteOptions, RemoteSession
    from pi_rpc.modes.interactive.app import PiApp

    connection = await Connection.open(address)
    settings = Settings.load(agent_dir=agent_dir, cwd=cwd)
    remote = RemoteSession(
        connection,
        handle,
        RemoteOptions(agent_dir, str(cwd)),
        settings,
        reopen=reopen,
        reconnect_seconds=reconnect_seconds,
    )
    async with anyio.create_task_group() as tg:
        await remote.start(tg)
        app = PiApp(remote)  # type: ignore[arg-type]
        try:
            async with app.run_test(size=(100, 30)) as pilot:
                yield app, pilot, remote
        finally:
            with anyio.CancelScope(shield=True):
                await remote.shutdown()
            tg.cancel_scope.cancel()


def notices(app: Any) -> list[str]:
    from pi_rpc.modes.interactive.transcript import Notice

    return [n.text for n in app.query(Notice)]


def texts(app: Any, kind: str) -> list[str]:
    from pi_rpc.modes.interactive import transcript

    return [w.text for w in app.query(getattr(transcript, kind))]
