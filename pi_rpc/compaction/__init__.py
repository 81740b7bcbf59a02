"""Compaction layer: context-size estimates, the compaction plan (cut point, split turns,
file tracking), summary generation through an injectable stream function, branch
summaries, and the overflow/threshold decision the runtime acts on.

Operates on plain entry and message dicts (upstream camelCase keys); never touches the
session store. Public names are re-exported here.
"""

from pi_rpc.compaction.branch import (
    BRANCH_SUMMARY_CANCELLED,
    BranchSummaryResult,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi_rpc.compaction.compact import (
    CompactionDetails,
    CompactionResult,
    build_compaction_entry_fields,
    compact,
)
from pi_rpc.compaction.context import (
    estimate_branch_context_tokens,
    estimate_projected_context_tokens,
)
from pi_rpc.compaction.errors import (
    ALREADY_COMPACTED,
    AUTO_COMPACTION_FAILED_PREFIX,
    COMPACTION_CANCELLED,
    COMPACTION_FAILED_PREFIX,
    NOTHING_TO_COMPACT,
    OVERFLOW_RECOVERY_EXHAUSTED,
    OVERFLOW_RECOVERY_FAILED_PREFIX,
    TRUNCATION_RECOVERY_EXHAUSTED,
    CompactionCancelled,
    CompactionError,
    CompactionReason,
    compaction_failed_message,
)
from pi_rpc.compaction.file_ops import FileOperations, format_file_operations
from pi_rpc.compaction.overflow import (
    CompactionDecision,
    decide_compaction,
    is_overflow,
    is_recoverable_length,
    is_retryable_error,
)
from pi_rpc.compaction.preparation import (
    CompactionPreparation,
    CutPoint,
    find_cut_point,
    prepare_compaction,
    prepare_compaction_or_raise,
)
from pi_rpc.compaction.projection import ProjectedEntry, build_projection
from pi_rpc.compaction.request import complete_summarization
from pi_rpc.compaction.serialize import convert_to_llm, serialize_conversation
from pi_rpc.compaction.settings import (
    DEFAULT_COMPACTION_SETTINGS,
    DEFAULT_RETRY_SETTINGS,
    CompactionSettings,
    RetrySettings,
)
from pi_rpc.compaction.tokens import (
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    should_compact,
)

__all__ = [
    "ALREADY_COMPACTED",
    "AUTO_COMPACTION_FAILED_PREFIX",
    "BRANCH_SUMMARY_CANCELLED",
    "COMPACTION_CANCELLED",
    "COMPACTION_FAILED_PREFIX",
    "DEFAULT_COMPACTION_SETTINGS",
    "DEFAULT_RETRY_SETTINGS",
    "NOTHING_TO_COMPACT",
    "OVERFLOW_RECOVERY_EXHAUSTED",
    "OVERFLOW_RECOVERY_FAILED_PREFIX",
    "TRUNCATION_RECOVERY_EXHAUSTED",
    "BranchSummaryResult",
    "CompactionCancelled",
    "CompactionDecision",
    "CompactionDetails",
    "CompactionError",
    "CompactionPreparation",
    "CompactionReason",
    "CompactionResult",
    "CompactionSettings",
    "CutPoint",
    "FileOperations",
    "ProjectedEntry",
    "RetrySettings",
    "build_compaction_entry_fields",
    "build_projection",
    "calculate_context_tokens",
    "collect_entries_for_branch_summary",
    "compact",
    "compaction_failed_message",
    "complete_summarization",
    "convert_to_llm",
    "decide_compaction",
    "estimate_branch_context_tokens",
    "estimate_context_tokens",
    "estimate_projected_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "format_file_operations",
    "generate_branch_summary",
    "is_overflow",
    "is_recoverable_length",
    "is_retryable_error",
    "prepare_branch_entries",
    "prepare_compaction",
    "prepare_compaction_or_raise",
    "serialize_conversation",
    "should_compact",
]
