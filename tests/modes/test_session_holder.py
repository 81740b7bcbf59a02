"""The session holder (``pi_rpc.runtime.holder``), in process on the faux model: each replacement
(new, fork, clone, switch) tells the holder's subscribers once, with the session now current; a
cancelled one tells nobody; each replacement puts a fresh session in place and disposes the old
one; event listeners subscribed through the holder keep receiving; the new session's parts work
on the new store and write to it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.runtime import open_session

CANCEL_SWITCH = """
def setup(pi):
    pi.on("session_before_switch", lambda event, ctx: {"cancel": True})
"""


def _entries(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


@pytest.mark.anyio
async def test_each_replacement_notifies_once_and_parts_follow_the_store(isolated_env, tmp_path, faux_script):
    script = faux_script([{"text": "one"}, {"text": "two"}])
    async with open_session(
        cwd=tmp_path, model="faux/faux-1", faux_script=script, session_dir=str(tmp_path / "s")
    ) as pi:
        holder = pi.agent_session.holder
        told: list[Any] = []
        holder.on_replaced(told.append)
        seen: list[str] = []
        pi.subscribe(lambda event: seen.append(event["type"]))
        await pi.prompt_and_wait("first")
        first_file = pi.session_file
        assert first_file is not None
        first = pi.agent_session
        compaction = first.compaction

        assert (await pi.new_session())["cancelled"] is False
        assert told == [holder.current] and holder.current is not first  # a fresh session
        assert pi.agent_session is holder.current and pi.agent_session.compaction is not compaction
        # The old session is disposed: what it would still emit reaches nobody.
        seen.clear()
        await first.emit({"type": "probe"})
        assert seen == [] and first.holder is holder
        # A model change goes to the new session's file, through the rebuilt part.
        await pi.set_thinking_level("high")
        second_file = pi.session_file
        assert second_file is not None and second_file != first_file
        assert not any(e.get("thinkingLevel") == "high" for e in _entries(first_file))

        assert (await pi.switch_session(first_file))["cancelled"] is False
        assert (await pi.clone())["cancelled"] is False
        entry = pi.get_fork_messages()[0]["entryId"]
        assert (await pi.fork(entry))["text"] == "first"
        assert len(told) == 4 and told[-1] is holder.current
        assert len({id(session) for session in [first, *told]}) == 5  # every replacement a new object

        # The listener subscribed before the replacements still gets the current session's events.
        seen.clear()
        await pi.prompt_and_wait("again")
        assert seen[0] == "agent_start" and seen[-1] == "agent_settled"


@pytest.mark.anyio
async def test_a_cancelled_replacement_notifies_nobody(isolated_env, tmp_path):
    extension = tmp_path / "cancel.py"
    extension.write_text(CANCEL_SWITCH)
    async with open_session(cwd=tmp_path, model="faux/faux-1", extensions=[str(extension)]) as pi:
        told: list[Any] = []
        pi.agent_session.holder.on_replaced(told.append)
        before = pi.session_id
        assert (await pi.new_session())["cancelled"] is True
        assert told == [] and pi.session_id == before


FRESH_COMMAND = """
def setup(pi):
    async def fresh(args, ctx):
        await ctx.new_session()

    pi.register_command("fresh", {"description": "start over", "handler": fresh})
"""


@pytest.mark.anyio
async def test_interactive_follows_a_replacement_an_extension_makes(isolated_env, tmp_path, faux_script):
    # The app subscribes to the holder: after an extension's ctx.new_session the transcript
    # shows the new (empty) session, not the old one's messages (upstream's rebindSession).
    from pi_rpc.modes.interactive.transcript import AssistantText, UserMessage

    from .interactive_support import idle, roles_texts, running_app, type_and_enter, until

    def shown() -> list[str]:
        return [w.text for w in app.query(UserMessage)] + [w.text for w in app.query(AssistantText)]

    extension = tmp_path / "fresh.py"
    extension.write_text(FRESH_COMMAND)
    script = faux_script([{"text": "old reply"}])
    async with running_app(tmp_path, faux_script=script, extensions=[str(extension)]) as (app, pilot):
        await type_and_enter(pilot, "hello")
        await until(pilot, lambda: idle(app) and ("assistant", "old reply") in roles_texts(app))
        await until(pilot, lambda: "old reply" in shown())
        before = app.session.session.session_id
        await type_and_enter(pilot, "/fresh")
        await until(pilot, lambda: app.session.session.session_id != before and roles_texts(app) == [])
        await until(pilot, lambda: "old reply" not in shown() and "hello" not in shown())
