"""Tree navigation inside one session file (upstream ``navigateTree``, which 1.6 offers to
extensions and the SDK but not over RPC): move the leaf to another entry, optionally leaving a
``branch_summary`` of the abandoned branch at the new position so the model keeps what was
learned there."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.transcript import content_text
from pi_rpc.compaction.errors import CompactionCancelled
from pi_rpc.runtime.compaction_runner import Emit, ExtensionEmit
from pi_rpc.runtime.errors import ERR_NAVIGATE_WHILE_COMPACTING, ERR_NAVIGATE_WHILE_STREAMING, RuntimeCommandError

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.compaction.events import SummarizationRetryEvent
    from pi_rpc.config.settings import Settings
    from pi_rpc.runtime.compaction_runner import CompactionRunner
    from pi_rpc.session.entries import Entry
    from pi_rpc.session.manager import SessionManager


class TreeNavigation:
    """``navigate_tree`` of one session. A branch summary runs as a compaction does (the
    compaction runner counts it as compacting and ``abort`` cancels it)."""

    def __init__(
        self,
        *,
        agent: Agent,
        store: SessionManager,
        settings: Settings,
        compaction: CompactionRunner,
        is_streaming: Callable[[], bool],
        reload_context: Callable[[], None],
        emit: Emit,
        ext_emit: ExtensionEmit | None,
    ) -> None:
        self._agent = agent
        # The store navigated: a replaced session gets a new part (``holder``).
        self._store = store
        self._settings = settings
        self._compaction = compaction  # counts the summary as compacting; sends summary requests
        self._is_streaming = is_streaming
        self._reload_context = reload_context
        self._emit = emit
        self._ext_emit = ext_emit

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, object]:
        """Move to another entry of this session's tree (SDK; upstream has no RPC command),
        optionally summarizing the abandoned branch into a ``branch_summary`` entry.

        Returns ``{cancelled, editorText?, aborted?}`` like upstream. Refused while a run or a
        compaction (or another navigation's summary) is in progress, as upstream refuses it."""
        # The branch summariser loads at the first navigation, not with the session.
        from pi_rpc.compaction import collect_entries_for_branch_summary

        if self._is_streaming():
            raise RuntimeCommandError(ERR_NAVIGATE_WHILE_STREAMING)
        if self._compaction.active:
            raise RuntimeCommandError(ERR_NAVIGATE_WHILE_COMPACTING)
        store = self._store
        old_leaf = store.get_leaf_id()
        if target_id == old_leaf:
            return {"cancelled": False}
        model = self._agent.model
        if summarize and model is None:
            raise RuntimeCommandError("No model available for summarization")
        target = store.get_entry(target_id)
        if target is None:
            raise RuntimeCommandError(f"Entry {target_id} not found")

        by_id = {e["id"]: e for e in store.get_entries()}
        collected = collect_entries_for_branch_summary(by_id, old_leaf, target_id)
        entries = collected["entries"]
        hook_summary: dict[str, object] | None = None
        if self._ext_emit is not None:
            hook = await self._ext_emit(
                {
                    "type": "session_before_tree",
                    "preparation": {
                        "targetId": target_id,
                        "oldLeafId": old_leaf,
                        "commonAncestorId": collected.get("commonAncestorId"),
                        "entriesToSummarize": entries,
                        "userWantsSummary": summarize,
                        "customInstructions": custom_instructions,
                        "replaceInstructions": replace_instructions,
                        "label": label,
                    },
                    "signal": None,
                }
            )
            if isinstance(hook, dict):
                if hook.get("cancel"):
                    return {"cancelled": True}
                changes = _tree_hook_changes(hook, summarize)
                hook_summary = changes.get("summary")
                custom_instructions = changes.get("customInstructions", custom_instructions)
                replace_instructions = changes.get("replaceInstructions", replace_instructions)
                label = changes.get("label", label)

        summary: dict[str, Any] | None = hook_summary
        if summarize and hook_summary is None and entries:
            assert model is not None
            summary = await self._summarize_branch(
                entries, model, custom_instructions, replace_instructions, store.session_id
            )
            if summary is None:
                return {"cancelled": True, "aborted": True}

        result: dict[str, object] = {"cancelled": False}
        new_leaf, editor_text = _new_leaf(target, target_id)
        if editor_text is not None:
            result["editorText"] = editor_text
        if new_leaf is not None and store.get_entry(new_leaf) is None:
            # A parent that names no entry (hand-edited: an array, a missing id): the target
            # is a root of the tree, as get_tree shows it.
            new_leaf = None

        summary_entry: Entry | None = None
        if summary is not None and summary.get("summary"):
            summary_id = store.branch_with_summary(
                new_leaf,
                summary["summary"],
                details=summary.get("details"),
                usage=summary.get("usage"),
                **({"from_hook": True} if hook_summary is not None else {}),
            )
            summary_entry = store.get_entry(summary_id)
            if label:
                store.append_label_change(summary_id, label)
        else:
            if new_leaf is None:
                store.reset_leaf()
            else:
                store.branch(new_leaf)
            if label:
                store.append_label_change(target_id, label)
        self._reload_context()
        if self._ext_emit is not None:
            await self._ext_emit(
                {
                    "type": "session_tree",
                    "newLeafId": store.get_leaf_id(),
                    "oldLeafId": old_leaf,
                    "summaryEntry": summary_entry,
                    "fromExtension": (hook_summary is not None) if summary_entry is not None else None,
                }
            )
        return result

    async def _summarize_branch(
        self,
        entries: list[Entry],
        model: Any,
        custom_instructions: str | None,
        replace_instructions: bool,
        session_id: str,
    ) -> dict[str, object] | None:
        """The abandoned branch's summary, counted as compacting while it is made; None when it
        was cancelled. Raises ``RuntimeCommandError`` when it fails."""
        from pi_rpc.compaction import generate_branch_summary

        controller = AbortController()
        self._compaction.begin_external(controller)

        async def on_retry(event: SummarizationRetryEvent) -> None:
            if event["type"] == "summarization_retry_attempt_start":
                event = {"type": event["type"], "source": "branchSummary"}
            await self._emit(event)

        try:
            api_key, stream_fn, retry = await self._compaction.summary_request(model)
            return dict(
                await generate_branch_summary(
                    entries,
                    model,
                    api_key,
                    controller.signal,
                    custom_instructions,
                    replace_instructions,
                    self._settings.branch_summary_reserve_tokens,
                    stream_fn,
                    on_retry,
                    retry,
                    session_id=session_id,
                )
            )
        except CompactionCancelled:
            return None
        except Exception as exc:  # noqa: BLE001 - reported as the command's error
            raise RuntimeCommandError(str(exc)) from None
        finally:
            self._compaction.end_external()


def _tree_hook_changes(hook: dict[str, Any], summarize: bool) -> dict[str, Any]:
    """What a ``session_before_tree`` handler's answer changes: its own summary (when one is
    wanted), the instructions, the label (a None value changes nothing)."""
    changes: dict[str, object] = {}
    if isinstance(hook.get("summary"), dict) and summarize:
        changes["summary"] = dict(hook["summary"])
    if hook.get("customInstructions") is not None:
        changes["customInstructions"] = hook["customInstructions"]
    if hook.get("replaceInstructions") is not None:
        changes["replaceInstructions"] = bool(hook["replaceInstructions"])
    if hook.get("label") is not None:
        changes["label"] = hook["label"]
    return changes


def _new_leaf(target: Entry, target_id: str) -> tuple[Any, str | None]:
    """Where navigating to ``target`` leaves the leaf, and the text the editor gets back: a
    user message (or a custom message) is re-edited from its parent; any other entry becomes
    the leaf."""
    message = target.get("message") if target.get("type") == "message" else None
    if isinstance(message, dict) and message.get("role") == "user":
        return target.get("parentId"), content_text(message.get("content"))
    if target.get("type") == "custom_message":
        return target.get("parentId"), content_text(target.get("content"))
    return target_id, None
