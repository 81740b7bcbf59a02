"""``SessionHost``: what the ``AgentSession`` mixins (model control, bash commands, session
replacement, session catalogue) may use of the session they are part of. Declarations for type checking only;
``AgentSession`` provides the real attributes and methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.ai.abort import AbortController
    from pi_rpc.ai.types import BashExecutionMessage, Model
    from pi_rpc.config.settings import Settings
    from pi_rpc.runtime.compaction_runner import CompactionRunner
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.extension_host import SessionExtensions
    from pi_rpc.runtime.resources_state import ResourcesState
    from pi_rpc.runtime.retry import RetryController
    from pi_rpc.runtime.store_faults import StoreFaultReporter
    from pi_rpc.session.manager import SessionManager


class SessionHost:
    if TYPE_CHECKING:
        agent: Agent
        session: SessionManager
        settings: Settings
        registry: Any  # pi_rpc.ai.models.ModelRegistry
        options: RuntimeOptions
        resources: ResourcesState
        retry: RetryController
        compaction: CompactionRunner
        store_faults: StoreFaultReporter
        cwd: str
        ext: SessionExtensions | None
        _is_streaming: bool
        _overflow_attempted: bool
        _entry_id_by_message: dict[int, str]
        _steering_texts: list[str]
        _follow_up_texts: list[str]
        _pending_bash_messages: list[BashExecutionMessage]
        _bash_controllers: set[AbortController]

        async def emit(self, event: dict[str, Any]) -> None: ...
        async def abort(self) -> bool: ...
        async def set_session_name(self, name: str) -> None: ...
        def reload_context_from_store(self) -> None: ...
        def _clamp(self, level: str) -> str: ...
        def _placeholder_model(self) -> Model: ...
