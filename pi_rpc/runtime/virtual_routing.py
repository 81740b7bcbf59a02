"""Requests under a virtual model selection (``pi_rpc.ai.models.virtual``): before each request
of the agent loop the selected virtual model's router picks the physical model and thinking
level of that request (upstream's ``prepareRequest``).

The selection (``model_change``, ``get_state``, ``ctx.model``) stays the virtual model; only the
request goes to the routed model, so the assistant message names the physical model and level.
The reason is ``retry`` after a failed reply was dropped for an automatic retry or an overflow
recovery (``failed``: that reply), ``user`` when a message the user wrote follows the latest
response, else ``continuation``. State a router returns is stored on the branch as a
``pi.virtual-model-state`` custom entry (announced with ``entry_appended``) before the request is
sent. A routing failure raises: the run ends with an error reply naming the virtual model.

The compaction threshold of a routed request is the routed model's: after the routing, a context
over it is compacted (``threshold``) before the request, which then goes with the rebuilt
context to the model already routed to (the router is not asked again), as upstream does.

On resume the selection follows upstream's rule (``branch_selection``); the extensions that
register virtual models load after the session was restored, so ``restore_virtual_selection``
applies the rule again once they did.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pi_rpc.agent.loop import TurnUpdate

# ``pi_rpc.ai.models.virtual`` is imported only where virtual models are registered
# (``registry.virtual``; registering one imports it): every session builds this module's
# routing, most never see a virtual model.

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.agent.types import AgentContext
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.ai.types import Message, Model
    from pi_rpc.runtime.events import EmitEvent
    from pi_rpc.session.manager import SessionManager


class VirtualRouting:
    """Routes the requests of one session whose selected model is virtual."""

    def __init__(
        self,
        *,
        registry: ModelRegistry,
        selection: Callable[[], tuple[Model | None, str]],
        store: SessionManager,
        emit: EmitEvent,
        convert: Callable[[list[Any]], list[Any]],
        compact: Callable[[Model], Awaitable[list[Message] | None]],
    ) -> None:
        self._registry = registry
        self._selection = selection
        self._session_store = store
        self._emit = emit
        self._convert = convert
        # Compacts when the context crosses the routed model's threshold: the rebuilt messages.
        self._compact = compact
        # The failed reply the next request repeats (an automatic retry, an overflow recovery).
        self.failed: Mapping[str, object] | None = None

    async def prepare_request(
        self, context: AgentContext, _model: Model, _level: str, signal: AbortSignal | None
    ) -> TurnUpdate | None:
        """The agent loop's hook before each request: the routed model, or None (a physical
        selection). The loop passes the model of the previous request; the selection is read
        from the session, so every request is routed from the virtual model."""
        failed, self.failed = self.failed, None
        model, level = self._selection()
        if model is None or self._registry.virtual is None:
            return None
        from pi_rpc.ai.models.virtual import VIRTUAL_MODEL_STATE_ENTRY, is_virtual, latest_response, latest_state

        if not is_virtual(model):
            return None
        messages = self._convert(list(context.messages))
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
        user_turn = any(m.get("role") == "user" for m in messages[last + 1 :])
        store = self._session_store
        branch = store.get_branch()
        state = latest_state(branch, model["provider"], model["id"])
        request: dict[str, object] = {
            "thinkingLevel": level,
            "reason": "retry" if failed is not None else "user" if user_turn else "continuation",
            "messages": messages,
            "signal": signal,
            "state": state,
        }
        latest = latest_response(messages)
        previous = (
            self._registry.physical_model(str(latest.get("provider")), str(latest.get("model"))) if latest else None
        )
        if previous is not None and latest is not None:
            request["previous"] = {"model": previous, "thinkingLevel": latest.get("thinkingLevel")}
        failed_model = (
            self._registry.physical_model(str(failed.get("provider")), str(failed.get("model")))
            if failed is not None
            else None
        )
        if failed_model is not None and failed is not None:
            request["failed"] = {"model": failed_model, "thinkingLevel": failed.get("thinkingLevel"), "message": failed}
        route = await self._registry.virtual.route(
            model, request, physical=self._registry.physical_model, has_auth=self._registry.has_auth
        )
        if route.has_state and route.state is not state:
            data = {"provider": model["provider"], "modelId": model["id"], "state": route.state}
            entry = store.get_entry(store.append_custom_entry(VIRTUAL_MODEL_STATE_ENTRY, data))
            if entry is not None:
                await self._emit({"type": "entry_appended", "entry": entry})
        update = TurnUpdate(model=route.model, thinking_level=route.thinking_level)
        compacted = await self._compact(route.model)
        if compacted is not None:
            update.context = replace(context, messages=compacted)
        return update


def stored_selection(
    registry: ModelRegistry, store: SessionManager, recorded: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """The model a resumed branch selects: ``recorded`` (the latest ``model_change`` or
    response) unless virtual models are registered, then upstream's ``branch_selection``."""
    if registry.virtual is None:
        return recorded
    from pi_rpc.ai.models.virtual import branch_selection

    return branch_selection(store.get_branch(), registry.find)


def restore_virtual_selection(
    registry: ModelRegistry,
    store: SessionManager,
    agent: Agent,
    *,
    model_explicit: bool,
    thinking_explicit: bool,
    clamp: Callable[[str], str],
) -> None:
    """After the extensions loaded: a resumed session whose branch selects a virtual model they
    registered selects it again (its level clamped to it), as upstream restores it. A model
    or level given on the command line wins, as on any resume."""
    if registry.virtual is None or model_explicit or store.get_entry_count() == 0:
        return
    selection = stored_selection(registry, store, None)
    if selection is None:
        return
    from pi_rpc.ai.models.virtual import is_virtual

    found = registry.find(str(selection.get("provider")), str(selection.get("modelId")))
    if found is None or not is_virtual(found) or not registry.has_auth(found["provider"]):
        return
    agent.model = found
    level = store.build_session_context().get("thinkingLevel")
    if level and not thinking_explicit:
        agent.thinking_level = clamp(str(level))
