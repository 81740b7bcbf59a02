"""Binding a session to its store and replacing it (``new_session``, ``switch_session``,
``fork``, ``clone``, tree navigation), as a mixin of ``AgentSession``: the agent's context,
model and thinking level are restored from the store, queues handled as upstream does."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.ai.transcript import content_text
from pi_rpc.runtime.errors import ERR_INVALID_FORK_ENTRY, RuntimeCommandError
from pi_rpc.runtime.host import SessionHost
from pi_rpc.runtime.resources_state import ResourcesState
from pi_rpc.session.manager import SessionManager

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession


def _message_text(message: dict[str, Any]) -> str:
    return content_text(message.get("content"))


class SessionReplacement(SessionHost):
    def _restore_from_session(self, *, initial: bool = False) -> None:
        """Load the agent's context from the store (startup, switch, fork, clone, new)."""
        context = self.session.build_session_context()
        self.agent.messages = list(context.get("messages") or [])
        self.agent.session_id = self.session.session_id
        self._entry_id_by_message.clear()
        self._overflow_attempted = False
        stored_model = context.get("model")
        if stored_model and not (initial and self.options.model_explicit):
            found = self.registry.find(stored_model.get("provider"), stored_model.get("modelId"))
            if found is not None and self.registry.has_auth(found["provider"]):
                self.agent.model = found
        stored_level = context.get("thinkingLevel")
        if stored_level and not (initial and self.options.thinking_explicit) and self.session.get_entry_count() > 0:
            self.agent.thinking_level = self._clamp(stored_level)
        if self.session.get_entry_count() == 0:
            # A new session starts with the current selection recorded (upstream order).
            model = self.agent.model or self._placeholder_model()
            self.session.append_model_change(model["provider"], model["id"])
            self.session.append_thinking_level_change(self.agent.thinking_level)

    def reload_context_from_store(self) -> None:
        """Rebuild the agent's context after the leaf moved inside the same file."""
        context = self.session.build_session_context()
        self.agent.messages = list(context.get("messages") or [])
        self._entry_id_by_message.clear()

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]:
        """Move to another entry of this session's tree (SDK; upstream has no RPC command),
        optionally summarizing the abandoned branch into a ``branch_summary`` entry."""
        from pi_rpc.runtime.navigation import navigate_tree

        return await navigate_tree(
            cast("AgentSession", self),
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    async def _replace_session(self, new_manager: SessionManager, *, keep_queue_texts: bool = False) -> None:
        await self.abort()
        old = self.session
        self.session = new_manager
        self.store_faults.attach(new_manager)
        if old is not new_manager:
            self.store_faults.retire(old)  # closed now, or once a write fault lets go of it
        if not keep_queue_texts:
            # fork keeps both queues; switch keeps the agent's queues (upstream quirk) but
            # drops the texts behind pendingMessageCount; new_session clears everything.
            self._steering_texts.clear()
            self._follow_up_texts.clear()
        self._pending_bash_messages.clear()
        self._restore_from_session()


    async def new_session(self, parent_session: str | None = None, *, setup: Any = None) -> dict[str, Any]:
        """``setup(session_manager)`` (extensions' ``ctx.new_session``) may write to the new
        session before it starts."""
        ext = self.ext
        if ext is not None and await ext.before_switch("new"):
            return {"cancelled": True}
        await self.abort()
        previous_file = self.session.session_file
        new_manager = self.session.new_session(parent_session=parent_session or None)
        self.agent.clear_all_queues()
        if ext is not None:
            await ext.shutdown("new", new_manager.session_file)
        await self._replace_session(new_manager)
        if setup is not None:
            result = setup(new_manager)
            if hasattr(result, "__await__"):
                await result
            self.reload_context_from_store()
        if ext is not None:
            await ext.recreate("new", previous_file)
        return {"cancelled": False}

    async def switch_session(self, session_path: str) -> dict[str, Any]:
        path = Path(session_path).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        ext = self.ext
        if ext is not None and await ext.before_switch("resume", str(path)):
            return {"cancelled": True}
        await self.abort()
        from pi_rpc.runtime.factory import session_fsync_mode

        # A SessionError (locked, invalid, cwd gone) is the command's error (RuntimeBackend._wrap).
        new_manager = SessionManager.open(str(path), base_cwd=self.cwd, fsync=session_fsync_mode(self.settings))
        new_manager.check_cwd_exists(self.cwd)
        new_manager.print_diagnostics()
        previous_file = self.session.session_file
        if ext is not None:
            await ext.shutdown("resume", new_manager.session_file)
        await self._replace_session(new_manager)
        if new_manager.cwd != self.cwd:
            self._rebind_cwd(new_manager.cwd)
        if ext is not None:
            await ext.recreate("resume", previous_file)
        return {"cancelled": False}

    def _rebind_cwd(self, cwd: str) -> None:
        """The switched-to session works in its own cwd (upstream builds a new runtime there):
        tools, context files and the system prompt's cwd section follow it."""
        self.cwd = cwd
        self.options = replace(self.options, cwd=cwd, session=self.session)
        self.resources = ResourcesState(self.options, get_model=lambda: self.agent.model)
        if self.ext is not None:
            self.ext.on_resources_replaced()
        else:
            self.agent.tools = self.resources.tools

    async def fork(self, entry_id: Any, position: str = "before") -> dict[str, Any]:
        ext = self.ext
        # Upstream asks extensions before it checks the entry.
        if ext is not None and await ext.before_fork(entry_id, position):
            return {"cancelled": True}
        entry = self.session.get_entry(entry_id) if isinstance(entry_id, str) else None
        if (
            entry is None
            or entry.get("type") != "message"
            or (entry.get("message") or {}).get("role") != "user"
        ):
            raise RuntimeCommandError(ERR_INVALID_FORK_ENTRY)
        text = _message_text(entry["message"])
        await self.abort()
        previous_file = self.session.session_file
        # A SessionError (e.g. not saved yet) is the command's error, upstream's text.
        result = self.session.create_branched_session(entry_id, position)  # type: ignore[arg-type]
        if ext is not None:
            await ext.shutdown("fork", result.manager.session_file)
        await self._replace_session(result.manager, keep_queue_texts=True)
        if ext is not None:
            await ext.recreate("fork", previous_file)
        return {"text": text, "cancelled": False}

    async def clone(self) -> dict[str, Any]:
        ext = self.ext
        leaf = self.session.get_leaf_id()
        if ext is not None and leaf is not None and await ext.before_fork(leaf, "at"):
            return {"cancelled": True}
        await self.abort()
        previous_file = self.session.session_file
        result = self.session.clone()  # a SessionError is the command's error
        if ext is not None:
            await ext.shutdown("fork", result.manager.session_file)
        await self._replace_session(result.manager)
        if ext is not None:
            await ext.recreate("fork", previous_file)
        return {"cancelled": False}
