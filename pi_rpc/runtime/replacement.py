"""Binding a session to its store and replacing it (``new_session``, ``switch_session``,
``fork``, ``clone``): the agent's context, model and thinking level are restored from the
store, queues handled as upstream does.

The four commands share one path (``SessionReplacement._replace``): ask extensions
(``session_before_switch`` / ``session_before_fork``, which may cancel), abort what runs, make
the new store, shut the extensions down, swap the store in, then recreate the extensions."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from pi_rpc.ai.models.catalog import placeholder_model
from pi_rpc.ai.transcript import content_text
from pi_rpc.runtime.errors import ERR_INVALID_FORK_ENTRY, RuntimeCommandError
from pi_rpc.runtime.options import session_fsync_mode
from pi_rpc.runtime.session_catalog import client_session_ref
from pi_rpc.session.backends import backend_for, is_sqlite_locator
from pi_rpc.session.manager import SessionManager, print_diagnostics

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.runtime.options import RuntimeOptions


class ReplacementHooks(Protocol):
    """What extensions are asked and told around a replacement (``SessionExtensions``)."""

    async def before_switch(self, reason: str, target_session_file: str | None = None) -> bool: ...

    async def before_fork(self, entry_id: str, position: str) -> bool: ...

    async def shutdown(self, reason: str, target_session_file: str | None = None) -> None: ...

    async def recreate(self, reason: str, previous_session_file: str | None, *, fresh: bool = False) -> None: ...


class SessionReplacement:
    """Which store the session works on, and the commands that put another one in its place.

    The session owns the store reference (``bind_store`` swaps it and moves the write-fault
    reporter along); this object decides when, and what else follows: queues, deferred bash
    output, the recorded-entry ids and the overflow flag belong to the old store."""

    def __init__(
        self,
        *,
        agent: Agent,
        options: RuntimeOptions,
        store: Callable[[], SessionManager],
        bind_store: Callable[[SessionManager], None],
        cwd: Callable[[], str],
        rebind_cwd: Callable[[str], None],
        abort: Callable[[], Awaitable[bool]],
        clamp: Callable[[str], str],
        entry_ids: dict[int, str],
        forget_queue_texts: Callable[[], None],
        drop_pending_bash: Callable[[], None],
        reset_overflow: Callable[[], None],
        hooks: ReplacementHooks | None,
    ) -> None:
        self._agent = agent
        self._registry = options.registry
        self._settings = options.settings
        # Only the first restore keeps a model or level given on the command line.
        self._model_explicit = options.model_explicit
        self._thinking_explicit = options.thinking_explicit
        self._store = store
        self._bind_store = bind_store
        self._cwd = cwd
        self._rebind_cwd = rebind_cwd
        self._abort = abort
        self._clamp = clamp
        self._entry_ids = entry_ids  # the session's dict, cleared in place
        self._forget_queue_texts = forget_queue_texts
        self._drop_pending_bash = drop_pending_bash
        self._reset_overflow = reset_overflow
        self._hooks = hooks

    # ------------------------------------------------------------------ binding

    def restore_from_session(self, *, initial: bool = False) -> None:
        """Load the agent's context from the store (startup, switch, fork, clone, new)."""
        store = self._store()
        context = store.build_session_context()
        self._agent.messages = list(context.get("messages") or [])
        self._agent.session_id = store.session_id
        self._entry_ids.clear()
        self._reset_overflow()
        stored_model = context.get("model")
        if stored_model and not (initial and self._model_explicit):
            found = self._registry.find(stored_model.get("provider"), stored_model.get("modelId"))
            if found is not None and self._registry.has_auth(found["provider"]):
                self._agent.model = found
        stored_level = context.get("thinkingLevel")
        if stored_level and not (initial and self._thinking_explicit) and store.get_entry_count() > 0:
            self._agent.thinking_level = self._clamp(stored_level)
        if store.get_entry_count() == 0:
            # A new session starts with the current selection recorded (upstream order).
            model = self._agent.model or placeholder_model()
            store.append_model_change(model["provider"], model["id"])
            store.append_thinking_level_change(self._agent.thinking_level)

    def reload_context_from_store(self) -> None:
        """Rebuild the agent's context after the leaf moved inside the same file."""
        context = self._store().build_session_context()
        self._agent.messages = list(context.get("messages") or [])
        self._entry_ids.clear()

    # ------------------------------------------------------------------ the replacement path

    async def _replace(
        self,
        reason: str,
        cancelled: Callable[[ReplacementHooks], Awaitable[bool]],
        make_manager: Callable[[SessionManager], SessionManager | Awaitable[SessionManager]],
        *,
        check: Callable[[], None] | None = None,
        keep_queue_texts: bool = False,
        then: Callable[[SessionManager], Awaitable[None]] | None = None,
    ) -> bool:
        """Replace the store with ``make_manager(current store)``; False when an extension's
        ``cancelled`` answer kept the session. ``reason`` is what extensions are told
        (``new``, ``resume``, ``fork``). ``check`` may refuse the command once extensions
        have been asked (upstream's order); ``then`` runs before they are recreated."""
        hooks = self._hooks
        if hooks is not None and await cancelled(hooks):
            return False
        if check is not None:
            check()
        await self._abort()
        old = self._store()
        previous_file = old.session_file
        # A SessionError (not saved yet, locked, cwd gone) is the command's error, upstream's
        # text (RuntimeBackend._wrap).
        made = make_manager(old)
        new_manager = await made if inspect.isawaitable(made) else made
        if hooks is not None:
            await hooks.shutdown(reason, new_manager.session_file)
        await self._abort()  # once more: the shutdown handlers may have started work on the old store
        self._bind_store(new_manager)
        if not keep_queue_texts:
            # fork keeps both queues; switch keeps the agent's queues (upstream quirk) but
            # drops the texts behind pendingMessageCount; new_session clears everything.
            self._forget_queue_texts()
        self._drop_pending_bash()
        self.restore_from_session()
        if then is not None:
            await then(new_manager)
        if hooks is not None:
            await hooks.recreate(reason, previous_file)
        return True

    async def new_session(self, parent_session: str | None = None, *, setup: Any = None) -> dict[str, Any]:
        """``setup(session_manager)`` (extensions' ``ctx.new_session``) may write to the new
        session before it starts."""

        def make(old: SessionManager) -> SessionManager:
            manager = old.new_session(parent_session=parent_session or None)
            self._agent.clear_all_queues()
            return manager

        async def run_setup(new_manager: SessionManager) -> None:
            if setup is not None:
                result = setup(new_manager)
                if hasattr(result, "__await__"):
                    await result
                self.reload_context_from_store()

        replaced = await self._replace("new", lambda hooks: hooks.before_switch("new"), make, then=run_setup)
        return {"cancelled": not replaced}

    async def switch_session(self, session_path: str, *, cwd_override: str | None = None) -> dict[str, Any]:
        """``cwd_override`` opens the session in that cwd instead of its stored one, not written
        to the file (the interactive ``/import`` "Continue in <cwd>" answer, as upstream's
        ``importFromJsonl(path, cwdOverride)``)."""
        path = client_session_ref(session_path)
        if is_sqlite_locator(path) and not _stored(path):
            # A file path may name a new session (upstream); an id the database does not hold
            # is refused: switching never creates a session in a database.
            raise RuntimeCommandError(f"Session file not found: {path}")

        def open_it(cwd: str) -> SessionManager:
            manager = SessionManager.open(
                str(path), base_cwd=cwd, cwd_override=cwd_override, fsync=session_fsync_mode(self._settings)
            )
            try:
                manager.check_cwd_exists(cwd)
            except BaseException:
                manager.close()
                raise
            print_diagnostics(manager)
            return manager

        async def make(old: SessionManager) -> SessionManager:
            # Opened in a worker thread: reading the file, taking its lock and the format
            # migration's rewrite (a session database's write lock, waited for up to its busy
            # timeout) never stall the event loop. Shielded: an opened store is never dropped
            # with its lock held.
            with anyio.CancelScope(shield=True):
                manager = await anyio.to_thread.run_sync(open_it, self._cwd())
            return manager

        async def follow_cwd(new_manager: SessionManager) -> None:
            if new_manager.cwd != self._cwd():
                self._rebind_cwd(new_manager.cwd)

        replaced = await self._replace(
            "resume", lambda hooks: hooks.before_switch("resume", str(path)), make, then=follow_cwd
        )
        return {"cancelled": not replaced}

    async def fork(self, entry_id: Any, position: str = "before") -> dict[str, Any]:
        text = ""

        def check_entry() -> None:
            nonlocal text
            entry = self._store().get_entry(entry_id) if isinstance(entry_id, str) else None
            if entry is None or entry.get("type") != "message" or (entry.get("message") or {}).get("role") != "user":
                raise RuntimeCommandError(ERR_INVALID_FORK_ENTRY)
            text = content_text(entry["message"].get("content"))

        replaced = await self._replace(
            "fork",
            lambda hooks: hooks.before_fork(entry_id, position),
            lambda old: old.create_branched_session(entry_id, position).manager,  # type: ignore[arg-type]
            check=check_entry,
            keep_queue_texts=True,
        )
        return {"text": text, "cancelled": False} if replaced else {"cancelled": True}

    async def clone(self) -> dict[str, Any]:
        leaf = self._store().get_leaf_id()

        async def cancelled(hooks: ReplacementHooks) -> bool:
            return leaf is not None and await hooks.before_fork(leaf, "at")

        replaced = await self._replace("fork", cancelled, lambda old: old.clone().manager)
        return {"cancelled": not replaced}


def _stored(locator: str) -> bool:
    """Whether the database holds the session; a database that cannot be read counts as
    holding it, so opening it reports the database's own error."""
    try:
        return backend_for(locator).exists(locator)
    except Exception:  # noqa: BLE001 - the open that follows names the fault
        return True
