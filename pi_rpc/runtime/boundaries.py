"""The actionable boundaries extensions act on: ``turn_end`` and ``agent_before_settle``
(upstream 1.6's ``emitBoundary``, ``_dispatchTurnEndBoundary`` and ``_runBeforeSettleBoundary``).

Handlers propose session entries (drafts of type ``custom``, ``custom_message``,
``context_edit``, ``compaction``; other types are ignored, as upstream) and a continuation.
Each handler sees the proposal so far and ``context`` rebuilt from it: the drafts are applied
to an in-memory copy of the branch (which checks them: an unknown ``context_edit`` target, a
target off the branch, a bad replacement), giving ``contextEntries``, ``contextMessages``,
``llmMessages``, ``pendingMessages`` and ``canContinue``. After the last handler a valid
proposal is appended in order (each entry announced with ``entry_appended``) and the live
context is rebuilt from the session; ``continue`` asks for one more request, refused (reported
as ``<boundary>``) when the context could not start one.

``turn_end`` runs after the turn's messages are recorded and before clients see ``turn_end``;
``agent_before_settle`` runs once nothing else will continue the run (no retry, compaction or
queued message), is skipped after an abort, and an abort while its handlers run keeps the
committed entries but suppresses the continuation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pi_rpc.agent.convert import convert_to_llm

if TYPE_CHECKING:
    from pi_rpc.extensions.events import BoundaryEvent
    from pi_rpc.runtime.extension_port import SessionWiring
    from pi_rpc.runtime.extension_state import ExtensionState
    from pi_rpc.session.entries import Entry
    from pi_rpc.session.manager import SessionManager

BOUNDARY_PATH = "<boundary>"


def outcome_of(message: Mapping[str, object]) -> str:
    reason = message.get("stopReason")
    return "aborted" if reason == "aborted" else "error" if reason == "error" else "completed"


def apply_drafts(manager: SessionManager, drafts: object) -> list[Entry]:
    """Append ``drafts`` to ``manager``; returns the appended entries. Raises on an invalid
    draft (the manager's own checks) or when ``drafts`` is not a list."""
    if isinstance(drafts, str):
        drafts = list(drafts)  # upstream iterates a string's characters: nothing is a draft
    if not isinstance(drafts, (list, tuple)):
        raise TypeError(f"entries must be a list, got {type(drafts).__name__}")
    appended: list[Entry] = []
    for draft in drafts:
        if not isinstance(draft, dict):
            continue
        kind = draft.get("type")
        entry_id: str | None = None
        if kind == "custom":
            entry_id = manager.append_custom_entry(str(draft.get("customType")), draft.get("data"))
        elif kind == "custom_message":
            entry_id = manager.append_custom_message_entry(
                str(draft.get("customType")), draft.get("content"), draft.get("display"), draft.get("details")
            )
        elif kind == "context_edit":
            entry_id = manager.append_context_edit(str(draft.get("targetId")), draft.get("replacement"))
        elif kind == "compaction":
            from pi_rpc.session.stats import estimate_projected_context_tokens

            tokens = estimate_projected_context_tokens(manager.build_session_projection(), manager.get_branch())[
                "tokens"
            ]
            entry_id = manager.append_compaction(
                str(draft.get("summary")),
                draft.get("firstKeptEntryId"),
                tokens,
                draft.get("details"),
                True,
                draft.get("usage"),
            )
        entry = manager.get_entry(entry_id) if entry_id is not None else None
        if entry is not None:
            appended.append(entry)
    return appended


class Boundaries:
    """The boundary hooks of one session with extensions."""

    def __init__(self, state: ExtensionState, wiring: SessionWiring) -> None:
        self.state = state
        self.wiring = wiring
        self.last_outcome = "completed"
        self._dispatched: set[int] = set()  # turn_end messages the loop's finish_turn handled
        self.context_replaced = False  # the live context was rebuilt: the next turn uses it
        self._before_settle = False
        self.abort_during_before_settle = False

    # ------------------------------------------------------------------ context previews

    async def build_context(self, drafts: object, boundary: str) -> dict[str, object]:
        from pi_rpc.session.manager import SessionManager

        view = self.state.port.state
        store = view.session_manager
        manager = SessionManager.in_memory(store.get_cwd(), entries=[store.get_header(), *store.get_branch()])
        apply_drafts(manager, drafts)
        projection = manager.build_session_projection()
        pending_custom = self.state.pending_custom_messages
        queued_messages = view.queued_messages()
        pending = [*queued_messages, *pending_custom]
        llm_messages = convert_to_llm(projection["messages"])
        final_role = llm_messages[-1].get("role") if llm_messages else None
        has_context = any(m.get("role") != "system" for m in llm_messages)
        queued = bool(queued_messages)
        can_continue = (
            (has_context and final_role != "assistant")
            or bool(pending_custom)
            or (queued if boundary == "turn_end" else final_role == "assistant" and queued)
        )
        return {
            "contextEntries": projection["entries"],
            "contextMessages": projection["messages"],
            "llmMessages": llm_messages,
            "pendingMessages": pending,
            "canContinue": can_continue,
        }

    async def _emit(self, base_event: BoundaryEvent) -> tuple[list[object], bool]:
        runner = self.state.runner
        assert runner is not None
        boundary = str(base_event["type"])
        result = await runner.emit_boundary(base_event, lambda drafts: self.build_context(drafts, boundary))
        await self._commit(result.entries if result.valid else [])
        return result.entries, result.continue_

    async def _commit(self, drafts: object) -> None:
        appended = self.state.port.commit_entries(drafts)
        if not appended:
            return
        self.context_replaced = True
        for entry in appended:
            await self.wiring.emit({"type": "entry_appended", "entry": entry})

    def _invalid_continuation(self, boundary: str) -> None:
        runner = self.state.runner
        if runner is not None:
            runner.emit_error(
                {
                    "extensionPath": BOUNDARY_PATH,
                    "event": boundary,
                    "error": f"{boundary} requested continuation without runnable model context",
                }
            )

    # ------------------------------------------------------------------ turn_end

    async def finish_turn(self, message: Mapping[str, object], tool_results: Sequence[Mapping[str, object]]) -> bool:
        """The loop's ``finish_turn``: ``turn_end`` handlers; True asks for one more request."""
        self._dispatched.add(id(message))
        return await self.turn_end(message, tool_results)

    def take_dispatched(self, message: dict[str, object]) -> bool:
        """Whether ``finish_turn`` already ran ``turn_end`` handlers for this message."""
        key = id(message)
        if key in self._dispatched:
            self._dispatched.discard(key)
            return True
        return False

    async def turn_end(self, message: Mapping[str, object], tool_results: Sequence[Mapping[str, object]]) -> bool:
        self.last_outcome = outcome_of(message)
        runner = self.state.runner
        if runner is None or not runner.has_handlers("turn_end"):
            return False
        entry_ids = self.wiring.entry_ids_by_message
        message_entry_id = entry_ids.get(id(message))
        if message_entry_id is None:
            runner.emit_error(
                {
                    "extensionPath": BOUNDARY_PATH,
                    "event": "turn_end",
                    "error": "turn_end could not resolve the persisted assistant entry ID",
                }
            )
            return False
        result_ids = [entry_ids[id(r)] for r in tool_results if id(r) in entry_ids]
        _entries, should_continue = await self._emit(
            {
                "type": "turn_end",
                "turnIndex": self.state.turn_index,
                "message": message,
                "toolResults": tool_results,
                "messageEntryId": message_entry_id,
                "toolResultEntryIds": result_ids,
                "outcome": self.last_outcome,
            }
        )
        if should_continue and not (await self.build_context([], "turn_end"))["canContinue"]:
            self._invalid_continuation("turn_end")
            return False
        return should_continue

    # ------------------------------------------------------------------ agent_before_settle

    async def before_settle(self) -> bool:
        """``agent_before_settle`` handlers; True when the run goes on (a continuation asked
        for, or messages queued meanwhile)."""
        view = self.state.port.state
        runner = self.state.runner
        if runner is None or not runner.has_handlers("agent_before_settle"):
            return False  # queued messages were already delivered by the session
        self._before_settle = True
        self.abort_during_before_settle = False
        try:
            _entries, asked = await self._emit({"type": "agent_before_settle", "outcome": self.last_outcome})
            self.state.deliver_pending_custom_messages()  # custom messages held back while the run streamed
            final = await self.build_context([], "agent_before_settle")
            if self.abort_during_before_settle:
                return False
            go_on = asked or bool(view.queued_messages())
            if go_on and not final["canContinue"]:
                if asked:
                    self._invalid_continuation("agent_before_settle")
                return False
            return go_on
        finally:
            self._before_settle = False

    def note_abort(self) -> None:
        """An abort arrived: a continuation asked for by running ``agent_before_settle``
        handlers is dropped (their entries are still committed)."""
        if self._before_settle:
            self.abort_during_before_settle = True
