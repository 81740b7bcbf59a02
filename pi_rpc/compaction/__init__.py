"""Compaction layer: context-size estimates, the compaction plan (cut point, split turns,
file tracking), summary generation through an injectable stream function, branch
summaries, and the overflow/threshold decision the runtime acts on.

Operates on plain entry and message dicts (upstream camelCase keys); never touches the
session store. Public names are re-exported here, except the ``compact`` function: that name
is its submodule (``from pi_rpc.compaction.compact import compact``).

Exports load lazily (``pi_rpc._lazy``): the threshold check after a turn needs only the
decision (``overflow``, ``settings``, ``tokens``), not the summariser.
"""

from typing import TYPE_CHECKING

from pi_rpc._lazy import lazy_exports

if TYPE_CHECKING:
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

_EXPORTS = {
    "BRANCH_SUMMARY_CANCELLED": "pi_rpc.compaction.branch",
    "BranchSummaryResult": "pi_rpc.compaction.branch",
    "collect_entries_for_branch_summary": "pi_rpc.compaction.branch",
    "generate_branch_summary": "pi_rpc.compaction.branch",
    "prepare_branch_entries": "pi_rpc.compaction.branch",
    "CompactionDetails": "pi_rpc.compaction.compact",
    "CompactionResult": "pi_rpc.compaction.compact",
    "build_compaction_entry_fields": "pi_rpc.compaction.compact",
    "estimate_branch_context_tokens": "pi_rpc.compaction.context",
    "estimate_projected_context_tokens": "pi_rpc.compaction.context",
    "ALREADY_COMPACTED": "pi_rpc.compaction.errors",
    "AUTO_COMPACTION_FAILED_PREFIX": "pi_rpc.compaction.errors",
    "COMPACTION_CANCELLED": "pi_rpc.compaction.errors",
    "COMPACTION_FAILED_PREFIX": "pi_rpc.compaction.errors",
    "NOTHING_TO_COMPACT": "pi_rpc.compaction.errors",
    "OVERFLOW_RECOVERY_EXHAUSTED": "pi_rpc.compaction.errors",
    "OVERFLOW_RECOVERY_FAILED_PREFIX": "pi_rpc.compaction.errors",
    "TRUNCATION_RECOVERY_EXHAUSTED": "pi_rpc.compaction.errors",
    "CompactionCancelled": "pi_rpc.compaction.errors",
    "CompactionError": "pi_rpc.compaction.errors",
    "CompactionReason": "pi_rpc.compaction.errors",
    "compaction_failed_message": "pi_rpc.compaction.errors",
    "FileOperations": "pi_rpc.compaction.file_ops",
    "format_file_operations": "pi_rpc.compaction.file_ops",
    "CompactionDecision": "pi_rpc.compaction.overflow",
    "decide_compaction": "pi_rpc.compaction.overflow",
    "is_overflow": "pi_rpc.compaction.overflow",
    "is_recoverable_length": "pi_rpc.compaction.overflow",
    "is_retryable_error": "pi_rpc.compaction.overflow",
    "CompactionPreparation": "pi_rpc.compaction.preparation",
    "CutPoint": "pi_rpc.compaction.preparation",
    "find_cut_point": "pi_rpc.compaction.preparation",
    "prepare_compaction": "pi_rpc.compaction.preparation",
    "prepare_compaction_or_raise": "pi_rpc.compaction.preparation",
    "ProjectedEntry": "pi_rpc.compaction.projection",
    "build_projection": "pi_rpc.compaction.projection",
    "complete_summarization": "pi_rpc.compaction.request",
    "convert_to_llm": "pi_rpc.compaction.serialize",
    "serialize_conversation": "pi_rpc.compaction.serialize",
    "DEFAULT_COMPACTION_SETTINGS": "pi_rpc.compaction.settings",
    "DEFAULT_RETRY_SETTINGS": "pi_rpc.compaction.settings",
    "CompactionSettings": "pi_rpc.compaction.settings",
    "RetrySettings": "pi_rpc.compaction.settings",
    "calculate_context_tokens": "pi_rpc.compaction.tokens",
    "estimate_context_tokens": "pi_rpc.compaction.tokens",
    "estimate_tokens": "pi_rpc.compaction.tokens",
    "should_compact": "pi_rpc.compaction.tokens",
}

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)


__all__ = sorted(_EXPORTS)
