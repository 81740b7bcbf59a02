"""Branch summaries: condensing the branch a user leaves during tree navigation.

``collect_entries_for_branch_summary`` finds what is being left (old leaf back to the
common ancestor with the target); ``generate_branch_summary`` fits the newest part of it
into the model's budget and summarizes it. Failures raise like compaction does.
"""

from __future__ import annotations

from typing import Any, TypedDict

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.ai.types import Message, Model, Usage
from pi_rpc.compaction.compact import CompactionDetails
from pi_rpc.compaction.errors import CompactionCancelled
from pi_rpc.compaction.file_ops import FileOperations, format_file_operations
from pi_rpc.compaction.projection import Entry, collect_context_edits, compaction_summary_message, entry_to_messages
from pi_rpc.compaction.prompts import (
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    NO_CONTENT_TO_SUMMARIZE,
    build_prompt_text,
    with_focus,
)
from pi_rpc.compaction.request import (
    RetryCallback,
    StreamFn,
    complete_summarization,
    summary_context,
    summary_options,
    summary_text,
)
from pi_rpc.compaction.serialize import convert_to_llm, serialize_conversation
from pi_rpc.compaction.settings import DEFAULT_BRANCH_RESERVE_TOKENS, DEFAULT_RETRY_SETTINGS, RetrySettings
from pi_rpc.compaction.tokens import estimate_tokens

BRANCH_SUMMARY_MAX_TOKENS = 4096
DEFAULT_CONTEXT_WINDOW = 128000
BRANCH_SUMMARY_CANCELLED = "Branch summarization cancelled"


class BranchSummaryResult(TypedDict, total=False):
    summary: str
    details: CompactionDetails
    usage: Usage


class BranchEntries(TypedDict):
    entries: list[Entry]
    commonAncestorId: str | None


def _ancestry(entries_by_id: dict[str, Entry], start: str | None) -> list[str]:
    ids: list[str] = []
    seen: set[str] = set()
    current = start
    while isinstance(current, str) and current in entries_by_id and current not in seen:
        seen.add(current)
        ids.append(current)
        current = entries_by_id[current].get("parentId")
    return ids


def collect_entries_for_branch_summary(
    entries_by_id: dict[str, Entry], old_leaf_id: str | None, target_id: str | None
) -> BranchEntries:
    """Entries on the old leaf's path below its deepest common ancestor with ``target_id``,
    oldest first. Compactions on the way are included (their summaries are content)."""
    if old_leaf_id is None:
        return {"entries": [], "commonAncestorId": None}
    old_path = _ancestry(entries_by_id, old_leaf_id)
    old_set = set(old_path)
    ancestor = next((i for i in _ancestry(entries_by_id, target_id) if i in old_set), None)
    collected: list[Entry] = []
    for entry_id in old_path:
        if entry_id == ancestor:
            break
        collected.append(entries_by_id[entry_id])
    collected.reverse()
    return {"entries": collected, "commonAncestorId": ancestor}


def _branch_message(entry: Entry, edits: dict[str, Any]) -> Message | None:
    kind = entry.get("type")
    if kind == "compaction":
        return compaction_summary_message(entry)
    messages = entry_to_messages(entry, edits)
    if not messages:
        return None
    message = messages[0]
    # A tool result is carried by its call; system prompts are not branch content.
    if message.get("role") in ("toolResult", "system"):
        return None
    return message


def prepare_branch_entries(entries: list[Entry], token_budget: int) -> tuple[list[Message], FileOperations]:
    """The newest messages of ``entries`` that fit ``token_budget`` (a summary that does not
    fit still goes in while under 90% of the budget), plus their file operations."""
    file_ops = FileOperations()
    for entry in entries:
        if entry.get("type") == "branch_summary" and not entry.get("fromHook"):
            file_ops.add_details(entry.get("details"))
    edits = collect_context_edits(entries)
    messages: list[Message] = []
    total = 0
    for entry in reversed(entries):
        message = _branch_message(entry, edits)
        if message is None:
            continue
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            if entry.get("type") in ("compaction", "branch_summary") and total < token_budget * 0.9:
                messages.insert(0, message)
                total += tokens
            break
        messages.insert(0, message)
        total += tokens
        file_ops.add_message(message)
    return messages, file_ops


async def generate_branch_summary(
    entries: list[Entry],
    model: Model,
    api_key: str | None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    reserve_tokens: int = DEFAULT_BRANCH_RESERVE_TOKENS,
    stream_fn: StreamFn | None = None,
    on_retry: RetryCallback | None = None,
    retry_settings: RetrySettings = DEFAULT_RETRY_SETTINGS,
    *,
    session_id: str | None = None,
) -> BranchSummaryResult:
    """Summarize an abandoned branch: ``{summary, details, usage}`` (no ``usage`` and the
    summary ``No content to summarize`` when nothing fits). Raises ``CompactionCancelled``
    ("Branch summarization cancelled") or ``CompactionError`` like ``compact``."""
    window = model.get("contextWindow") or DEFAULT_CONTEXT_WINDOW
    messages, file_ops = prepare_branch_entries(entries, int(window) - reserve_tokens)
    if not messages:
        return {"summary": NO_CONTENT_TO_SUMMARIZE, "details": file_ops.details()}  # type: ignore[typeddict-item]

    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    else:
        instructions = with_focus(BRANCH_SUMMARY_PROMPT, custom_instructions)
    prompt = build_prompt_text(serialize_conversation(convert_to_llm(messages)), instructions)
    options = summary_options(
        model, max_tokens=BRANCH_SUMMARY_MAX_TOKENS, api_key=api_key, signal=signal, session_id=session_id
    )
    reply = await complete_summarization(
        model, summary_context(prompt), options, stream_fn=stream_fn, retry=retry_settings, on_retry=on_retry
    )
    if signal is not None and signal.aborted:
        raise CompactionCancelled(BRANCH_SUMMARY_CANCELLED)
    text = summary_text(reply, "Branch summarization", BRANCH_SUMMARY_CANCELLED)
    read_files, modified_files = file_ops.lists()
    result: BranchSummaryResult = {
        "summary": BRANCH_SUMMARY_PREAMBLE + text + format_file_operations(read_files, modified_files),
        "details": {"readFiles": read_files, "modifiedFiles": modified_files},
    }
    if isinstance(reply.get("usage"), dict):
        result["usage"] = reply["usage"]
    return result
