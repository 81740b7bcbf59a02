"""The in-process Python SDK: drive a pi session from a Python host without a subprocess.

A thin layer over :class:`~pi_rpc.runtime.session.AgentSession` (the facade every mode uses),
so the SDK behaves exactly like ``pi --mode rpc``: same session files, settings, model
registry, tools, retries and compaction. Example::

    import anyio
    from pi_rpc.runtime import open_session

    async def main() -> None:
        async with open_session(cwd=".", model="faux/faux-1") as session:
            result = await session.prompt_and_wait("hello")
            print(result.text)          # the final assistant text
            print(len(result.events))   # every session event of that run

    anyio.run(main)

Configuration comes from the usual places (``PI_CODING_AGENT_DIR`` or ``~/.pi/agent``:
settings.json, models.json, auth). Extensions load as for the command line (discovered ones,
plus ``extensions=[paths]``; ``no_extensions=True`` disables discovery); by default they run
without a user (``ctx.has_ui`` false, dialogs return their defaults) unless ``extension_ui``
(a ``pi_rpc.extensions.ExtensionUI`` subclass) is given, and their errors are collected in
``PiSession.extension_errors`` (and passed to ``on_extension_error`` when given). Events are the runtime's dicts (upstream camelCase shape;
``message_update`` still carries the cumulative ``assistantMessageEvent.partial``).
Listeners may be sync or async functions; they run in the session's task.
Startup problems (unknown model, session not found...) raise ``StartupProblem``; refused
commands raise ``RuntimeCommandError`` with upstream's error text, and what the session store
refuses (a file another process holds, one that is not a session, an unknown entry) raises the
store's ``pi_rpc.session.errors.SessionError`` with its text. All three are ``pi_rpc.errors``
types under ``PiError`` (``StartupProblem`` and ``RuntimeCommandError`` are the SDK's names for
``StartupError`` and ``CommandError``).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.ai.transcript import content_text_concat
from pi_rpc.ai.types import AssistantMessage, Message, Model, is_assistant
from pi_rpc.config.cli_args import BUILTIN_TOOLS, SESSION_STORES, THINKING_LEVELS, CliArgs
from pi_rpc.runtime.errors import RuntimeCommandError
from pi_rpc.runtime.events import SessionEvent
from pi_rpc.runtime.factory import StartupProblem, build_runtime_options
from pi_rpc.runtime.grace import SHUTDOWN_GRACE_SECONDS
from pi_rpc.runtime.holder import DrivenSession
from pi_rpc.runtime.session import AgentSession

if TYPE_CHECKING:
    from pi_rpc.session.entries import Entry, SessionHeader

__all__ = ["PiSession", "PromptResult", "RuntimeCommandError", "StartupProblem", "open_session"]

Event = SessionEvent
Listener = Callable[[Event], Awaitable[None] | None]


@dataclass
class PromptResult:
    """Everything one prompt produced, from ``agent_start`` to ``agent_settled``."""

    events: list[Event] = field(default_factory=list)

    @property
    def messages(self) -> list[Message]:
        """Messages completed during the run (``message_end`` order; all roles)."""
        return [e["message"] for e in self.events if e["type"] == "message_end"]

    @property
    def message(self) -> AssistantMessage | None:
        """The final assistant message (None if the run produced none)."""
        for message in reversed(self.messages):
            if is_assistant(message):
                return message
        return None

    @property
    def text(self) -> str:
        """The final assistant message's text blocks, concatenated."""
        message = self.message
        return content_text_concat(message.get("content") if message is not None else None)

    @property
    def stop_reason(self) -> str | None:
        message = self.message
        return message.get("stopReason") if message is not None else None

    @property
    def error_message(self) -> str | None:
        message = self.message
        return message.get("errorMessage") if message is not None else None

    @property
    def aborted(self) -> bool:
        settled = next((e for e in reversed(self.events) if e.get("type") == "agent_settled"), None)
        return bool(settled and settled.get("aborted"))

    @property
    def ok(self) -> bool:
        """True when the final reply exists and did not end in an error or an abort."""
        return self.message is not None and self.stop_reason not in ("error", "aborted")


