"""Test doubles for the agent loop: a scripted stream function that emits realistic pi-ai
event dicts (shapes as in tests/fixtures/pi-oracle/c_tool_bash.jsonl), simple tools, a bash-like
subprocess tool, and an event recorder with a compact signature view."""

from __future__ import annotations

import os
import signal as os_signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson

from pi_rpc.agent.types import ToolError
from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import Context, StreamOptions, empty_usage

MODEL: dict[str, Any] = {
    "id": "fake-model",
    "name": "Fake Model",
    "api": "openai-completions",
    "provider": "fake",
    "baseUrl": "http://127.0.0.1:1/v1",
    "reasoning": False,
    "input": ["text"],
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    "contextWindow": 128000,
    "maxTokens": 4096,
}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


# --------------------------------------------------------------------------- scripted stream


@dataclass
class Turn:
    """One scripted model answer.

    blocks: ("text", "..."), ("thinking", "..."), ("tool", id, name, args)
    error_before_start: an HTTP-like failure: no start event, only an error event.
    gate: an anyio.Event the stream waits on after its first block delta (abortably).
    hang: after the first delta, wait until aborted.
    """

    blocks: list[tuple[Any, ...]] = field(default_factory=list)
    error_before_start: str | None = None
    gate: anyio.Event | None = None
    hang: bool = False
    stop_reason: str | None = None
    error_message: str | None = None  # stopReason "error" after the blocks


def text(t: str) -> Turn:
    return Turn(blocks=[("text", t)])


def tools(*calls: tuple[str, str, dict[str, Any]], lead: str | None = None) -> Turn:
    blocks: list[tuple[Any, ...]] = [("text", lead)] if lead else []
    blocks += [("tool", cid, name, args) for cid, name, args in calls]
    return Turn(blocks=blocks)


class ScriptedStream:
    """A ``stream_fn``: each call serves the next ``Turn``; records every request."""

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = list(turns)
        self.requests: list[tuple[dict[str, Any], Context, StreamOptions]] = []

    def __call__(
        self, model: dict[str, Any], context: Context, options: StreamOptions
    ) -> AsyncIterator[dict[str, Any]]:
        self.requests.append((model, context, options))
        turn = self.turns.pop(0) if self.turns else text("(script exhausted)")
        return self._run(model, turn, options.signal)

    async def _run(
        self, model: dict[str, Any], turn: Turn, signal: AbortSignal | None
    ) -> AsyncIterator[dict[str, Any]]:
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": [],
            "api": model["api"],
            "provider": model["provider"],
            "model": model["id"],
            "usage": empty_usage(),
            "stopReason": "pending",
            "timestamp": int(time.time() * 1000),
        }

        def aborted_event() -> dict[str, Any]:
            msg["stopReason"] = "aborted"
            msg["errorMessage"] = "Request was aborted"
            return {"type": "error", "reason": "aborted", "error": msg}

        if signal is not None and signal.aborted:
            yield aborted_event()
            return
        if turn.error_before_start is not None:
            msg["stopReason"] = "error"
            msg["errorMessage"] = turn.error_before_start
            yield {"type": "error", "reason": "error", "error": msg}
            return
        yield {"type": "start", "partial": msg}
        first_delta_done = False

        async def after_first_delta() -> bool:
            """Returns False when the stream was aborted while waiting."""
            if turn.gate is None and not turn.hang:
                return True
            assert signal is not None
            with signal.scope():
                if turn.gate is not None:
                    await turn.gate.wait()
                else:
                    await anyio.sleep_forever()
            return not signal.aborted

        for block in turn.blocks:
            idx = len(msg["content"])
            kind = block[0]
            if kind in ("text", "thinking"):
                key = "text" if kind == "text" else "thinking"
                msg["content"].append({"type": kind, key: ""})
                yield {"type": f"{kind}_start", "contentIndex": idx, "partial": msg}
                half = max(1, len(block[1]) // 2)
                for piece in (block[1][:half], block[1][half:]):
                    if not piece:
                        continue
                    msg["content"][idx][key] += piece
                    yield {"type": f"{kind}_delta", "contentIndex": idx, "delta": piece, "partial": msg}
                    if not first_delta_done:
                        first_delta_done = True
                        if not await after_first_delta():
                            yield aborted_event()
                            return
                yield {"type": f"{kind}_end", "contentIndex": idx, "content": msg["content"][idx][key], "partial": msg}
            else:
                _, cid, name, args = block
                tc = {"type": "toolCall", "id": cid, "name": name, "arguments": {}}
                msg["content"].append(tc)
                yield {"type": "toolcall_start", "contentIndex": idx, "partial": msg}
                raw = orjson.dumps(args).decode()
                yield {"type": "toolcall_delta", "contentIndex": idx, "delta": raw, "partial": msg}
                tc["arguments"] = args
                if not first_delta_done:
                    first_delta_done = True
                    if not await after_first_delta():
                        yield aborted_event()
                        return
                yield {"type": "toolcall_end", "contentIndex": idx, "toolCall": dict(tc), "partial": msg}
            if signal is not None and signal.aborted:
                yield aborted_event()
                return
        msg["usage"] = {**empty_usage(), "input": 100, "output": 5, "totalTokens": 105}
        if turn.error_message is not None:
            msg["stopReason"] = "error"
            msg["errorMessage"] = turn.error_message
            yield {"type": "error", "reason": "error", "error": msg}
            return
        has_tools = any(b["type"] == "toolCall" for b in msg["content"])
        msg["stopReason"] = turn.stop_reason or ("toolUse" if has_tools else "stop")
        msg["durationMs"] = 3
        yield {"type": "done", "reason": msg["stopReason"], "message": msg}


# --------------------------------------------------------------------------- tools


class EchoTool:
    """Returns its ``text``; emits one update first; optional hook run inside execute."""

    label = "Echo"
    description = "Echo the text back"
    parameters = {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "what to echo"}},
        "required": ["text"],
    }

    def __init__(self, name: str = "echo", during: Any = None) -> None:
        self.name = name
        self.during = during
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: Any
    ) -> dict[str, Any]:
        self.calls.append((tool_call_id, args))
        if on_update is not None:
            await on_update({"content": [{"type": "text", "text": "partial " + args["text"]}], "details": {}})
        if self.during is not None:
            await self.during(tool_call_id)
        return {"content": [{"type": "text", "text": args["text"]}], "details": {"echoed": args["text"]}}


