"""What a provider sees: the transcript collapse and upstream 1.6 ``transformMessages`` replay rules.

``collapse_context``: ``Context.system_prompt`` + ``Context.tools`` form the leading system
message; later ``system`` messages in ``Context.messages`` are replayed into it (content appended,
``sections`` patched by name, ``toolsAdded``/``toolsRemoved`` applied), then dropped from the
list, exactly like upstream's ``collapseSystemMessages`` for APIs without mid-conversation
system messages (every API we implement).

``transform_messages`` (cross-provider replay, 1.6 source; providers.md 2(e) summarises 0.58):
- assistant messages with stopReason error/aborted are dropped;
- thinking from a different model (provider, api or id differ) is DROPPED (1.6; 0.58 turned it
  into text); same-model thinking is kept when redacted or signed, dropped when empty;
- text from a different model loses ``textSignature``; ``thoughtSignature`` dropped likewise;
- tool-call ids of other models go through ``normalize_tool_call_id`` and results follow;
- images are replaced by a placeholder for models without image input;
- tool calls left without a result get a synthetic ``"No result provided"`` error result,
  placed before the next assistant or user message (system messages in between wait).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from pi_rpc.ai.transcript import content_text
from pi_rpc.ai.types import Context, Message, is_system

NON_VISION_USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
NON_VISION_TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)"


def collapse_context(context: Context) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """(system prompt text, messages without system roles, current tools).

    The messages are handed on as plain JSON objects: each provider's converter reads them key
    by key with defaults (a replayed message may come from an older session file)."""
    content: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str | None, dict[str, object]] = {}  # (a removal may name no tool)
    if context.system_prompt:
        content.append(context.system_prompt)
    for tool in context.tools or []:
        tools[tool["name"]] = cast("dict[str, Any]", tool)  # a Tool is a plain dict at run time
    messages: list[Message] = []
    for msg in context.messages:
        if not is_system(msg):
            messages.append(msg)
            continue
        text = content_text(msg.get("content", ""))
        if text:
            content.append(text)
        for name, value in (msg.get("sections") or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for removed in msg.get("toolsRemoved") or []:
            tools.pop(removed.get("name"), None)
        for added in msg.get("toolsAdded") or []:
            tools[added["name"]] = added
    parts = ["\n\n".join(content), *sections.values()]
    prompt = "\n\n".join(p for p in parts if p)
    return prompt, cast("list[dict[str, Any]]", messages), list(tools.values())


def _replace_images(content: list[dict[str, object]], placeholder: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    prev_placeholder = False
    for block in content:
        if block.get("type") == "image":
            if not prev_placeholder:
                out.append({"type": "text", "text": placeholder})
            prev_placeholder = True
            continue
        out.append(block)
        prev_placeholder = block.get("text") == placeholder
    return out


# A provider's full Model, or the agent's plain model dict (it passes no normalizer).
_ModelT = TypeVar("_ModelT", bound=Mapping[str, Any])


def _assistant_from(
    msg: dict[str, Any],
    model: _ModelT,
    normalize_tool_call_id: Callable[[str, _ModelT, dict[str, object]], str] | None,
    id_map: dict[str, str],
) -> dict[str, object]:
    """An assistant message as another model may see it: thinking only for the model that
    wrote it, text without its signature, tool-call ids normalised (recorded in ``id_map`` for
    their results)."""
    same = (
        msg.get("provider") == model["provider"] and msg.get("api") == model["api"] and msg.get("model") == model["id"]
    )
    blocks: list[dict[str, object]] = []
    for block in msg["content"]:
        btype = block.get("type")
        if btype == "thinking":
            if not same:
                continue
            if block.get("redacted") or block.get("thinkingSignature"):
                blocks.append(block)
            elif block.get("thinking", "").strip():
                blocks.append(block)
        elif btype == "text":
            blocks.append(block if same else {"type": "text", "text": block.get("text", "")})
        elif btype == "toolCall":
            tc = block
            if not same and "thoughtSignature" in tc:
                tc = {k: v for k, v in tc.items() if k != "thoughtSignature"}
            if not same and normalize_tool_call_id is not None:
                new_id = normalize_tool_call_id(tc["id"], model, msg)
                if new_id != tc["id"]:
                    id_map[tc["id"]] = new_id
                    tc = {**tc, "id": new_id}
            blocks.append(tc)
        else:
            blocks.append(block)
    return {**msg, "content": blocks}


def transform_messages(
    messages: list[dict[str, Any]],
    model: _ModelT,
    normalize_tool_call_id: Callable[[str, _ModelT, dict[str, object]], str] | None = None,
) -> list[dict[str, Any]]:
    id_map: dict[str, str] = {}
    vision = "image" in (model.get("input") or [])
    transformed: list[dict[str, object]] = []
    for msg in messages:
        if msg.get("content") is None:
            msg = {**msg, "content": []}
        role = msg.get("role")
        if not vision and role == "user" and isinstance(msg["content"], list):
            msg = {**msg, "content": _replace_images(msg["content"], NON_VISION_USER_IMAGE_PLACEHOLDER)}
        elif not vision and role == "toolResult":
            msg = {**msg, "content": _replace_images(msg["content"], NON_VISION_TOOL_IMAGE_PLACEHOLDER)}
        if role == "toolResult":
            new_id = id_map.get(msg.get("toolCallId", ""))
            if new_id and new_id != msg["toolCallId"]:
                msg = {**msg, "toolCallId": new_id}
        elif role == "assistant":
            msg = _assistant_from(msg, model, normalize_tool_call_id, id_map)
        transformed.append(msg)
    return _pair_tool_results(transformed)


def _pair_tool_results(transformed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call answered: a call with no result before the next assistant or user
    message gets an error result; system messages that came between a call and its result
    wait until the results are in. Errored and aborted assistant turns are dropped."""
    result: list[dict[str, object]] = []
    pending: list[dict[str, object]] = []
    answered: set[str] = set()
    held: list[dict[str, object]] = []

    def close_pending() -> None:
        nonlocal pending, answered
        for tc in pending:
            if tc["id"] not in answered:
                result.append(
                    {
                        "role": "toolResult",
                        "toolCallId": tc["id"],
                        "toolName": tc.get("name", ""),
                        "content": [{"type": "text", "text": "No result provided"}],
                        "isError": True,
                        "timestamp": int(time.time() * 1000),
                    }
                )
        pending, answered = [], set()
        result.extend(held)
        held.clear()

    for msg in transformed:
        role = msg.get("role")
        if role == "assistant":
            close_pending()
            if msg.get("stopReason") in ("error", "aborted"):
                continue
            calls = [b for b in msg["content"] if b.get("type") == "toolCall"]
            if calls:
                pending, answered = calls, set()
            result.append(msg)
        elif role == "toolResult":
            answered.add(msg.get("toolCallId", ""))
            result.append(msg)
        elif role == "system":
            (held if pending else result).append(msg)
        elif role == "user":
            close_pending()
            result.append(msg)
        else:
            result.append(msg)
    close_pending()
    return result
