"""A session another process holds (issue 25): two REAL ``--mode acp`` processes driven by the
official ACP client SDK, as an editor with two chats. The second chat's ``session/list`` shows the
first chat's session; ``session/load`` (and ``session/resume``) of it replays its history and
continues it in a fork — a new file whose header's ``parentSession`` is the original — said in the
result's ``_meta`` and as a visible message, while the first process keeps writing its own file
intact. Both on the JSONL files and on a session database (``store_kind``), where the files
are ``sqlite:<db>#<id>`` locators."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.session_stores import StoreKind, stored_lines

pytestmark = pytest.mark.anyio


def _entries(path: str) -> list[dict[str, Any]]:
    return stored_lines(path)  # every line parses: no torn or interleaved write


def _user_texts(entries: list[dict[str, Any]]) -> list[str]:
    out = []
    for entry in entries:
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            out.append("".join(b.get("text", "") for b in message["content"] if b.get("type") == "text"))
    return out


async def test_a_held_session_loads_its_history_and_continues_in_a_fork(acp_agent, store_kind: StoreKind):
    async with acp_agent(*store_kind.cli_args()) as first:
        await first.initialize()
        session = await first.new_session()
        session_id = session.session_id
        assert (await first.prompt(session_id, "question in the first chat")).stop_reason == "end_turn"

        async with acp_agent(*store_kind.cli_args()) as second:
            await second.initialize()
            listed = await second.conn.list_sessions(cwd=str(second.cwd))
            assert session_id in [s.session_id for s in listed.sessions]

            loaded = await second.conn.load_session(cwd=str(second.cwd), session_id=session_id, mcp_servers=[])
            forked = loaded.field_meta["pi"]["forked"]
            original_file, fork_file = forked["originalSessionFile"], forked["sessionFile"]
            assert forked["reason"] == "locked" and forked["originalSessionId"] == session_id
            assert forked["holderPid"] == first.process.pid
            assert fork_file != original_file and forked["sessionId"] != session_id
            header = _entries(fork_file)[0]
            assert header["type"] == "session" and header["id"] == forked["sessionId"]
            assert header["parentSession"] == original_file
            assert _entries(original_file)[0]["id"] == session_id

            # The history was replayed before the result, then the notice is visible.
            assert second.client.text("user_message_chunk") == "question in the first chat"
            assert "You said: question in the first chat" in second.client.text()
            await second.client.when(lambda u: "another pi process" in (getattr(u.content, "text", "") or "")).wait()
            notice = next(
                m for m in second.raw if m.get("method") == "session/update" and "another pi process" in json.dumps(m)
            )
            assert notice["params"]["sessionId"] == session_id
            assert notice["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            result_at = next(i for i, m in enumerate(second.raw) if "result" in m and "configOptions" in m["result"])
            assert second.raw.index(notice) > result_at
            assert fork_file in notice["params"]["update"]["content"]["text"]

            # The second chat goes on under the id it knows; its turns go to the fork.
            assert (await second.prompt(session_id, "question in the second chat")).stop_reason == "end_turn"
            # The first chat goes on writing its own file.
            assert (await first.prompt(session_id, "another question in the first chat")).stop_reason == "end_turn"

            # session/resume of the same id continues the same fork (no second copy).
            resumed = await second.conn.resume_session(cwd=str(second.cwd), session_id=session_id, mcp_servers=[])
            assert resumed.field_meta["pi"]["forked"]["sessionFile"] == fork_file
            assert (await second.prompt(session_id, "after resume")).stop_reason == "end_turn"

    original = _entries(original_file)
    fork = _entries(fork_file)
    assert _user_texts(original) == ["question in the first chat", "another question in the first chat"]
    assert _user_texts(fork) == ["question in the first chat", "question in the second chat", "after resume"]
    assert [e["id"] for e in fork[1:3]] == [e["id"] for e in original[1:3]]  # the copied history
    assert original_file.startswith("sqlite:") == store_kind.sqlite


async def test_a_session_nobody_holds_still_loads_in_place(acp_agent, store_kind: StoreKind):
    async with acp_agent(*store_kind.cli_args()) as first:
        await first.initialize()
        session = await first.new_session()
        await first.prompt(session.session_id, "hello")
    async with acp_agent(*store_kind.cli_args()) as second:
        await second.initialize()
        loaded = await second.conn.load_session(cwd=str(second.cwd), session_id=session.session_id, mcp_servers=[])
        assert loaded.field_meta is None
        assert not [m for m in second.raw if "another pi process" in json.dumps(m)]
        files = list((second.agent_dir / "sessions").rglob("*.jsonl"))
        if store_kind.database:
            assert files == []
            listed = await second.conn.list_sessions(cwd=str(second.cwd))
            assert [s.session_id for s in listed.sessions] == [session.session_id]
        else:
            assert len(files) == 1
