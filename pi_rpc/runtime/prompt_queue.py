"""The messages a client queued while a run streams (``steer`` and ``followUp``) as the session
lists them: the texts behind ``queue_update`` and ``pendingMessageCount``, kept in step with the
agent's own queues as it delivers them, and the images of queued messages normalized on
delivery rather than when queued."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from pi_rpc.ai.transcript import content_text
from pi_rpc.ai.types import Message, UserMessage, is_user
from pi_rpc.runtime.prompt_images import normalize_queued_message

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.config.settings import Settings
    from pi_rpc.runtime.events import EmitEvent


def user_message(text: str, images: list[dict[str, object]] | None) -> UserMessage:
    content: list[Any] = [{"type": "text", "text": text}]
    content.extend(images or [])
    return {"role": "user", "content": content, "timestamp": int(time.time() * 1000)}


class PromptQueue:
    """The listed steering and follow-up texts of one session."""

    def __init__(self, *, agent: Agent, settings: Settings, emit: EmitEvent) -> None:
        self._agent = agent
        self._settings = settings
        self._emit = emit
        self._steering: list[str] = []
        self._follow_up: list[str] = []
        # Queued user messages whose images are normalized on delivery (by id; value = the message).
        self._with_images: dict[int, UserMessage] = {}

    @property
    def pending_message_count(self) -> int:
        return len(self._steering) + len(self._follow_up)

    async def add(self, kind: Literal["steer", "followUp"], text: str, images: list[dict[str, object]] | None) -> None:
        message = user_message(text, images)
        if images:
            self._with_images[id(message)] = message
        if kind == "steer":
            self._agent.steer(message)
            self._steering.append(text)
        else:
            self._agent.follow_up(message)
            self._follow_up.append(text)
        await self._emit_update()

    async def on_dequeue(self, message: Message, kind: str) -> None:
        """The agent delivered a queued message (its ``on_dequeue``)."""
        if not is_user(message):
            return  # an extension's custom message: it never was in the listed queues
        text = content_text(message.get("content"))
        texts = self._steering if kind == "steer" else self._follow_up
        if text in texts:
            texts.remove(text)
        await self._emit_update()
        if self._with_images.pop(id(message), None) is message:
            await normalize_queued_message(
                message, auto_resize=self._settings.images_auto_resize, model=self._agent.model
            )

    async def clear_queue(self) -> dict[str, list[str]]:
        steering, follow_up = list(self._steering), list(self._follow_up)
        self._agent.clear_all_queues()
        self._with_images.clear()
        self._steering.clear()
        self._follow_up.clear()
        await self._emit_update()
        return {"steering": steering, "followUp": follow_up}

    def snapshot(self) -> tuple[list[str], list[str], dict[int, UserMessage]]:
        """The listed texts and the queued messages whose images wait for delivery: what a
        fork hands to the session that replaces this one (``restore``)."""
        return list(self._steering), list(self._follow_up), dict(self._with_images)

    def restore(self, snapshot: tuple[list[str], list[str], dict[int, UserMessage]]) -> None:
        """Take over the listed texts of the replaced session (its agent's queued messages
        moved to this session's agent with them)."""
        steering, follow_up, with_images = snapshot
        self._steering, self._follow_up, self._with_images = list(steering), list(follow_up), dict(with_images)

    async def _emit_update(self) -> None:
        await self._emit({"type": "queue_update", "steering": list(self._steering), "followUp": list(self._follow_up)})
