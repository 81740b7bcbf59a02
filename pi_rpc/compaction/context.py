"""Context size of a branch as compaction sees it (``tokensBefore``, ``estimatedTokensAfter``):
the session store's projected estimate (``pi_rpc.session.stats``, the same numbers
``get_session_stats.contextUsage`` reports) over compaction's entry-by-entry projection."""

from __future__ import annotations

from pi_rpc.compaction.projection import Entry, ProjectedEntry, build_projection
from pi_rpc.compaction.tokens import ContextEstimate
from pi_rpc.session.stats import estimate_projected_context_tokens as _session_estimate


def estimate_projected_context_tokens(projection: list[ProjectedEntry], path_entries: list[Entry]) -> ContextEstimate:
    """A reply's usage counts only while no later ``compaction``/``context_edit`` made it stale;
    otherwise every projected message is estimated."""
    as_session = {
        "entries": [{"sourceEntry": pe.entry, "messages": pe.messages} for pe in projection],
        "messages": [m for pe in projection for m in pe.messages],
    }
    e = _session_estimate(as_session, path_entries)
    return ContextEstimate(e["tokens"], e["usageTokens"], e["trailingTokens"], e["lastUsageIndex"])


def estimate_branch_context_tokens(path_entries: list[Entry]) -> int:
    """Projected context size of a root→leaf path."""
    return estimate_projected_context_tokens(build_projection(path_entries), path_entries).tokens
