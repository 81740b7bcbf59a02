"""The dispatcher and the event stream never raise: a handler bug, a response or event that
cannot be serialised, a validator that crashes — each becomes one ``success:false`` response
with the command's id (or one dropped event and a stderr line), and serving goes on."""

from __future__ import annotations

from typing import Any

import pytest

from pi_rpc.modes.rpc import dispatch as dispatch_module
from pi_rpc.modes.rpc.backend import ServerHandle
from pi_rpc.modes.rpc.memory import MemoryTransport
from pi_rpc.modes.rpc.registry import CommandContext, HandlerRegistry

pytestmark = pytest.mark.anyio


class _BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


class BuggyBackend:
    """Each command is a different way to fail."""

    def register(self, registry: HandlerRegistry) -> None:
        registry.register("get_state", self.circular_result)
        registry.register("get_messages", self.broken_exception)
        registry.register("set_session_name", self.circular_event)
        registry.register("clear_queue", self.key_error)
        registry.register("get_commands", self.ok)

    async def start(self, server: ServerHandle) -> None:
        pass

    async def aclose(self) -> None:
        pass

    async def circular_result(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        loop: dict[str, Any] = {}
        loop["self"] = loop
        return loop

    async def broken_exception(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        raise _BadStr()

    async def circular_event(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        loop: list[Any] = []
        loop.append(loop)
        await ctx.emit({"type": "session_info_changed", "name": loop})
        await ctx.emit({"type": "queue_update", "steering": [], "followUp": []})
        return None

    async def key_error(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return {}["missing"]

    async def ok(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return {"commands": []}


async def test_every_failure_is_one_response_with_the_id(capsys: pytest.CaptureFixture[str]) -> None:
    async with MemoryTransport(BuggyBackend()) as t:
        for cid, ctype in [
            (1, "get_state"),
            (2, "get_messages"),
            (3, "set_session_name"),
            (4, "clear_queue"),
            (5, "get_commands"),
        ]:
            cmd: dict[str, Any] = {"id": cid, "type": ctype}
            if ctype == "set_session_name":
                cmd["name"] = "x"
            await t.send(cmd)
        for cid in range(1, 6):
            await t.response(cid)
    by_id: dict[int, list[dict[str, Any]]] = {}
    for record in t.records:
        if record.get("type") == "response":
            by_id.setdefault(record["id"], []).append(record)
    assert {cid: len(rs) for cid, rs in by_id.items()} == {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
    assert by_id[1][0] == {
        "id": 1,
        "type": "response",
        "command": "get_state",
        "success": False,
        "error": "Failed to write the response: Converting circular structure to JSON",
    }
    assert by_id[2][0]["success"] is False and by_id[2][0]["error"] == "_BadStr"
    assert by_id[3][0]["success"] is True  # its unserialisable event was dropped, not the command
    assert by_id[4][0] == {
        "id": 4,
        "type": "response",
        "command": "clear_queue",
        "success": False,
        "error": "'missing'",
    }
    assert by_id[5][0]["success"] is True
    events = [r["type"] for r in t.records if r.get("type") != "response"]
    assert events == ["queue_update"]  # the circular one is gone, the next one kept
    err = capsys.readouterr().err
    assert "dropped a session_info_changed record that could not be written" in err


async def test_a_crashing_validator_is_an_error_response(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(ctype: str, cmd: dict[str, Any]) -> str | None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(dispatch_module, "validate_command", explode)
    async with MemoryTransport(BuggyBackend()) as t:
        await t.send({"id": "v", "type": "get_commands"})
        resp = await t.response("v")
    assert resp == {
        "id": "v",
        "type": "response",
        "command": "get_commands",
        "success": False,
        "error": 'Invalid command "get_commands": maximum recursion depth exceeded',
    }


async def test_a_sink_that_cannot_encode_gets_the_fallback_response() -> None:
    async with MemoryTransport(BuggyBackend()) as t:
        real_send = t.sink.send

        async def picky_send(record: Any) -> None:
            if isinstance(record, dict) and record.get("success") is True:
                raise TypeError("cannot encode this one")
            await real_send(record)

        t.sink.send = picky_send  # type: ignore[method-assign]
        await t.send({"id": "e", "type": "get_commands"})
        resp = await t.response("e")
        await t.send({"id": "after", "type": "get_state"})
        await t.response("after")
    assert resp == {
        "id": "e",
        "type": "response",
        "command": "get_commands",
        "success": False,
        "error": "Failed to write the response: cannot encode this one",
    }
