"""From the agent's transcript to what one model request sees.

Three steps, in the order the loop applies them before every request:

1. ``convert_to_llm``: coding-agent roles become LLM roles (upstream ``core/messages.ts``;
   the session then applies ``block_images`` when ``images.blockImages`` is on):
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

from collections.abc import Mapping, Sequence
from typing import Any, cast

from pi_rpc.agent.transcript import (
    get_current_system_prompt,
    get_current_tools,
    has_system_message,
    to_tool_declaration,
)
from pi_rpc.ai.types import (
    Context,
    Message,
    UserContent,
    UserMessage,
    is_bash_execution,
    is_branch_summary,
    is_compaction_summary,
    is_custom,
    is_system,
    is_tool_result,
    is_user,
)

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"


def _user(content: list[UserContent], timestamp: Any) -> UserMessage:
    # ``timestamp`` is the source message's as stored (a file may hold anything there).
    return {"role": "user", "content": content, "timestamp": timestamp}


def convert_to_llm(messages: Sequence[Message]) -> list[Message]:
    out: list[Message] = []
    for m in messages:
        if m.get("role") in ("system", "user", "assistant", "toolResult"):
            out.append(m)
        elif is_bash_execution(m):
            if m.get("excludeFromContext"):
                continue
            from pi_rpc.tools.bash_executor import bash_execution_to_text  # (the executor: not at startup)

            out.append(_user([{"type": "text", "text": bash_execution_to_text(m)}], m.get("timestamp")))
        elif is_custom(m):
            content = m.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            out.append(_user(list(content or []), m.get("timestamp")))
        elif is_branch_summary(m):
            text = BRANCH_SUMMARY_PREFIX + m.get("summary", "") + BRANCH_SUMMARY_SUFFIX
            out.append(_user([{"type": "text", "text": text}], m.get("timestamp")))
        elif is_compaction_summary(m):
            text = COMPACTION_SUMMARY_PREFIX + m.get("summary", "") + COMPACTION_SUMMARY_SUFFIX
            out.append(_user([{"type": "text", "text": text}], m.get("timestamp")))
        # Unknown roles (extensions) never reach the model.
    return out


IMAGES_DISABLED_TEXT = "Image reading is disabled."


def block_images(messages: Sequence[Message]) -> list[Message]:
    """``images.blockImages`` (upstream ``sdk.ts``, applied after ``convert_to_llm`` on every
    request): image blocks of user and toolResult messages become the text
    ``Image reading is disabled.``, one for a run of them. Only the request changes; the
    transcript and the session file keep the images."""
    out: list[Message] = []
    for m in messages:
        if not (is_user(m) or is_tool_result(m)):
            out.append(m)
            continue
        content = m.get("content")
        if not isinstance(content, list):
            out.append(m)
            continue
        if not any(block.get("type") == "image" for block in content):
            out.append(m)
            continue
        mapped = [
            {"type": "text", "text": IMAGES_DISABLED_TEXT} if block.get("type") == "image" else block
            for block in content
        ]
        # A placeholder right after another one (the original, mapped list) is dropped.
        kept = [
            block
            for i, block in enumerate(mapped)
            if not (
                i > 0
                and block.get("type") == "text"
                and block.get("text") == IMAGES_DISABLED_TEXT
                and mapped[i - 1].get("type") == "text"
                and mapped[i - 1].get("text") == IMAGES_DISABLED_TEXT
            )
        ]
        out.append(cast("Message", {**m, "content": kept}))
    return out


def transform_messages(messages: Sequence[Message], model: Mapping[str, object] | None) -> list[Message]:
    """Upstream's ``transformMessages`` (cross-model replay rules, failed replies dropped,
    orphaned tool calls answered); the ai layer owns the rules."""
    from pi_rpc.ai.transform import transform_messages as ai_transform

    fallback = {"provider": "", "api": "", "id": "", "input": ["text", "image"]}
    # The ai layer rewrites messages as plain JSON objects (providers call it on their view).
    plain = cast("list[dict[str, Any]]", list(messages))
    return cast("list[Message]", ai_transform(plain, model or fallback))


def build_llm_context(
    llm_messages: Sequence[Message],
    *,
    fallback_system_prompt: str = "",
    fallback_tools: Sequence[object] = (),
    transcript: Sequence[Message] | None = None,
) -> Context:
    """Fold the system messages into the request's system prompt and tool list.

    Without any system message the agent's own ``system_prompt`` and tools are used; tools come
    from the transcript only when some system message declares tool changes.
    """
    system = [m for m in llm_messages if is_system(m)]
    rest = [m for m in llm_messages if not is_system(m)]
    prompt = get_current_system_prompt(system) if has_system_message(system) else fallback_system_prompt
    declares_tools = any("toolsAdded" in m or "toolsRemoved" in m for m in system)
    if declares_tools:
        tools = [dict(t) for t in get_current_tools(system)]
    else:
        tools = [to_tool_declaration(t) for t in fallback_tools]
    # ``transcript``: the messages before the provider-side repair (``transform_messages``),
    # which upstream leaves to each API; ``pi-messages`` sends them as they are.
    whole = list(transcript if transcript is not None else llm_messages)
    return Context(system_prompt=prompt, messages=rest, tools=tools, transcript=whole)  # type: ignore[arg-type]
