"""Deciding what a compaction summarizes and what it keeps (``prepareCompaction``).

Works on the projection of the active branch (see ``projection``): the stretch after the
latest compaction's summary is the boundary; walking back from the newest entry until
``keepRecentTokens`` is reached picks the first kept entry, always at a user, assistant,
bash, custom or summary message (never a tool result, so a kept tool result never loses
its call). When the cut lands inside a turn, the turn's earlier part is summarized
separately (split turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_rpc.ai.types import Message
from pi_rpc.compaction.context import estimate_projected_context_tokens
from pi_rpc.compaction.errors import ALREADY_COMPACTED, NOTHING_TO_COMPACT, CompactionError
from pi_rpc.compaction.file_ops import FileOperations
from pi_rpc.compaction.projection import Entry, ProjectedEntry, build_projection
from pi_rpc.compaction.settings import CompactionSettings
from pi_rpc.compaction.tokens import estimate_tokens

CUT_POINT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
TURN_START_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})


@dataclass(frozen=True)
class CutPoint:
    first_kept_index: int  # index into the projection
    turn_start_index: int  # -1 unless the cut splits a turn
    is_split_turn: bool


@dataclass
class CompactionPreparation:
    first_kept_entry_id: str
    messages_to_summarize: list[Message]
    turn_prefix_messages: list[Message]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings
    # Estimate of what survives next to the new summary (system checkpoint + kept tail),
    # so ``compact`` can report ``estimatedTokensAfter`` without the session.
    kept_tokens: int = 0
    kept_messages: list[Message] = field(default_factory=list)


def _context_messages(pe: ProjectedEntry) -> list[Message]:
    return [m for m in pe.messages if m.get("role") != "system"]


def _summary_input(pe: ProjectedEntry) -> list[Message]:
    # The previous compaction speaks through ``previous_summary``, not as a message.
    return [] if pe.is_compaction else _context_messages(pe)


def find_valid_cut_points(projection: list[ProjectedEntry], start: int, end: int) -> list[int]:
    return [
        i
        for i in range(start, end)
        if not projection[i].is_compaction and any(m.get("role") in CUT_POINT_ROLES for m in projection[i].messages)
    ]


def _starts_turn(pe: ProjectedEntry) -> bool:
    return any(m.get("role") in TURN_START_ROLES for m in pe.messages)


def find_turn_start_index(projection: list[ProjectedEntry], index: int, start: int) -> int:
    for i in range(index - 1, start - 1, -1):
        if _starts_turn(projection[i]):
            return i
    return -1


def find_cut_point(projection: list[ProjectedEntry], start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    cut_points = find_valid_cut_points(projection, start, end)
    if not cut_points:
        return CutPoint(start, -1, False)

    accumulated = 0
    cut = cut_points[0]  # budget never reached: keep everything from the first message
    for i in range(end - 1, start - 1, -1):
        tokens = sum(estimate_tokens(m) for m in _context_messages(projection[i]))
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            # The nearest cut point at or after the entry that crossed the budget: an
            # oversized tool result keeps its call rather than dropping to an older cut.
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break

    # Whether the cut splits a turn depends on the message entry it lands on, not on the
    # settings entries pulled in below (upstream looks at the pulled-in entry and so treats
    # the whole previous turn as a "split-turn prefix"; we do not copy that).
    message_cut = cut
    # Settings changes right before the cut travel with the kept tail.
    while cut > start:
        prev = projection[cut - 1]
        if prev.is_compaction or prev.messages:
            break
        cut -= 1

    if message_cut >= len(projection) or _starts_turn(projection[message_cut]):
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(projection, cut, start)
    return CutPoint(cut, turn_start, turn_start != -1)


def prepare_compaction(path_entries: list[Entry], settings: CompactionSettings) -> CompactionPreparation | None:
    """Plan a compaction of a root→leaf path, or None when there is nothing to do (the last
    entry is already a compaction, or nothing would be summarized)."""
    if not path_entries or path_entries[-1].get("type") == "compaction":
        return None

    projection = build_projection(path_entries)
    has_previous = bool(projection) and projection[0].is_compaction
    boundary_start = 1 if has_previous else 0
    previous = projection[0].entry if has_previous else None
    previous_summary = previous.get("summary") if previous else None
    tokens_before = estimate_projected_context_tokens(projection, path_entries).tokens

    cut = find_cut_point(projection, boundary_start, len(projection), settings.keep_recent_tokens)
    if cut.first_kept_index >= len(projection):
        return None
    first_kept_id = projection[cut.first_kept_index].entry.get("id")
    if not isinstance(first_kept_id, str) or not first_kept_id:
        return None

    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    to_summarize = [m for pe in projection[boundary_start:history_end] for m in _summary_input(pe)]
    turn_prefix: list[Message] = []
    if cut.is_split_turn:
        turn_prefix = [m for pe in projection[cut.turn_start_index : cut.first_kept_index] for m in _summary_input(pe)]
    if not to_summarize and not turn_prefix:
        return None

    file_ops = FileOperations()
    if previous is not None and not previous.get("fromHook"):
        file_ops.add_details(previous.get("details"))
    for message in to_summarize:
        file_ops.add_message(message)
    for message in turn_prefix:
        file_ops.add_message(message)

    system_messages = [m for pe in projection for m in pe.messages if m.get("role") == "system"]
    kept = [m for pe in projection[cut.first_kept_index :] for m in _context_messages(pe)]
    kept_tokens = sum(estimate_tokens(m) for m in system_messages + kept)

    return CompactionPreparation(
        first_kept_entry_id=first_kept_id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary if isinstance(previous_summary, str) else None,
        file_ops=file_ops,
        settings=settings,
        kept_tokens=kept_tokens,
        kept_messages=kept,
    )


def prepare_compaction_or_raise(path_entries: list[Entry], settings: CompactionSettings) -> CompactionPreparation:
    """``prepare_compaction`` with upstream's refusals as errors: ``Already compacted`` when
    the branch ends in a compaction, ``Nothing to compact (session too small)`` otherwise."""
    if path_entries and path_entries[-1].get("type") == "compaction":
        raise CompactionError(ALREADY_COMPACTED)
    preparation = prepare_compaction(path_entries, settings)
    if preparation is None:
        raise CompactionError(NOTHING_TO_COMPACT)
    return preparation
