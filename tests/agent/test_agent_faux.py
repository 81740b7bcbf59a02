"""The loop over the real ``pi_rpc.ai.stream`` entry point with the offline ``faux`` provider."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from pi_rpc.agent import Agent

from .agent_helpers import EchoTool, Recorder

faux = pytest.importorskip("pi_rpc.ai.providers.faux")

pytestmark = pytest.mark.anyio


@pytest.fixture
def script(tmp_path: Path) -> Iterator[Any]:
    def use(turns: list[dict[str, Any]]) -> None:
        path = tmp_path / "script.json"
        path.write_bytes(orjson.dumps(turns))
        faux.reset_faux()
        faux.set_faux_script(str(path))

    yield use
    faux.set_faux_script(None)
    faux.reset_faux()


def sig(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in events:
        t = e["type"]
        if t == "message_update":
            continue  # chunking is the provider's business
        if t in ("message_start", "message_end"):
            m = e["message"]
            out.append(f"{t}:{m['role']}" + (f":{m['stopReason']}" if m["role"] == "assistant" else ""))
        elif t.startswith("tool_execution_"):
            out.append(f"{t}:{e['toolCallId']}")
        else:
            out.append(t)
    return out


async def test_faux_tool_call_then_text(script: Any) -> None:
    script(
        [
            {"toolCalls": [{"name": "echo", "arguments": {"text": "hi"}, "id": "call_1"}]},
            {"text": "The tool said hi."},
        ]
    )
    agent = Agent(model=copy.deepcopy(faux.FAUX_MODELS[0]), tools=[EchoTool()], declare_tools=False)
    rec = Recorder()
    agent.subscribe(rec)
    with anyio.fail_after(20):
        await agent.prompt("Run echo")
    assert sig(rec.events) == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant:pending",
        "message_end:assistant:toolUse",
        "tool_execution_start:call_1",
        "tool_execution_update:call_1",
        "tool_execution_end:call_1",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
        "turn_start",
        "message_start:assistant:pending",
        "message_end:assistant:stop",
        "turn_end",
        "agent_end",
    ]
    final = rec.of("message_end")[-1]["message"]
    assert final["content"][-1]["text"] == "The tool said hi." and final["thinkingLevel"] == "off"
    deltas = "".join(
        e["assistantMessageEvent"]["delta"]
        for e in rec.of("message_update")
        if e["assistantMessageEvent"]["type"] == "text_delta"
    )
    assert deltas == "The tool said hi."


async def test_faux_abort_mid_stream(script: Any) -> None:
    script([{"text": "word " * 200, "delayMs": 5, "chunkChars": 5}])
    agent = Agent(model=copy.deepcopy(faux.FAUX_MODELS[0]), declare_tools=False)
    rec = Recorder()
    agent.subscribe(rec)

    async def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "message_update" and event["assistantMessageEvent"]["type"] == "text_delta":
            agent.abort()

    agent.subscribe(on_event)
    with anyio.fail_after(20):
        await agent.prompt("talk")
    assert sig(rec.events)[-3:] == ["message_end:assistant:aborted", "turn_end", "agent_end"]
    final = rec.of("message_end")[-1]["message"]
    assert final["stopReason"] == "aborted" and final["errorMessage"].startswith("Request was aborted")
    assert len(final["content"][0]["text"]) < len("word " * 200)
