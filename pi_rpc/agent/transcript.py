"""System messages as transcript state: the system prompt and the declared tool set.

Since pi 1.x the prompt and the tools travel inside the transcript as ``system`` messages: the
first one carries the base prompt (``content`` and named ``sections``) and ``toolsAdded``; later
ones patch it (a section set to ``None`` is removed, ``toolsRemoved`` drops tools). These helpers
replay those messages exactly as upstream's ``pi-ai/utils/transcript`` does, and compute the tool
delta the loop declares before a request when the executable tool set changed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any, TypeGuard, cast

from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.jsjson import stringify

# Re-exported: the agent's transcript helpers are imported from here.
from pi_rpc.ai.transcript import content_text as content_text
from pi_rpc.ai.transcript import get_current_system_message as get_current_system_message
from pi_rpc.ai.transcript import get_current_tools as get_current_tools
from pi_rpc.ai.types import Message, SystemMessage


def _is_system(message: Message) -> TypeGuard[SystemMessage]:
    return isinstance(message, dict) and message.get("role") == "system"


def to_tool_declaration(tool: Any) -> dict[str, Any]:
    """A tool as the model sees it: ``{name, description, parameters, constrainedSampling?}``.

    Accepts an ``AgentTool`` object or an already declared tool dict.
    """
    if isinstance(tool, dict):
        name, description, parameters = tool["name"], tool.get("description", ""), tool.get("parameters", {})
        constrained = tool.get("constrainedSampling")
    else:
        name, description, parameters = tool.name, tool.description, tool.parameters
        constrained = getattr(tool, "constrained_sampling", None)
    decl: dict[str, object] = {
        "name": name,
        "description": description,
        # A deep copy, like upstream's JSON round trip: the declaration must not alias the tool.
        "parameters": js_loads(stringify(parameters)),
    }
    if constrained is not None:
        decl["constrainedSampling"] = constrained
    return decl


def declarations_equal(left: object, right: object) -> bool:
    return stringify(to_tool_declaration(left)) == stringify(to_tool_declaration(right))


def system_message_text(message: SystemMessage) -> str:
    """A system message rendered as a prompt: its content, then its section texts."""
    parts = [content_text(message.get("content", ""))]
    parts.extend(v for v in (message.get("sections") or {}).values() if v is not None)
    return "\n\n".join(p for p in parts if p)


def get_current_system_prompt(messages: Sequence[Message]) -> str:
    message = get_current_system_message(messages)
    return system_message_text(message) if message else ""


def has_system_message(messages: Iterable[Message]) -> bool:
    return any(_is_system(m) for m in messages)


def get_tool_state_changes(
    previous: Sequence[Any], current: Sequence[Any]
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """``(toolsAdded, toolsRemoved)`` turning ``previous`` into ``current``; a changed definition
    is a removal plus an addition."""
    prev = {(t["name"] if isinstance(t, dict) else t.name): t for t in previous}
    cur = {(t["name"] if isinstance(t, dict) else t.name): t for t in current}
    added = [
        to_tool_declaration(t) for name, t in cur.items() if name not in prev or not declarations_equal(prev[name], t)
    ]
    removed = [{"name": name} for name, t in prev.items() if name not in cur or not declarations_equal(t, cur[name])]
    return added, removed


def _with_tool_changes(
    message: SystemMessage, added: list[dict[str, object]], removed: list[dict[str, object]]
) -> SystemMessage:
    rest = {k: v for k, v in message.items() if k not in ("toolsAdded", "toolsRemoved")}
    # Upstream spreads ``rest`` first, then the tool fields, so they land after ``timestamp``.
    if added:
        rest["toolsAdded"] = added
    if removed:
        rest["toolsRemoved"] = removed
    return cast("SystemMessage", rest)


def declare_tool_changes(
    context_messages: Sequence[Message], executable_tools: Sequence[object], pending: list[Message]
) -> list[Message]:
    """Make the transcript declare exactly ``executable_tools`` once ``pending`` is appended.

    A pending system message gets the delta as its tool fields; otherwise a new
    ``{role:"system", content:"", timestamp, toolsAdded?, toolsRemoved?}`` is inserted before the
    first non-system pending message. Returns ``pending`` itself when nothing changes.
    """
    system_index = -1
    pending_system: SystemMessage | None = None
    for i in range(len(pending) - 1, -1, -1):
        candidate = pending[i]
        if _is_system(candidate):
            system_index, pending_system = i, candidate
            break
    baseline: list[Message]
    if pending_system is not None:
        stripped = _with_tool_changes(pending_system, [], [])
        baseline = [stripped if i == system_index else m for i, m in enumerate(pending)]
    else:
        baseline = pending
    added, removed = get_tool_state_changes(
        get_current_tools([*context_messages, *baseline]), [to_tool_declaration(t) for t in executable_tools]
    )
    unchanged = not added and not removed
    if pending_system is not None:
        if unchanged and not pending_system.get("toolsAdded") and not pending_system.get("toolsRemoved"):
            return pending
        return [
            _with_tool_changes(pending_system, added, removed) if i == system_index else m
            for i, m in enumerate(baseline)
        ]
    if unchanged:
        return pending
    update = _with_tool_changes({"role": "system", "content": "", "timestamp": int(time.time() * 1000)}, added, removed)
    index = next((i for i, m in enumerate(pending) if not _is_system(m)), len(pending))
    return [*pending[:index], update, *pending[index:]]
