"""The RPC ``bash`` command as a session runs it (a mixin of ``AgentSession``): run it with the
configured shell, stream its output, and record the ``bashExecution`` message now or, during a
run, when the run ends."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.types import BashExecutionMessage
from pi_rpc.runtime.host import SessionHost



class BashCommands(SessionHost):
    async def bash(
        self,
        command: str,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        from pi_rpc.runtime.bash_runner import record_external_result, run_bash_command

        hooked = await self.ext.user_bash(command, bool(exclude_from_context)) if self.ext is not None else None
        if hooked is not None and hooked.get("result") is not None:
            # An extension ran (or refused) the command itself: record what it reported.
            result, message = record_external_result(command, hooked["result"], exclude_from_context)
            if self._is_streaming:
                self._pending_bash_messages.append(message)
            else:
                self._record_bash_message(message)
            return result
        controller = AbortController()
        self._bash_controllers.add(controller)
        try:
            result, message = await run_bash_command(
                command,
                cwd=self.cwd,
                settings=self.settings,
                signal=controller.signal,
                on_chunk=on_chunk,
                exclude_from_context=exclude_from_context,
                operations=hooked.get("operations") if hooked is not None else None,
            )
        finally:
            self._bash_controllers.discard(controller)
        if self._is_streaming:
            self._pending_bash_messages.append(message)
        else:
            self._record_bash_message(message)
        return result

    def _record_bash_message(self, message: BashExecutionMessage) -> None:
        self.session.append_message(message)
        self.agent.messages.append(message)

    def _flush_pending_bash(self) -> None:
        pending, self._pending_bash_messages = self._pending_bash_messages, []
        for message in pending:
            self._record_bash_message(message)

    def abort_bash(self) -> None:
        for controller in list(self._bash_controllers):
            controller.abort()

