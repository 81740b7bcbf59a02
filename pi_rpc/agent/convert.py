"""From the agent's transcript to what one model request sees.

Three steps, in the order the loop applies them before every request:

1. ``convert_to_llm``: coding-agent roles become LLM roles (upstream ``core/messages.ts``):
   ``bashExecution`` -> user text (nothing when ``excludeFromContext``), ``custom`` -> user
   content, ``compactionSummary``/``branchSummary`` -> user text in upstream's wrappers.
   ``system`` messages pass through (they carry the prompt and tools).
2. ``transform_messages``: upstream pi-ai's provider-side repair: failed (``error``/``aborted``)
   assistant messages are dropped, orphaned tool calls get a ``No result provided`` result,
   thinking from another model is dropped and images are replaced for text-only models.
3. ``build_llm_context``: system messages are folded into ``Context.system_prompt`` and
   ``Context.tools``; the rest become ``Context.messages``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pi_rpc.ai.types import Context, Message
from pi_rpc.agent.transcript import (
    get_current_system_prompt,
    get_current_tools,
    has_system_message,
    to_tool_declaration,
)

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"

_NON_VISION_USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
_NON_VISION_TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)"


def bash_execution_to_text(msg: Message) -> str:
    text = f"Ran `{msg.get('command', '')}`\n"
    output = msg.get("output")
    if output:
        text += f"```\n{output}\n```"
    else:
        text += "(no output)"
    exit_code = msg.get("exitCode")
    if msg.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if msg.get("truncated") and msg.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {msg['fullOutputPath']}]"
    return text


def _user(content: list[dict[str, Any]], timestamp: Any) -> Message:
    return {"role": "user", "content": content, "timestamp": timestamp}


def convert_to_llm(messages: Sequence[Message]) -> list[Message]:
    out: list[Message] = []
    for m in messages:
        role = m.get("role")
        if role == "bashExecution":
            if m.get("excludeFromContext"):
                continue
            out.append(_user([{"type": "text", "text": bash_execution_to_text(m)}], m.get("timestamp")))
        elif role == "custom":
            content = m.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            out.append(_user(list(content or []), m.get("timestamp")))
        elif role == "branchSummary":
            text = BRANCH_SUMMARY_PREFIX + m.get("summary", "") + BRANCH_SUMMARY_SUFFIX
            out.append(_user([{"type": "text", "text": text}], m.get("timestamp")))
        elif role == "compactionSummary":
            text = COMPACTION_SUMMARY_PREFIX + m.get("summary", "") + COMPACTION_SUMMARY_SUFFIX
            out.append(_user([{"type": "text", "text": text}], m.get("timestamp")))
        elif role in ("system", "user", "assistant", "toolResult"):
            out.append(m)
        # Unknown roles (extensions) never reach the model.
    return out


def _replace_images(content: list[dict[str, Any]], placeholder: str) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = []
    previous_was_placeholder = False
    for block in content:
        if block.get("type") == "image":
            if not previous_was_placeholder:
                result.append({"type": "text", "text": placeholder})
            previous_was_placeholder = True
            continue
        result.append(block)
        previous_was_placeholder = block.get("text") == placeholder
    return result


def transform_messages(messages: Sequence[Message], model: dict[str, Any] | None) -> list[Message]:
    """Upstream's ``transformMessages`` (without provider-specific tool-call id normalisation)."""
    model = model or {}
    vision = "image" in (model.get("input") or ["text", "image"])
    normalized: list[Message] = []
    for msg in messages:
        if msg.get("content") is None:
            msg = {**msg, "content": []}
        if not vision and msg.get("role") == "user" and isinstance(msg.get("content"), list):
            msg = {**msg, "content": _replace_images(msg["content"], _NON_VISION_USER_IMAGE_PLACEHOLDER)}
        elif not vision and msg.get("role") == "toolResult":
            msg = {**msg, "content": _replace_images(msg["content"], _NON_VISION_TOOL_IMAGE_PLACEHOLDER)}
        if msg.get("role") == "assistant":
            same_model = (
                msg.get("provider") == model.get("provider")
                and msg.get("api") == model.get("api")
                and msg.get("model") == model.get("id")
            )
            content: list[dict[str, Any]] = []
            for block in msg.get("content") or []:
                btype = block.get("type")
                if btype == "thinking":
                    if not same_model:
                        continue
                    if block.get("redacted") or block.get("thinkingSignature"):
                        content.append(block)
                    elif (block.get("thinking") or "").strip():
                        content.append(block)
                elif btype == "text":
                    content.append(block if same_model else {"type": "text", "text": block.get("text", "")})
                elif btype == "toolCall" and not same_model and "thoughtSignature" in block:
                    content.append({k: v for k, v in block.items() if k != "thoughtSignature"})
                else:
                    content.append(block)
            msg = {**msg, "content": content}
        normalized.append(msg)

    result: list[Message] = []
    pending_calls: list[dict[str, Any]] = []
    seen_results: set[str] = set()
    held_system: list[Message] = []

    def close_pending() -> None:
        nonlocal pending_calls, seen_results
        if pending_calls:
            for tc in pending_calls:
                if tc.get("id") not in seen_results:
                    result.append(
                        {
                            "role": "toolResult",
                            "toolCallId": tc.get("id"),
                            "toolName": tc.get("name"),
                            "content": [{"type": "text", "text": "No result provided"}],
                            "isError": True,
                            "timestamp": int(time.time() * 1000),
                        }
                    )
            pending_calls = []
            seen_results = set()
        result.extend(held_system)
        held_system.clear()

    for msg in normalized:
        role = msg.get("role")
        if role == "assistant":
            close_pending()
            if msg.get("stopReason") in ("error", "aborted"):
                continue
            calls = [b for b in msg.get("content") or [] if b.get("type") == "toolCall"]
            if calls:
                pending_calls = calls
                seen_results = set()
            result.append(msg)
        elif role == "toolResult":
            seen_results.add(msg.get("toolCallId"))
            result.append(msg)
        elif role == "system":
            (held_system if pending_calls else result).append(msg)
        elif role == "user":
            close_pending()
            result.append(msg)
        else:
            result.append(msg)
    close_pending()
    return result


def build_llm_context(
    llm_messages: Sequence[Message],
    *,
    fallback_system_prompt: str = "",
    fallback_tools: Sequence[Any] = (),
) -> Context:
    """Fold the system messages into the request's system prompt and tool list.

    Without any system message the agent's own ``system_prompt`` and tools are used; tools come
    from the transcript only when some system message declares tool changes.
    """
    system = [m for m in llm_messages if m.get("role") == "system"]
    rest = [m for m in llm_messages if m.get("role") != "system"]
    prompt = get_current_system_prompt(system) if has_system_message(system) else fallback_system_prompt
    declares_tools = any("toolsAdded" in m or "toolsRemoved" in m for m in system)
    if declares_tools:
        tools = [dict(t) for t in get_current_tools(system)]
    else:
        tools = [to_tool_declaration(t) for t in fallback_tools]
    return Context(system_prompt=prompt, messages=rest, tools=tools)  # type: ignore[arg-type]
