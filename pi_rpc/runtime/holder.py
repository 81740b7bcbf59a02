"""The current session and its replacement (upstream ``AgentSessionRuntime``).

``SessionHolder`` owns "the current session" of a mode: ``new_session``, ``switch_session``,
``fork`` and ``clone`` put a FRESH ``AgentSession`` in its place (built by the factory:
``runtime.factory.successor_session``), dispose the old one and then tell the holder's
subscribers once (``on_replaced(session)``). The modes (RPC, the session host, ACP, interactive,
print, the SDK) follow the holder instead of keeping a session object.

The holder also owns what outlives one session: the subscribers of the session events (a mode
subscribes once, through the holder, and keeps its subscription across replacements), the
mode's task group, and the store-fault reporter (a store a replacement retired finishes its
writes through it, and is closed with the last session).

The four commands share one path (``SessionHolder._replace``), upstream's order: ask extensions
(``session_before_switch`` / ``session_before_fork``, which may cancel), abort what runs, make
the new store, shut the extensions down (``session_shutdown``), abort again, build the fresh
session on the new store and dispose the old one, then start the new session's extensions
(``session_start``) and notify the subscribers.

``DrivenSession`` names the seam a client drives: "a session", whether it runs in this process
(a ``SessionHolder``) or across a connection (``pi attach``): its commands, its event stream
and the replacement notice."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import anyio

from pi_rpc.agent.listeners import Listeners
from pi_rpc.ai.transcript import content_text
from pi_rpc.runtime.errors import ERR_INVALID_FORK_ENTRY, RuntimeCommandError
from pi_rpc.runtime.options import session_fsync_mode
from pi_rpc.runtime.predecessor import Predecessor
from pi_rpc.runtime.session_catalog import client_session_ref
from pi_rpc.runtime.store_faults import StoreFaultReporter
from pi_rpc.session.backends import backend_for, is_sqlite_locator
from pi_rpc.session.entries import is_message_entry
from pi_rpc.session.manager import SessionManager, print_diagnostics

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from pi_rpc.config.settings import Settings
    from pi_rpc.extensions.host import ModeBinding
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.events import SessionListener as EventListener


class ReplacementHooks(Protocol):
    """What extensions are asked and told around a replacement (``SessionExtensions``)."""

    @property
    def binding(self) -> ModeBinding: ...

    async def before_switch(self, reason: str, target_session_file: str | None = None) -> bool: ...

    async def before_fork(self, entry_id: str, position: str) -> bool: ...

    async def shutdown(self, reason: str, target_session_file: str | None = None) -> None: ...

    async def recreate(
        self,
        reason: str,
        previous_session_file: str | None,
        *,
        fresh: bool = False,
        binding: ModeBinding | None = None,
    ) -> None: ...

    async def with_session(self, callback: Callable[..., object]) -> None: ...


class HeldSession(Predecessor, Protocol):
    """What the holder needs of the session it holds (``AgentSession``; a protocol, so that
    ``session`` imports the holder and not the other way round): what the factory reads to
    build its successor (``Predecessor``), and more."""

    @property
    def ext(self) -> ReplacementHooks | None: ...

    @property
    def session(self) -> SessionManager: ...

    @property
    def cwd(self) -> str: ...

    @property
    def settings(self) -> Settings: ...

    async def emit(self, event: SessionEvent) -> None: ...

    async def prompt(self, text: str, images: list[dict[str, object]] | None = None) -> str: ...

    async def steer(self, text: str, images: list[dict[str, object]] | None = None) -> str: ...

    async def follow_up(self, text: str, images: list[dict[str, object]] | None = None) -> str: ...

    async def abort(self) -> bool: ...

    def get_state(self) -> dict[str, object]: ...

    def dispose(self) -> None: ...

    def reload_context_from_store(self) -> None: ...


S = TypeVar("S", bound=HeldSession)
# What a subscriber is told once per replacement: the session now current.
OnReplaced = Callable[[S], Awaitable[None] | None]


class DrivenSession(Protocol):
    """A session as a client drives it, in this process or across a connection: prompts and
    queues, abort, the four replacements, state, and two streams (events; replacements)."""

    def subscribe(self, listener: EventListener) -> Callable[[], None]: ...

    def on_replaced(self, subscriber: Callable[[object], Awaitable[None] | None]) -> Callable[[], None]: ...

    async def prompt(self, text: str, images: list[dict[str, object]] | None = None) -> str: ...

    async def steer(self, text: str, images: list[dict[str, object]] | None = None) -> str: ...

    async def follow_up(self, text: str, images: list[dict[str, object]] | None = None) -> str: ...

    async def abort(self) -> bool: ...

    async def new_session(self, parent_session: str | None = None) -> dict[str, object]: ...

    async def switch_session(self, session_path: str) -> dict[str, object]: ...

    async def fork(self, entry_id: object, position: str = "before") -> dict[str, object]: ...

    async def clone(self) -> dict[str, object]: ...

    def get_state(self) -> dict[str, object]: ...


class SessionHolder(Generic[S]):
    """The current session (an ``AgentSession``) and the commands that put a fresh one in its place.

    Subscribers (``on_replaced``) are told once per replacement that went through (not when an
    extension cancelled it), after the new session's extensions started. Event listeners
    (``subscribe``) belong to the holder: every session it holds emits to them."""

    def __init__(self, session: S) -> None:
        self._session = session
        self._replaced: Listeners[OnReplaced[S]] = Listeners()
        self.listeners: Listeners[EventListener] = Listeners()
        # The mode's task group (``AgentSession.bind_task_group``): every held session's
        # background runs start there.
        self.task_group: TaskGroup | None = None
        # One reporter for the holder's life: a store a replacement retired keeps retrying its
        # writes through it and is closed with the last session's (``close_store``).
        self.store_faults = StoreFaultReporter(self._emit, self._task_group)

    @property
    def current(self) -> S:
        return self._session

    def on_replaced(self, subscriber: OnReplaced[S]) -> Callable[[], None]:
        """``subscriber(session)`` after every replacement; returns the unsubscribe."""
        return self._replaced.subscribe(subscriber)

    def _emit(self, event: SessionEvent) -> Awaitable[None]:
        return self._session.emit(event)

    def _task_group(self) -> TaskGroup | None:
        return self.task_group

    # ------------------------------------------------------------------ the client's seam

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """The current session's events; a listener stays subscribed across replacements."""
        return self.listeners.subscribe(listener)

    async def prompt(self, text: str, images: list[dict[str, object]] | None = None) -> str:
        return await self._session.prompt(text, images)

    async def steer(self, text: str, images: list[dict[str, object]] | None = None) -> str:
        return await self._session.steer(text, images)

    async def follow_up(self, text: str, images: list[dict[str, object]] | None = None) -> str:
        return await self._session.follow_up(text, images)

    async def abort(self) -> bool:
        return await self._session.abort()

    def get_state(self) -> dict[str, object]:
        return self._session.get_state()

    # ------------------------------------------------------------------ the replacement path

    async def _notify(self) -> None:
        for subscriber in self._replaced.all:
            result = subscriber(self._session)
            if inspect.isawaitable(result):
                await result

    async def _replace(
        self,
        reason: str,
        cancelled: Callable[[ReplacementHooks], Awaitable[bool]],
        make_manager: Callable[[SessionManager], SessionManager | Awaitable[SessionManager]],
        *,
        check: Callable[[], None] | None = None,
        keep_queue_texts: bool = False,
        follow_cwd: bool = False,
        then: Callable[[S], Awaitable[None]] | None = None,
        with_session: Callable[..., object] | None = None,
    ) -> bool:
        """Put a fresh session on ``make_manager(current store)`` in the current one's place;
        False when an extension's ``cancelled`` answer kept the session. ``reason`` is what
        extensions are told (``new``, ``resume``, ``fork``). ``check`` may refuse the command
        once extensions have been asked (upstream's order); ``follow_cwd``: the new session
        works in its store's cwd (a switch); ``then(new session)`` runs before its extensions
        start; ``with_session`` (an extension's callback) gets the new session's ``ctx`` once
        the subscribers were told (upstream's ``finishSessionReplacement``)."""
        from pi_rpc.runtime.factory import successor_session

        session = self._session
        hooks: ReplacementHooks | None = session.ext
        if hooks is not None and await cancelled(hooks):
            return False
        if check is not None:
            check()
        await session.abort()
        old = session.session
        previous_file = old.session_file
        # A SessionError (not saved yet, locked, cwd gone) is the command's error, upstream's
        # text (RuntimeBackend._wrap).
        made = make_manager(old)
        new_manager = await made if inspect.isawaitable(made) else made
        if hooks is not None:
            await hooks.shutdown(reason, new_manager.session_file)
        await session.abort()  # once more: the shutdown handlers may have started work on the old store
        cwd = new_manager.cwd if follow_cwd else session.cwd
        try:
            fresh = successor_session(session, new_manager, cwd, keep_queue_texts=keep_queue_texts)
        except BaseException:
            new_manager.close()  # (its lock is not left held; the old session stays current)
            raise
        self._session = fresh
        session.dispose()
        if then is not None:
            await then(fresh)
        if fresh.ext is not None:
            await fresh.ext.recreate(reason, previous_file, binding=hooks.binding if hooks is not None else None)
        await self._notify()
        if with_session is not None and fresh.ext is not None:
            await fresh.ext.with_session(with_session)
        return True

    async def new_session(
        self, parent_session: str | None = None, *, setup: Any = None, with_session: Any = None
    ) -> dict[str, object]:
        """``setup(session_manager)`` (extensions' ``ctx.new_session``) may write to the new
        session before it starts; ``with_session(ctx)`` runs once it started."""
        session = self._session

        def make(old: SessionManager) -> SessionManager:
            manager = old.new_session(parent_session=parent_session or None)
            session.agent.clear_all_queues()
            return manager

        async def run_setup(fresh: S) -> None:
            if setup is not None:
                result = setup(fresh.session)
                if hasattr(result, "__await__"):
                    await result
                fresh.reload_context_from_store()

        replaced = await self._replace(
            "new", lambda hooks: hooks.before_switch("new"), make, then=run_setup, with_session=with_session
        )
        return {"cancelled": not replaced}

    async def switch_session(
        self, session_path: str, *, cwd_override: str | None = None, with_session: Any = None
    ) -> dict[str, object]:
        """``cwd_override`` opens the session in that cwd instead of its stored one, not written
        to the file (the interactive ``/import`` "Continue in <cwd>" answer, as upstream's
        ``importFromJsonl(path, cwdOverride)``)."""
        session = self._session
        path = client_session_ref(session_path)
        if is_sqlite_locator(path) and not _stored(path):
            # A file path may name a new session (upstream); an id the database does not hold
            # is refused: switching never creates a session in a database.
            raise RuntimeCommandError(f"Session file not found: {path}")

        def open_it(cwd: str) -> SessionManager:
            manager = SessionManager.open(
                str(path), base_cwd=cwd, cwd_override=cwd_override, fsync=session_fsync_mode(session.settings)
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
                manager = await anyio.to_thread.run_sync(open_it, session.cwd)
            return manager

        replaced = await self._replace(
            "resume",
            lambda hooks: hooks.before_switch("resume", str(path)),
            make,
            follow_cwd=True,
            with_session=with_session,
        )
        return {"cancelled": not replaced}

    async def fork(self, entry_id: Any, position: str = "before", *, with_session: Any = None) -> dict[str, Any]:
        session = self._session
        text = ""

        def check_entry() -> None:
            nonlocal text
            entry = session.session.get_entry(entry_id) if isinstance(entry_id, str) else None
            if entry is None or not is_message_entry(entry) or (entry.get("message") or {}).get("role") != "user":
                raise RuntimeCommandError(ERR_INVALID_FORK_ENTRY)
            text = content_text(entry["message"].get("content"))

        replaced = await self._replace(
            "fork",
            lambda hooks: hooks.before_fork(entry_id, position),
            lambda old: old.create_branched_session(entry_id, position).manager,  # type: ignore[arg-type]
            check=check_entry,
            keep_queue_texts=True,
            with_session=with_session,
        )
        return {"text": text, "cancelled": False} if replaced else {"cancelled": True}

    async def clone(self) -> dict[str, object]:
        leaf = self._session.session.get_leaf_id()

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
