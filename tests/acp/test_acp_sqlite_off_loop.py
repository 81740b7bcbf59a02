"""ACP sessions on a session database another process holds the write lock of (issue 31 item
5, the ACP side): opening a session for ``session/fork`` (which writes the copy at once), like
``session/load`` (whose format migration rewrites an old session), happens off the event loop,
so the agent keeps answering other requests while it waits for the lock, and the fork is
written once the lock is released. The REAL ``--mode acp`` process, driven by the official ACP
client SDK; the lock holder is a ``sqlite3`` connection of this test holding ``BEGIN
IMMEDIATE``. Only order is asserted."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.anyio


async def test_a_fork_waits_for_the_lock_without_stalling_the_agent(acp_agent, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    async with acp_agent("--session-store", "sqlite", "--session-db", str(db)) as run:
        await run.initialize()
        session = await run.new_session()
        await run.prompt(session.session_id, "original")
        order: list[str] = []
        forked: dict[str, Any] = {}
        holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        try:

            async def fork() -> None:
                forked["result"] = await run.conn.fork_session(
                    cwd=str(run.cwd), session_id=session.session_id, mcp_servers=[]
                )
                order.append("fork")

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(fork)
                    await anyio.sleep(0.5)  # the agent takes the fork up (before the fix: blocks on it)
                    listed = await run.conn.list_sessions(cwd=str(run.cwd))
                    order.append("list")
                    assert session.session_id in [s.session_id for s in listed.sessions]
                    assert order == ["list"]  # answered while the fork waits for the lock
                    holder.execute("COMMIT")
        finally:
            if holder.in_transaction:
                holder.execute("ROLLBACK")
            holder.close()
        assert order == ["list", "fork"]
        fork_id = forked["result"].session_id
        assert fork_id != session.session_id
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            lines = "".join(
                line for (line,) in conn.execute("SELECT line FROM entries WHERE session_id = ?", (fork_id,))
            )
        finally:
            conn.close()
        assert "original" in lines  # the copy is stored
        assert (await run.prompt(fork_id, "in the fork")).stop_reason == "end_turn"