class FailingTool:
    name = "fail"
    label = "Fail"
    description = "Always fails"
    parameters = {"type": "object", "properties": {}}

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: Any
    ) -> dict[str, Any]:
        raise ToolError("boom")


class WaitTool:
    """Waits for ``release`` (or forever); on abort raises ``Operation aborted``."""

    name = "wait"
    label = "Wait"
    description = "Waits"
    parameters = {"type": "object", "properties": {"tag": {"type": "string"}}}

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.started = anyio.Event()
        self.count = 0

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: Any
    ) -> dict[str, Any]:
        self.count += 1
        self.started.set()
        assert signal is not None
        with signal.scope():
            await self.release.wait()
        if signal.aborted:
            raise ToolError("Operation aborted")
        return {"content": [{"type": "text", "text": f"waited {args.get('tag', '')}"}]}


class ShellTool:
    """A bash-like tool: runs ``command`` in its own process group, streams accumulated output
    as updates, kills the group on abort and fails with ``Command aborted``."""

    name = "bash"
    label = "bash"
    description = "Run a shell command"
    parameters = {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "command"}},
        "required": ["command"],
    }

    def __init__(self) -> None:
        self.pids: list[int] = []
        self.started = anyio.Event()

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: Any
    ) -> dict[str, Any]:
        assert signal is not None
        output = ""
        process = await anyio.open_process(["/bin/sh", "-c", args["command"]], start_new_session=True, stderr=None)
        self.pids.append(process.pid)
        self.started.set()
        try:
            with signal.scope():
                assert process.stdout is not None
                await on_update({"content": []})
                async for chunk in process.stdout:
                    output += chunk.decode()
                    await on_update({"content": [{"type": "text", "text": output}], "details": {}})
                code = await process.wait()
        finally:
            if process.returncode is None:
                try:
                    os.killpg(process.pid, os_signal.SIGKILL)
                except ProcessLookupError:
                    pass
                with anyio.CancelScope(shield=True):
                    await process.wait()
        if signal.aborted:
            raise ToolError("Command aborted" if not output else f"{output}\n\nCommand aborted")
        if code != 0:
            return {
                "content": [{"type": "text", "text": f"{output}\n\nCommand exited with code {code}"}],
                "isError": True,
            }
        return {"content": [{"type": "text", "text": output}]}


# --------------------------------------------------------------------------- recording


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    async def __call__(self, event: dict[str, Any]) -> None:
        # Snapshot: the live partial keeps changing after the event was delivered.
        self.events.append(orjson.loads(orjson.dumps(event)))

    def of(self, etype: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == etype]

    def sig(self) -> list[str]:
        return signature(self.events)


def signature(events: list[dict[str, Any]]) -> list[str]:
    """One short string per event: type plus the field that identifies it."""
    out: list[str] = []
    for e in events:
        t = e["type"]
        if t in ("message_start", "message_end"):
            m = e["message"]
            role = m["role"]
            if role == "assistant":
                out.append(f"{t}:assistant:{m['stopReason']}")
            elif role == "user":
                c = m["content"]
                label = c if isinstance(c, str) else c[0]["text"]
                out.append(f"{t}:user:{label}")
            elif role == "toolResult":
                out.append(f"{t}:toolResult:{m['toolCallId']}")
            else:
                out.append(f"{t}:{role}")
        elif t == "message_update":
            out.append(f"update:{e['assistantMessageEvent']['type']}")
        elif t.startswith("tool_execution_"):
            out.append(f"{t[len('tool_execution_') :]}:{e['toolCallId']}")
        elif t == "turn_end":
            out.append(f"turn_end:{len(e['toolResults'])}")
        elif t == "agent_end":
            out.append(f"agent_end:{len(e['messages'])}")
        else:
            out.append(t)
    return out
