"""``LiveSessionPort``: the ``SessionPort`` a session with extensions builds for them, and its
``LiveSessionState``, the read-only ``SessionStateView`` (``port.state``).

It is the one place that turns the port's verbs into work on the session's parts (the agent,
the current store, the model control, the compaction runner); the extension modules see only
the verbs and the view. Verbs the session already has are bound once (no wrapper frame per
call); state is read through properties, because the session replaces its store, options and
resources.

``SessionParts`` is what this module reads of ``AgentSession`` (which satisfies it; mypy
checks that where the session builds the port). Neither module imports ``runtime.session``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from pi_rpc.extensions.context import ReadonlySessionManager
from pi_rpc.runtime.thinking_levels import effective_thinking_level
from pi_rpc.runtime.thinking_levels import record_thinking_level as record_level

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.models import ModelRegistry
    from pi_rpc.ai.types import CustomMessage, Message, Model
    from pi_rpc.config.settings import Settings
    from pi_rpc.runtime.compaction_runner import CompactionRunner
    from pi_rpc.runtime.model_control import ModelControl
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.resources_state import ResourcesState
    from pi_rpc.session.entries import Entry
    from pi_rpc.session.manager import SessionManager


class SessionParts(Protocol):
    """What ``LiveSessionPort`` works on (implemented by ``AgentSession``)."""

    @property
    def options(self) -> RuntimeOptions: ...
    @property
    def cwd(self) -> str: ...
    @property
    def agent(self) -> Agent: ...
    @property
    def session(self) -> SessionManager: ...
    @property
    def resources(self) -> ResourcesState: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def registry(self) -> ModelRegistry: ...
    @property
    def models(self) -> ModelControl: ...
    @property
    def compaction(self) -> CompactionRunner: ...
    @property
    def is_streaming(self) -> bool: ...
    @property
    def is_compacting(self) -> bool: ...
    @property
    def pending_message_count(self) -> int: ...
    @property
    def entry_ids_by_message(self) -> dict[int, str]: ...
    async def prompt(
        self,
        text: str,
        images: list[dict[str, object]] | None = None,
        streaming_behavior: str | None = None,
        *,
        source: str = "interactive",
        expand_templates: bool = True,
    ) -> str: ...
    async def start_custom_run(self, message: CustomMessage) -> None: ...
    def append_custom_message_now(self, message: CustomMessage) -> None: ...
    async def abort(self) -> bool: ...
    async def wait_for_settled(self) -> None: ...
    async def compact(self, custom_instructions: str | None = None) -> dict[str, object]: ...
    def get_commands(self) -> list[dict[str, object]]: ...
    def get_session_stats(self) -> dict[str, object]: ...
    async def reload_sources(self) -> list[object] | None: ...
    async def new_session(
        self, parent_session: str | None = None, *, setup: object = None, with_session: object = None
    ) -> dict[str, object]: ...
    async def fork(
        self, entry_id: object, position: str = "before", *, with_session: object = None
    ) -> dict[str, object]: ...
    async def switch_session(self, session_path: str, *, with_session: object = None) -> dict[str, object]: ...
    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, object]: ...


class LiveSessionState:
    """``SessionStateView`` over one ``AgentSession``: every read goes to the live part."""

    def __init__(self, parts: SessionParts) -> None:
        self._parts = parts
        # The session's own queries, bound once (stable for the session's life).
        self.commands = parts.get_commands
        self.session_stats = parts.get_session_stats
        # The agent outlives store replacements.
        self.queued_messages = parts.agent.peek_queued_messages

    @property
    def options(self) -> RuntimeOptions:
        return self._parts.options

    @property
    def cwd(self) -> str:
        return self._parts.cwd

    @property
    def resources(self) -> ResourcesState:
        return self._parts.resources

    @property
    def registry(self) -> ModelRegistry:
        return self._parts.registry

    @property
    def session_manager(self) -> ReadonlySessionManager:
        return ReadonlySessionManager(self._parts.session)

    @property
    def project_trusted(self) -> bool:
        return bool(self._parts.options.project_trusted)

    @property
    def model(self) -> Model | None:
        return self._parts.agent.model

    @property
    def thinking_level(self) -> str:
        return self._parts.agent.thinking_level

    @property
    def is_streaming(self) -> bool:
        return self._parts.is_streaming

    @property
    def is_compacting(self) -> bool:
        return self._parts.is_compacting

    @property
    def pending_message_count(self) -> int:
        return self._parts.pending_message_count

    @property
    def messages(self) -> list[Message]:
        return self._parts.agent.messages

    @property
    def signal(self) -> AbortSignal | None:
        return self._parts.agent.signal

    def active_tool_names(self) -> list[str]:
        return [tool.name for tool in self._parts.agent.tools]

    def settings(self) -> dict[str, object]:
        return self._parts.settings.as_dict()


class LiveSessionPort:
    """``SessionPort`` over one ``AgentSession``."""

    def __init__(self, parts: SessionParts) -> None:
        self._parts = parts
        self.state = LiveSessionState(parts)
        # The session's own methods and its holder's replacements, bound once (stable for the
        # session's life). The port is built before the session's other parts (they report to
        # the extensions), so what the session takes from those parts is looked up per call
        # (``navigate_tree``, the navigation's).
        self.prompt = parts.prompt
        self.start_custom_run = parts.start_custom_run
        self.append_custom_message_now = parts.append_custom_message_now
        self.abort = parts.abort
        self.compact = parts.compact
        self.reload_sources = parts.reload_sources
        self.new_session = parts.new_session
        self.fork = parts.fork
        self.switch_session = parts.switch_session
        # The agent outlives store replacements: its queue verbs are bound once too.
        agent = parts.agent
        self.steer = agent.steer
        self.follow_up = agent.follow_up

    # ------------------------------------------------------------------ entries

    def append_custom_entry(self, custom_type: str, data: object) -> Entry | None:
        store = self._parts.session
        return store.get_entry(store.append_custom_entry(custom_type, data))

    def append_session_name(self, name: str) -> str | None:
        store = self._parts.session
        store.append_session_info(name)
        return store.get_session_name()

    def set_entry_label(self, entry_id: str, label: str | None) -> None:
        self._parts.session.append_label_change(entry_id, label)

    def commit_entries(self, drafts: object) -> list[Entry]:
        from pi_rpc.runtime.boundaries import apply_drafts

        parts = self._parts
        store = parts.session
        appended = apply_drafts(store, drafts)
        if appended:
            # The live context becomes the session's projection (upstream _refreshFinalizedContext).
            projection = store.build_session_projection()
            entry_ids = parts.entry_ids_by_message
            for projected in projection["entries"]:
                for message in projected["messages"]:
                    entry_ids[id(message)] = projected["sourceEntry"]["id"]
            parts.agent.messages = list(projection["messages"])
        return appended

    # ------------------------------------------------------------------ model, thinking level, idle

    async def set_model(self, model: dict[str, object]) -> bool:
        parts = self._parts
        provider = model.get("provider")
        if not isinstance(provider, str) or not parts.registry.has_auth(provider):
            return False
        await parts.models.apply_model(cast("Model", model), "set")  # as the extension gave it
        return True

    def record_thinking_level(self, level: str) -> tuple[str, str] | None:
        parts = self._parts
        effective = effective_thinking_level(parts.agent.model, level)
        previous = record_level(parts.agent, parts.session, effective)
        return None if previous is None else (effective, previous)

    async def wait_for_idle(self) -> None:
        await self._parts.wait_for_settled()
        await self._parts.compaction.wait_idle()

    # ------------------------------------------------------------------ the session tree

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, object]:
        return await self._parts.navigate_tree(
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )
