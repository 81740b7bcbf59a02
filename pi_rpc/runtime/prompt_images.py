"""Images the user attaches to ``prompt`` / ``steer`` / ``follow_up`` (upstream 1.6
``AgentSession._normalizePromptImages``) and ``images.blockImages`` on requests.

Attachments go through the same normalization as the read tool (``tools/images.py``) with the
current model's resize limits: an idle prompt's images when the run is prepared, a queued
message's images when the loop delivers it (before its ``message_start``, so events and the
session file see the normalized message). Hints (dimension notes, conversions, omissions) are
appended to the message text after a blank line. The work runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import anyio

from pi_rpc.agent.convert import block_images, convert_to_llm
from pi_rpc.ai.types import Message, UserMessage


async def normalize_prompt_images(
    text: str,
    images: Sequence[dict[str, object]] | None,
    *,
    auto_resize: bool,
    model: Mapping[str, object] | None,
) -> tuple[str, list[dict[str, object]]]:
    """The prompt text (with hints appended) and the image blocks to send."""
    if not images:
        return text, []
    from pi_rpc.tools.images import normalize_images, resize_options_for

    normalized, hints = await anyio.to_thread.run_sync(
        partial(normalize_images, list(images), auto_resize=auto_resize, resize_options=resize_options_for(model))
    )
    return (f"{text}\n\n" + "\n".join(hints) if hints else text), normalized


async def normalize_queued_message(
    message: UserMessage, *, auto_resize: bool, model: Mapping[str, object] | None
) -> None:
    """Replace a queued user message's images in place: ``[text+hints, other blocks, images]``."""
    content: object = message.get("content")  # read as the plain blocks the wire delivered
    if not isinstance(content, list) or not content or content[0].get("type") != "text":
        return
    first, rest = content[0], content[1:]
    images = [block for block in rest if block.get("type") == "image"]
    text, normalized = await normalize_prompt_images(
        first.get("text", ""), images, auto_resize=auto_resize, model=model
    )
    blocks: list[Any] = [  # (the normalized images are the wire's plain image objects)
        {"type": "text", "text": text},
        *[block for block in rest if block.get("type") != "image"],
        *normalized,
    ]
    message["content"] = blocks


def convert_to_llm_blocking_images(messages: list[Message], block: bool) -> list[Message]:
    """The agent's ``convert_to_llm`` with ``images.blockImages`` applied when ``block``."""
    converted = convert_to_llm(messages)
    return block_images(converted) if block else converted