def _as_async(listener: Listener) -> Callable[[Event], Awaitable[None]]:
    async def call(event: Event) -> None:
        result = listener(event)
        if inspect.isawaitable(result):
            await result

    return call


class PiSession:
    """A live session opened by :func:`open_session`. ``agent_session`` is the underlying
    runtime facade for anything this wrapper does not expose."""

    def __init__(self, agent_session: AgentSession) -> None:
        # The session's holder, the seam a client drives (``DrivenSession``): events and
        # replacements go through it; ``agent_session`` is its current session.
        self.holder: DrivenSession = agent_session.holder
        self._holder = agent_session.holder
        # ``extension_error`` records ({extensionPath, event, error}) of this session.
        self.extension_errors: list[dict[str, Any]] = []

    @property
    def agent_session(self) -> AgentSession:
        """The holder's current session (a replacement never leaves this wrapper on an old one)."""
        return self._holder.current

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for every session event; returns an unsubscribe function."""
        return self.holder.subscribe(_as_async(listener))

    # ------------------------------------------------------------------ prompting

    async def prompt(
        self,
        text: str,
        images: list[dict[str, Any]] | None = None,
        streaming_behavior: str | None = None,
    ) -> str:
        """Start a run (``"started"``) or, while one is running and ``streaming_behavior`` is
        ``"steer"``/``"followUp"``, queue the message (``"queued"``). Does not wait."""
        return await self.agent_session.prompt(text, images, streaming_behavior)

    async def prompt_and_wait(self, text: str, images: list[dict[str, Any]] | None = None) -> PromptResult:
        """Run one prompt to the end (retries and compaction included) and return its events."""
        result = PromptResult()

        async def collect(event: Event) -> None:
            result.events.append(event)

        unsubscribe = self.holder.subscribe(collect)
        try:
            await self.agent_session.prompt(text, images)
            await self.agent_session.wait_for_settled()
        finally:
            unsubscribe()
        return result

    async def steer(self, text: str, images: list[dict[str, Any]] | None = None) -> str:
        return await self.holder.steer(text, images)

    async def follow_up(self, text: str, images: list[dict[str, Any]] | None = None) -> str:
        return await self.holder.follow_up(text, images)

    async def wait_for_idle(self) -> None:
        """Return once the current run (if any) has settled."""
        await self.agent_session.wait_for_settled()

    async def abort(self) -> None:
        """Abort the run, retry wait and compaction; returns once idle."""
        await self.agent_session.abort()

    @property
    def is_streaming(self) -> bool:
        return self.agent_session.is_streaming

    # ------------------------------------------------------------------ session tree

    async def fork(self, entry_id: str, position: str = "before") -> dict[str, Any]:
        """Continue in a new session branched at a user message entry (``{"text", "cancelled"}``)."""
        return await self.holder.fork(entry_id, position)

    async def clone(self) -> dict[str, Any]:
        return await self.holder.clone()

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]:
        """Move to another entry of this session's tree (same file). With ``summarize`` the
        abandoned branch is summarized into a ``branch_summary`` entry the model sees.
        Returns ``{"cancelled", "editorText"?, "aborted"?}``."""
        return await self.agent_session.navigate_tree(
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        return await self.holder.new_session(parent_session)

    async def switch_session(self, session_path: str) -> dict[str, Any]:
        return await self.holder.switch_session(session_path)

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Summarise older context now (aborts a running prompt first)."""
        return await self.agent_session.compact(custom_instructions)

    def get_fork_messages(self) -> list[dict[str, str]]:
        """User messages that can be forked from: ``[{"entryId", "text"}]``."""
        return self.agent_session.session.get_fork_messages()

    def get_entries(self, since: str | None = None) -> list[Entry]:
        return self.agent_session.session.get_entries(since)

    def get_tree(self) -> list[dict[str, Any]]:
        return self.agent_session.session.get_tree()

    # ------------------------------------------------------------------ model and state

    async def set_model(self, provider: str, model_id: str) -> Model:
        return await self.agent_session.set_model(provider, model_id)

    async def set_thinking_level(self, level: str) -> None:
        await self.agent_session.set_thinking_level(level)

    async def set_session_name(self, name: str) -> None:
        await self.agent_session.set_session_name(name)

    def get_state(self) -> dict[str, Any]:
        return self.agent_session.get_state()

    def get_messages(self) -> list[Message]:
        return self.agent_session.get_messages()

    def get_last_assistant_text(self) -> str | None:
        return self.agent_session.get_last_assistant_text().get("text")

    def get_session_stats(self) -> dict[str, Any]:
        return self.agent_session.get_session_stats()

    def get_available_models(self) -> list[Model]:
        return self.agent_session.get_available_models()

    @property
    def model(self) -> Model | None:
        return self.agent_session.model

    @property
    def thinking_level(self) -> str:
        return self.agent_session.thinking_level

    @property
    def session_id(self) -> str:
        return self.agent_session.session.session_id

    @property
    def session_file(self) -> str | None:
        return self.agent_session.session.session_file

    @property
    def header(self) -> SessionHeader:
        """The session header (``{"type":"session","version":3,"id",...}``)."""
        return self.agent_session.session.get_header().copy()


