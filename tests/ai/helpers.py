"""Shared helpers for the ai tests: run a stream and keep a trace of what it produced."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pi_rpc.ai.stream import stream
from pi_rpc.ai.types import Context, StreamOptions


@dataclass
class Trace:
    events: list[dict[str, Any]] = field(default_factory=list)  # events without "partial"
    arg_snapshots: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    final: dict[str, Any] | None = None
    partial_ids: set[int] = field(default_factory=set)

    @property
    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def compact_types(self) -> list[str]:
        """Event types with consecutive duplicate deltas collapsed."""
        out: list[str] = []
        for t in self.types:
            if t.endswith("_delta") and out and out[-1] == t:
                continue
            out.append(t)
        return out


async def run(
    model: dict[str, Any], context: Context | None = None, options: StreamOptions | None = None, on_event: Any = None
) -> Trace:
    trace = Trace()
    context = context or Context(
        messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}]
    )
    async for ev in stream(model, context, options or StreamOptions(api_key="test-key")):
        if "partial" in ev:
            trace.partial_ids.add(id(ev["partial"]))
        if ev["type"] == "toolcall_delta":
            block = ev["partial"]["content"][ev["contentIndex"]]
            trace.arg_snapshots.setdefault(ev["contentIndex"], []).append(copy.deepcopy(block["arguments"]))
        trace.events.append({k: copy.deepcopy(v) for k, v in ev.items() if k != "partial"})
        if ev["type"] == "done":
            trace.final = ev["message"]
        elif ev["type"] == "error":
            trace.final = ev["error"]
        if on_event is not None:
            await on_event(ev)
    return trace


def compat_model(base_url: str, **extra: Any) -> dict[str, Any]:
    model = {
        "id": "test-model",
        "name": "Test Model",
        "api": "openai-completions",
        "provider": "test",
        "baseUrl": base_url,
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 4096,
    }
    model.update(extra)
    return model
