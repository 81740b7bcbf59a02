"""The RPC ``bash`` command as a session runs it: run it with the configured shell in the cwd
the session gives, stream its output, and have the session record the ``bashExecution`` message
now or, during a run, when the run ends (the part never holds the store: a replacement puts
another one in place, and a command running across it records into the new one)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.types import BashExecutionMessage

if TYPE_CHECKING:
    from pi_rpc.config.settings import Settings

# An extension's ``user_bash`` hook (``SessionExtensions.user_bash``): it may run the command
# itself (``{"result"}``) or lend the operations to run it with (``{"operations"}``).
UserBashHook = Callable[[str, bool], Awaitable[dict[str, Any] | None]]


class BashCommands:
    """The session's ``bash`` commands: the ones running (``abort_bash`` stops them) and the
    messages of those that ended during a run, recorded after it."""

    def __init__(
        self,
        *,
        record: Callable[[BashExecutionMessage], None],
        settings: Settings,
        is_streaming: Callable[[], bool],
        user_bash: UserBashHook | None,
    ) -> None:
        self._record = record  # the session stores the message and adds it to the context
        self._settings = settings
        self._is_streaming = is_streaming
        self._user_bash = user_bash
        self._pending_messages: list[BashExecutionMessage] = []
        self._controllers: set[AbortController] = set()

    async def bash(
        self,
        command: str,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], Awaitable[None]] | None = None,
        *,
        cwd: str,
    ) -> dict[str, object]:
        from pi_rpc.runtime.bash_runner import record_external_result, run_bash_command

        hooked = await self._user_bash(command, bool(exclude_from_context)) if self._user_bash is not None else None
        if hooked is not None and hooked.get("result") is not None:
            # An extension ran (or refused) the command itself: record what it reported.
            result, message = record_external_result(command, hooked["result"], exclude_from_context)
            self._record_or_defer(message)
            return result
        controller = AbortController()
        self._controllers.add(controller)
        try:
            result, message = await run_bash_command(
                command,
                cwd=cwd,
                settings=self._settings,
                signal=controller.signal,
                on_chunk=on_chunk,
                exclude_from_context=exclude_from_context,
                operations=hooked.get("operations") if hooked is not None else None,
            )
        finally:
            self._controllers.discard(controller)
        self._record_or_defer(message)
        return result

    def _record_or_defer(self, message: BashExecutionMessage) -> None:
        # During a run the message would land between the run's messages: record it after.
        if self._is_streaming():
            self._pending_messages.append(message)
        else:
            self._record(message)

    def flush_pending(self) -> None:
        """Record the messages deferred during the run that just ended."""
        pending, self._pending_messages = self._pending_messages, []
        for message in pending:
            self._record(message)

    def drop_pending(self) -> None:
        """The session was replaced: deferred messages belonged to the old one."""
        self._pending_messages.clear()

    def abort_bash(self) -> None:
        for controller in list(self._controllers):
            controller.abort()