def _check_names(values: Sequence[str], valid: Sequence[str], what: str) -> tuple[str, ...]:
    unknown = [v for v in values if v not in valid]
    if unknown:
        raise ValueError(f"Unknown {what}: {', '.join(unknown)}. Valid: {', '.join(valid)}")
    return tuple(values)


def build_cli_args(
    *,
    model: str | None = None,
    provider: str | None = None,
    thinking: str | None = None,
    api_key: str | None = None,
    no_session: bool | None = None,
    session: str | None = None,
    session_dir: str | None = None,
    session_store: str | None = None,
    session_db: str | os.PathLike[str] | None = None,
    session_id: str | None = None,
    continue_session: bool = False,
    fork: str | None = None,
    name: str | None = None,
    tools: Sequence[str] | None = None,
    no_tools: bool = False,
    exclude_tools: Sequence[str] = (),
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] = (),
    skills: Sequence[str] = (),
    no_skills: bool = False,
    prompt_templates: Sequence[str] = (),
    no_prompt_templates: bool = False,
    no_context_files: bool = False,
    approve: bool | None = None,
    faux_script: str | os.PathLike[str] | None = None,
    extensions: Sequence[str | os.PathLike[str]] = (),
    no_extensions: bool = False,
) -> CliArgs:
    """The ``CliArgs`` equivalent of SDK options (validated like the command line).
    ``no_session=None``: in memory unless a session, session dir or store, continue or fork
    is given."""
    persistent_hint = bool(session or session_dir or session_store or session_db or continue_session or fork)
    in_memory = (not persistent_hint) if no_session is None else no_session
    if fork is not None and (session is not None or continue_session or in_memory):
        raise ValueError("fork cannot be combined with session, continue_session or no_session")
    if thinking is not None:
        _check_names([thinking], THINKING_LEVELS, "thinking level")
    if session_store is not None:
        _check_names([session_store], SESSION_STORES, "session store")
    return CliArgs(
        model=model,
        provider=provider,
        thinking=thinking,
        api_key=api_key,
        no_session=in_memory,
        session=session,
        session_dir=None if session_dir is None else os.fspath(session_dir),
        session_store=session_store,
        session_db=None if session_db is None else os.fspath(session_db),
        session_id=session_id,
        continue_session=continue_session,
        fork=fork,
        name=name,
        # A tool name may be an extension's: checked by open_session once they are loaded.
        tools=None if tools is None else tuple(tools),
        no_tools=no_tools,
        exclude_tools=tuple(exclude_tools),
        system_prompt=system_prompt,
        append_system_prompt=tuple(append_system_prompt),
        skills=tuple(os.fspath(s) for s in skills),
        no_skills=no_skills,
        prompt_templates=tuple(os.fspath(p) for p in prompt_templates),
        no_prompt_templates=no_prompt_templates,
        no_context_files=no_context_files,
        approve=approve,
        faux_script=None if faux_script is None else os.fspath(faux_script),
        extensions=tuple(os.fspath(e) for e in extensions),
        no_extensions=no_extensions,
    )


