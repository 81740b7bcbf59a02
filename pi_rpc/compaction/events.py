"""The events a summary request reports while it retries (``on_retry``); the session passes
them on to its listeners (``runtime.events``), with ``source``/``reason`` filled in."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict, Union


class SummarizationRetryScheduledEvent(TypedDict):
    type: Literal["summarization_retry_scheduled"]
    attempt: int
    maxAttempts: int
    delayMs: float
    errorMessage: str


class SummarizationRetryAttemptStartEvent(TypedDict):
    type: Literal["summarization_retry_attempt_start"]
    source: NotRequired[str]
    reason: NotRequired[str]


class SummarizationRetryFinishedEvent(TypedDict):
    type: Literal["summarization_retry_finished"]


SummarizationRetryEvent = Union[
    SummarizationRetryScheduledEvent, SummarizationRetryAttemptStartEvent, SummarizationRetryFinishedEvent
]
