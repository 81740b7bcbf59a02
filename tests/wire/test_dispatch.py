"""Dispatcher over the in-memory transport: envelope rules, error texts, concurrency."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from pi_rpc.modes.rpc.backend import InMemoryBackend, ServerHandle
from pi_rpc.modes.rpc.memory import MemoryTransport
from pi_rpc.modes.rpc.registry import JSON_NULL, CommandContext, CommandError, HandlerRegistry
from pi_rpc.modes.rpc.validation import _FAST_SPECS, validate_command, validate_with_model
from pi_rpc.modes.wire.protocol.names import COMMAND_TYPES, CONTROL_COMMANDS
from pi_rpc.session.ids import uuid7

pytestmark = pytest.mark.anyio


def responses(t: MemoryTransport) -> list[dict[str, Any]]:
    return [r for r in t.records if r.get("type") == "response"]


async def test_get_state_with_nothing_configured() -> None:
    async with MemoryTransport(InMemoryBackend()) as t:
        await t.send({"id": "s1", "type": "get_state"})
        resp = await t.response("s1")
    assert list(resp) == ["id", "type", "command", "success", "data"]
    data = resp["data"]
    assert data["model"] == {
        "id": "unknown",
        "name": "unknown",
        "api": "unknown",
        "provider": "unknown",
        "baseUrl": "",
        "reasoning": False,
        "input": [],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 0,
        "maxTokens": 0,
    }
    assert list(data) == [
        "model",
        "thinkingLevel",
        "isStreaming",
        "isCompacting",
        "steeringMode",
        "followUpMode",
        "sessionId",
        "autoCompactionEnabled",
        "messageCount",
        "pendingMessageCount",
    ]
    assert data["thinkingLevel"] == "off" and data["steeringMode"] == "one-at-a-time"
    assert "sessionFile" not in data and "sessionName" not in data


async def test_ids_echoed_verbatim_any_type() -> None:
    ids: list[Any] = [7, "x", {"a": [1]}, [1, 2], None, True, 1.5]
    async with MemoryTransport(InMemoryBackend()) as t:
        for cid in ids:
            await t.send({"id": cid, "type": "get_state"})
        await t.send({"type": "get_state"})
    got = responses(t)
    assert [r["id"] for r in got if "id" in r] == ids
    assert sum(1 for r in got if "id" not in r) == 1


async def test_set_session_name_event_before_response_and_normalised() -> None:
    async with MemoryTransport(InMemoryBackend()) as t:
        await t.send({"id": 1, "type": "set_session_name", "name": "  My\r\n\nSession \u2028x  "})
        await t.response(1)
        await t.send({"id": 2, "type": "get_state"})
        state = await t.response(2)
        await t.send({"id": 3, "type": "set_session_name", "name": " \n "})
        err = await t.response(3)
    assert t.records[0] == {"type": "session_info_changed", "name": "My Session \u2028x"}
    assert t.records[1] == {"id": 1, "type": "response", "command": "set_session_name", "success": True}
    assert state["data"]["sessionName"] == "My Session \u2028x"
    assert err == {
        "id": 3,
        "type": "response",
        "command": "set_session_name",
        "success": False,
        "error": "Session name cannot be empty",
    }


async def test_non_objects_and_missing_type() -> None:
    async with MemoryTransport(InMemoryBackend()) as t:
        for value in (None, 42, [], "s", True):
            await t.send(value)
        await t.send({})
        await t.send({"id": "nt"})
        await t.send({"id": "tn", "type": None})
        await t.send({"id": "t5", "type": 5})
    expected = {"type": "response", "success": False, "error": "Unknown command: undefined"}
    got = responses(t)
    assert got[:6] == [expected] * 6
    assert got[6] == {"id": "nt", **expected}
    assert got[7] == {
        "id": "tn",
        "type": "response",
        "command": None,
        "success": False,
        "error": "Unknown command: null",
    }
    assert got[8] == {"id": "t5", "type": "response", "command": 5, "success": False, "error": "Unknown command: 5"}


async def test_unknown_type_and_not_implemented() -> None:
    async with MemoryTransport(InMemoryBackend()) as t:
        await t.send({"id": "u1", "type": "no_such_command"})
        await t.send({"id": "p1", "type": "prompt", "message": "hi"})
    got = {r["id"]: r for r in responses(t)}
    assert got["u1"] == {
        "id": "u1",
        "type": "response",
        "command": "no_such_command",
        "success": False,
        "error": "Unknown command: no_such_command",
    }
    assert got["p1"]["error"] == "Not implemented yet: prompt" and got["p1"]["success"] is False


async def test_every_declared_command_answers_exactly_once_never_fake_success() -> None:
    minimal = {
        "prompt": {"message": "m"},
        "steer": {"message": "m"},
        "follow_up": {"message": "m"},
        "set_model": {"provider": "p", "modelId": "m"},
        "set_thinking_level": {"level": "off"},
        "set_steering_mode": {"mode": "all"},
        "set_follow_up_mode": {"mode": "all"},
        "set_auto_compaction": {"enabled": True},
        "set_auto_retry": {"enabled": True},
        "bash": {"command": "true"},
        "switch_session": {"sessionPath": "/x"},
        "fork": {"entryId": "e"},
        "set_session_name": {"name": "n"},
    }
    async with MemoryTransport(InMemoryBackend()) as t:
        for i, ctype in enumerate(COMMAND_TYPES):
            await t.send({"id": i, "type": ctype, **minimal.get(ctype, {})})
        await t.send({"id": "ui", "type": "extension_ui_response", "value": "x"})
    got = responses(t)
    assert sorted(r["id"] for r in got) == list(range(len(COMMAND_TYPES)))
    for r in got:
        ctype = COMMAND_TYPES[r["id"]]
        assert r["command"] == ctype
        if ctype not in ("get_state", "set_session_name"):
            assert r == {
                "id": r["id"],
                "type": "response",
                "command": ctype,
                "success": False,
                "error": f"Not implemented yet: {ctype}",
            }


async def test_validation_errors_name_the_field_and_echo_id() -> None:
    async with MemoryTransport(InMemoryBackend()) as t:
        await t.send({"id": "v1", "type": "set_session_name", "name": 5})
        await t.send({"id": "v2", "type": "prompt"})
        await t.send({"id": "v3", "type": "prompt", "message": "x", "images": [{"type": "image", "data": "x"}]})
        await t.send({"id": "v4", "type": "set_auto_retry", "enabled": "yes"})
        await t.send({"id": "v5", "type": "prompt", "message": "x", "images": "nope"})
    got = {r["id"]: r for r in responses(t)}
    assert got["v1"]["error"] == 'Invalid command "set_session_name": field "name": expected string, got number'
    assert got["v1"]["command"] == "set_session_name"
    assert got["v2"]["error"] == 'Invalid command "prompt": field "message": expected string, got undefined'
    assert got["v3"]["error"] == 'Invalid command "prompt": field "images[0].mimeType": expected string, got undefined'
    assert got["v4"]["error"] == 'Invalid command "set_auto_retry": field "enabled": expected boolean, got string'
    assert got["v5"]["error"] == 'Invalid command "prompt": field "images": expected array, got string'


def test_fast_validation_never_accepts_what_pydantic_rejects() -> None:
    samples: list[Any] = ["s", "", 0, 1.5, True, False, None, [], {}, ["s"]]
    for ctype, spec in _FAST_SPECS.items():
        for key, _kind, _required in spec:
            for value in samples:
                obj = {"type": ctype, **{k: ("v" if kind is str else True) for k, kind, req in spec if req}}
                obj[key] = value
                fast = validate_command(ctype, obj)
                slow = validate_with_model(ctype, obj)
                assert (fast is None) == (slow is None), (ctype, key, value, fast, slow)
                assert fast == slow


async def test_parse_failures_and_frame_cap_via_bytes() -> None:
    async with MemoryTransport(InMemoryBackend(), max_frame_bytes=64) as t:
        await t.send_bytes(b"\nnot json\n" + b"x" * 100 + b'\n{"id":1,"type":"get_state"}')
        await t.send_bytes(b"", eof=True)
        await t.response(1)
    got = responses(t)
    assert got[0] == {
        "type": "response",
        "command": "parse",
        "success": False,
        "error": "Failed to parse command: Unexpected end of JSON input",
    }
    assert got[1]["error"] == "Failed to parse command: Unexpected token 'o', \"not json\" is not valid JSON"
    assert got[2]["command"] == "parse" and "frame too large" in got[2]["error"] and "64" in got[2]["error"]
    assert got[3]["id"] == 1 and got[3]["success"] is True


async def test_extension_ui_response_never_answered() -> None:
    backend = InMemoryBackend()
    async with MemoryTransport(backend) as t:
        await t.send({"id": "dlg", "type": "extension_ui_response", "value": "x"})
        await t.send({"id": "after", "type": "get_state"})
        await t.response("after")
    assert [r["id"] for r in responses(t)] == ["after"]
    assert backend.ui_responses == [{"id": "dlg", "type": "extension_ui_response", "value": "x"}]


class SlowBackend(InMemoryBackend):
    """A prompt that blocks until abort; control commands must overtake it."""

    def register(self, registry: HandlerRegistry) -> None:
        super().register(registry)
        self.release = anyio.Event()
        registry.register("prompt", self.prompt)
        registry.register("abort", self.abort)
        registry.register("cycle_model", self.cycle_model)
        registry.register("bash", self.bash)

    async def prompt(self, ctx: CommandContext, cmd: dict[str, Any]) -> dict[str, Any]:
        await self.release.wait()
        return {"disposition": "started"}

    async def abort(self, ctx: CommandContext, cmd: dict[str, Any]) -> None:
        self.release.set()

    async def cycle_model(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return JSON_NULL

    async def bash(self, ctx: CommandContext, cmd: dict[str, Any]) -> dict[str, Any]:
        await ctx.emit(ctx.with_id({"type": "bash_execution_update", "delta": "hi\n"}))
        if cmd["command"] == "fail":
            raise CommandError("boom")
        if cmd["command"] == "crash":
            raise RuntimeError("unexpected")
        return {"output": "hi\n", "exitCode": 0, "cancelled": False, "truncated": False}


async def test_commands_run_concurrently_and_correlate_by_id() -> None:
    async with MemoryTransport(SlowBackend()) as t:
        await t.send({"id": "p", "type": "prompt", "message": "x"})
        await t.send({"id": "s", "type": "get_state"})
        await t.response("s")
        assert [r["id"] for r in responses(t)] == ["s"]  # prompt still running
        await t.send({"id": "a", "type": "abort"})
        await t.response("p")
        await t.response("a")
    assert {r["id"] for r in responses(t)} == {"p", "s", "a"}
    assert "abort" in CONTROL_COMMANDS


async def test_data_null_errors_and_event_ids() -> None:
    async with MemoryTransport(SlowBackend()) as t:
        await t.send({"id": "c", "type": "cycle_model"})
        await t.send({"id": "b1", "type": "bash", "command": "ok"})
        await t.send({"id": "b2", "type": "bash", "command": "fail"})
        await t.send({"type": "bash", "command": "crash"})
        await t.response("b2")
    got = {r.get("id"): r for r in responses(t)}
    assert got["c"] == {"id": "c", "type": "response", "command": "cycle_model", "success": True, "data": None}
    assert got["b1"]["data"]["exitCode"] == 0
    assert got["b2"] == {"id": "b2", "type": "response", "command": "bash", "success": False, "error": "boom"}
    assert got[None]["error"] == "unexpected"
    updates = [r for r in t.records if r["type"] == "bash_execution_update"]
    assert {"type": "bash_execution_update", "id": "b1", "delta": "hi\n"} in updates
    assert {"type": "bash_execution_update", "delta": "hi\n"} in updates  # no id -> no id key
    # the event precedes its command's response
    first_b1 = next(r for r in t.records if r.get("id") == "b1")
    assert first_b1["type"] == "bash_execution_update"


def test_uuid7_shape() -> None:
    value = uuid7()
    assert len(value) == 36 and value[14] == "7" and value[19] in "89ab"
    assert uuid7() != value


async def test_server_handle_task_group_available() -> None:
    started: list[ServerHandle] = []

    class B(InMemoryBackend):
        async def start(self, server: ServerHandle) -> None:
            started.append(server)

    async with MemoryTransport(B()):
        pass
    assert started and started[0].events is not None
