"""Compaction errors and the exact user-visible error texts upstream pi 1.6 emits.

The runtime puts these strings on the wire (RPC ``compact`` error responses and the
``compaction_end.errorMessage`` field), so they are constants here rather than literals
scattered over callers.
"""

from __future__ import annotations

from typing import Literal

from pi_rpc.errors import PiError

# RPC ``compact`` refusals (protocol §2.16).
NOTHING_TO_COMPACT = "Nothing to compact (session too small)"
ALREADY_COMPACTED = "Already compacted"
COMPACTION_CANCELLED = "Compaction cancelled"

# ``compaction_end.errorMessage`` prefixes, one per reason (protocol §3.1).
COMPACTION_FAILED_PREFIX = "Compaction failed: "
AUTO_COMPACTION_FAILED_PREFIX = "Auto-compaction failed: "
OVERFLOW_RECOVERY_FAILED_PREFIX = "Context overflow recovery failed: "

# Emitted without a preceding ``compaction_start`` when a second recovery would be needed.
OVERFLOW_RECOVERY_EXHAUSTED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
TRUNCATION_RECOVERY_EXHAUSTED = "Truncated response recovery failed after one compact-and-retry attempt."

CompactionReason = Literal["manual", "threshold", "overflow"]


def compaction_failed_message(reason: CompactionReason, message: str) -> str:
    """The ``compaction_end.errorMessage`` for a failure with raw text ``message``."""
    if reason == "manual":
        return COMPACTION_FAILED_PREFIX + message
    if reason == "threshold":
        return AUTO_COMPACTION_FAILED_PREFIX + message
    return OVERFLOW_RECOVERY_FAILED_PREFIX + message


class CompactionError(PiError):
    """Compaction could not produce a complete summary; nothing must be written.

    ``str(err)`` is the raw message that goes into an RPC error response.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class CompactionCancelled(CompactionError):
    """The abort signal fired while summarizing."""

    def __init__(self, message: str = COMPACTION_CANCELLED) -> None:
        super().__init__(message)
