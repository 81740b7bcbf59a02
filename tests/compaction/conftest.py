"""Shared helpers for compaction tests: real fixture loading, a session builder that writes
entries the way pi does, and a scripted ``stream_fn``."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "compaction"


def load_session(name: str) -> list[dict[str, Any]]:
    """Entries (header excluded) of a fixture session file, root→leaf (these are linear)."""
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines if line.strip()]
    assert entries[0]["type"] == "session"
    return entries[1:]


def usage(input_tokens: int = 0, output: int = 0, total: int | None = None, cost: float = 0) -> dict[str, Any]:
    return {
        "input": input_tokens,
        "output": output,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": input_tokens + output if total is None else total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    }


MODEL: dict[str, Any] = {
    "id": "fake-model",
    "name": "Fake Model",
    "api": "openai-completions",
    "provider": "fake",
    "baseUrl": "http://127.0.0.1:9/v1",
    "reasoning": False,
    "input": ["text"],
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    "contextWindow": 128000,
    "maxTokens": 4096,
}


class SessionBuilder:
    """Appends entries as a linear branch (or from ``at`` to fork), like SessionManager."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.leaf: str | None = None
        self._n = 0
        self._t = datetime(2026, 11, 29, 12, 0, 0, tzinfo=timezone.utc)

    def _next(self) -> tuple[str, str, int]:
        self._n += 1
        self._t += timedelta(seconds=1)
        iso = self._t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self._t.microsecond // 1000:03d}Z"
        return f"e{self._n:07x}", iso, int(self._t.timestamp() * 1000)

    def branch_from(self, entry_id: str | None) -> SessionBuilder:
        self.leaf = entry_id
        return self

    def add(self, entry_type: str, **payload: Any) -> dict[str, Any]:
        entry_id, iso, _ = self._next()
        entry = {"type": entry_type, "id": entry_id, "parentId": self.leaf, "timestamp": iso, **payload}
        self.entries.append(entry)
        self.leaf = entry_id
        return entry

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        entry_id, iso, ms = self._next()
        message.setdefault("timestamp", ms)
        entry = {"type": "message", "id": entry_id, "parentId": self.leaf, "timestamp": iso, "message": message}
        self.entries.append(entry)
        self.leaf = entry_id
        return entry

    def user(self, text: str) -> dict[str, Any]:
        return self.message({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(
        self,
        text: str | None = None,
        *,
        calls: list[tuple[str, str, dict[str, Any]]] = (),  # type: ignore[assignment]
        stop: str | None = None,
        usage_: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if text is not None:
            content.append({"type": "text", "text": text})
        for call_id, name, args in calls:
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-model",
            "usage": usage_ or usage(),
            "stopReason": stop or ("toolUse" if calls else "stop"),
        }
        if error is not None:
            msg["errorMessage"] = error
        return self.message(msg)

    def tool_result(self, call_id: str, name: str, text: str, is_error: bool = False) -> dict[str, Any]:
        return self.message(
            {
                "role": "toolResult",
                "toolCallId": call_id,
                "toolName": name,
                "content": [{"type": "text", "text": text}],
                "isError": is_error,
            }
        )

    def by_id(self) -> dict[str, dict[str, Any]]:
        return {e["id"]: e for e in self.entries}

    def path(self, leaf: str | None = None) -> list[dict[str, Any]]:
        by_id = self.by_id()
        out = []
        current = leaf if leaf is not None else self.leaf
        while current is not None:
            out.append(by_id[current])
            current = by_id[current]["parentId"]
        return list(reversed(out))


def reply(
    text: str | None = "Summary.",
    *,
    stop: str = "stop",
    error: str | None = None,
    tool_call: bool = False,
    usage_: dict[str, Any] | None = None,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_call:
        content.append({"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}})
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": usage_ or usage(10, 5),
        "stopReason": stop,
        "timestamp": 1,
    }
    if error is not None:
        msg["errorMessage"] = error
    return msg


class ScriptedStream:
    """A ``stream_fn`` that plays scripted replies in order and records every request.

    A script item is an assistant message dict (streamed as text deltas then ``done`` or
    ``error``), or the string ``"hang"`` / ``"hang-ignoring-signal"``: start streaming, set
    ``self.started``, then wait for the abort (ending with an aborted ``error`` event) or
    forever.
    """

    def __init__(self, *script: Any) -> None:
        self.script = list(script)
        self.calls: list[tuple[dict[str, Any], Any, Any]] = []
        self.started = anyio.Event()
        self.closed = 0

    def __call__(self, model: dict[str, Any], context: Any, options: Any) -> Any:
        self.calls.append((model, context, options))
        item = self.script.pop(0)
        return self._events(item, options)

    async def _events(self, item: Any, options: Any) -> Any:
        try:
            partial = {"role": "assistant", "content": [], "stopReason": "pending"}
            yield {"type": "start", "partial": partial}
            if isinstance(item, str):
                yield {"type": "text_delta", "contentIndex": 0, "delta": "partial ", "partial": partial}
                self.started.set()
                if item == "hang":
                    await options.signal.wait()
                    aborted = reply("partial ", stop="aborted", error="Request was aborted")
                    yield {"type": "error", "reason": "aborted", "error": aborted}
                    return
                await anyio.sleep_forever()
            for block in item["content"]:
                if block["type"] == "text":
                    yield {"type": "text_delta", "contentIndex": 0, "delta": block["text"], "partial": partial}
            if item["stopReason"] in ("error", "aborted"):
                yield {"type": "error", "reason": item["stopReason"], "error": item}
            else:
                yield {"type": "done", "reason": item["stopReason"], "message": item}
        finally:
            self.closed += 1

    def prompt_text(self, index: int = 0) -> str:
        context = self.calls[index][1]
        (message,) = context.messages
        (block,) = message["content"]
        return block["text"]
