"""RpcServer in-process over real pipes: EOF answers in-flight commands, then closes."""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest

from pi_rpc.modes.rpc.backend import InMemoryBackend
from pi_rpc.modes.rpc.registry import CommandContext, HandlerRegistry
from pi_rpc.modes.rpc.server import RpcServer

pytestmark = pytest.mark.anyio


class DelayBackend(InMemoryBackend):
    def register(self, registry: HandlerRegistry) -> None:
        super().register(registry)
        registry.register("compact", self.compact)
        self.events_after_close: list[Any] = []

    async def compact(self, ctx: CommandContext, cmd: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep(0.3)
        await ctx.emit({"type": "compaction_end", "reason": "manual", "aborted": False, "willRetry": False})
        return {"summary": "s", "firstKeptEntryId": "e", "tokensBefore": 1}

    async def aclose(self) -> None:
        await super().aclose()
        # Events are already off when the backend is closed.
        await self.server.events.emit({"type": "agent_settled", "aborted": False})


async def test_eof_waits_for_in_flight_commands() -> None:
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    backend = DelayBackend()
    server = RpcServer(backend, input_fd=in_r, output_fd=out_w, handle_signals=False)
    os.write(in_w, b'{"id":"slow","type":"compact"}\n{"id":"fast","type":"get_state"}')
    os.close(in_w)
    try:
        code = await server.serve()
    finally:
        os.close(in_r)
        os.close(out_w)
    data = b""
    while chunk := os.read(out_r, 1 << 16):
        data += chunk
    os.close(out_r)
    records = [json.loads(line) for line in data.split(b"\n") if line]
    assert code == 0
    assert [r.get("id", r["type"]) for r in records] == ["fast", "compaction_end", "slow"]
    assert records[-1]["success"] is True
    assert backend.closed
    assert all(r["type"] != "agent_settled" for r in records)