def _check_tool_names(agent_session: AgentSession, names: Sequence[str]) -> None:
    valid = list(BUILTIN_TOOLS)
    if agent_session.ext is not None:
        valid += [t["name"] for t in agent_session.ext.get_all_tools() if t["name"] not in valid]
    _check_names(list(names), valid, "tool")


async def _start_extensions(
    pi_session: PiSession,
    ui: Any,
    mode: str,
    on_error: Callable[[dict[str, Any]], Any] | None,
) -> None:
    from pi_rpc.extensions.host import ModeBinding

    def record(error: Any) -> None:
        pi_session.extension_errors.append(dict(error))
        if on_error is not None:
            on_error(dict(error))

    # An extension that fails to load raises StartupError (StartupProblem) naming the file.
    await pi_session.agent_session.start_extensions(ModeBinding(mode=mode, ui=ui, on_error=record))


@asynccontextmanager
async def open_session(
    *,
    cwd: str | os.PathLike[str] | None = None,
    stream_fn: Any = None,
    extension_ui: Any = None,
    extension_mode: str = "print",
    on_extension_error: Callable[[dict[str, Any]], Any] | None = None,
    **options: Any,
) -> AsyncIterator[PiSession]:
    """Open a session for the duration of the ``async with`` block.

    ``cwd``: the project directory (default: the process cwd). ``stream_fn``: replaces the
    LLM streaming function (``pi_rpc.ai.stream.stream`` signature). Every other keyword is a
    command-line equivalent accepted by :func:`build_cli_args`: ``model`` ("faux/faux-1",
    "anthropic/claude-sonnet-4-5:high", ...), ``provider``, ``thinking``, ``api_key``,
    ``no_session``, ``session``, ``session_dir``, ``session_store`` ("jsonl", "sqlite" or "postgres"),
    ``session_db``, ``session_id``, ``continue_session``,
    ``fork``, ``name``, ``tools``, ``no_tools``, ``exclude_tools``, ``system_prompt``,
    ``append_system_prompt``, ``skills``, ``no_skills``, ``prompt_templates``,
    ``no_prompt_templates``, ``no_context_files``, ``approve``, ``faux_script``,
    ``extensions`` (paths, like ``-e``), ``no_extensions``.

    ``extension_ui``: ``ctx.ui`` for extensions (an ``ExtensionUI`` subclass; default: none);
    ``extension_mode``: ``ctx.mode`` (default ``"print"``); ``on_extension_error(record)``.
    An extension that fails to load raises ``StartupProblem`` naming the file.

    On exit the session is shut down like the CLI does (running work aborted, files closed).
    """
    args = build_cli_args(**options)
    from pi_rpc.runtime.project_trust import resolve_startup_trust

    where = None if cwd is None else os.fspath(cwd)
    trust = await resolve_startup_trust(args, cwd=where, mode=extension_mode)
    runtime_options = build_runtime_options(args, cwd=where, stream_fn=stream_fn, trust=trust)
    agent_session = AgentSession(runtime_options)
    # An error in the caller's block is re-raised as itself after the task group closes,
    # not wrapped in an ExceptionGroup.
    body_error: Exception | None = None
    pi_session = PiSession(agent_session)
    async with anyio.create_task_group() as tg:
        agent_session.bind_task_group(tg)
        try:
            if args.name:
                try:
                    await agent_session.set_session_name(args.name)
                except RuntimeCommandError:
                    pass  # an empty name is ignored, like --name
            if agent_session.ext is not None:
                await _start_extensions(pi_session, extension_ui, extension_mode, on_extension_error)
            if args.tools is not None:
                _check_tool_names(agent_session, args.tools)
            yield pi_session
        except Exception as exc:  # noqa: BLE001 - re-raised below
            body_error = exc
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                # The session now current: a replacement disposed the first one.
                await agent_session.holder.current.shutdown()
            tg.cancel_scope.cancel()
    if body_error is not None:
        raise body_error
