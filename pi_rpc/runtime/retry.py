"""Session-level automatic retry of failed model calls (upstream ``AgentSession`` retry logic).

The controller decides at ``agent_end`` whether the failed reply will be retried (this is the
``willRetry`` flag on the wire), then performs the abortable backoff wait. The failed reply is
hidden from later model requests with a ``context_edit`` entry by the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio

from pi_rpc.ai.classify import is_context_overflow, is_retryable_error


@dataclass
class RetryPolicy:
    """The ``retry`` settings: how often and how long to wait before retrying a failed request."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_agent_delay_ms: int = 60000

    def delay_ms(self, attempt: int, retry_after_ms: int | None = None) -> int:
        delay = self.base_delay_ms * 2 ** (attempt - 1)
        if retry_after_ms is not None and retry_after_ms > delay:
            # Honour a server's Retry-After when it asks for longer (upstream ignores it).
            delay = retry_after_ms
        if self.max_agent_delay_ms > 0:
            delay = min(delay, self.max_agent_delay_ms)
        return int(delay)


def is_retryable_reply(message: Mapping[str, Any], context_window: int | None) -> bool:
    if message.get("role") != "assistant" or message.get("stopReason") != "error":
        return False
    error = message.get("errorMessage") or ""
    if not error:
        return False
    if is_context_overflow(message, context_window):
        return False
    return bool(is_retryable_error(error))


class RetryController:
    """Attempt counter plus the cancel scope of the current backoff sleep."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.attempt = 0
        self.pending = False  # decided at agent_end: a retry follows this run
        self.exhausted_error: str | None = None  # set when the budget is spent
        self._sleep_scope: anyio.CancelScope | None = None

    def decide(self, message: Mapping[str, Any] | None, context_window: int | None) -> bool:
        """Called at ``agent_end``: True when a retry will follow (``willRetry``)."""
        self.pending = False
        self.exhausted_error = None
        if message is None or not self.policy.enabled or not is_retryable_reply(message, context_window):
            return False
        if self.attempt >= self.policy.max_retries:
            self.exhausted_error = message.get("errorMessage") or "Unknown error"
            return False
        self.pending = True
        return True

    @property
    def in_progress(self) -> bool:
        return self.attempt > 0

    async def sleep(self, delay_ms: int) -> bool:
        """Sleep for the backoff; False when cancelled (abort or abort_retry)."""
        with anyio.CancelScope() as scope:
            self._sleep_scope = scope
            try:
                await anyio.sleep(delay_ms / 1000)
            finally:
                self._sleep_scope = None
        return not scope.cancelled_caught

    @property
    def sleeping(self) -> bool:
        return self._sleep_scope is not None

    def cancel_sleep(self) -> bool:
        if self._sleep_scope is not None:
            self._sleep_scope.cancel()
            return True
        return False

    def reset(self) -> None:
        self.attempt = 0
        self.pending = False
        self.exhausted_error = None
