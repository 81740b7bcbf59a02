"""The session-management commands beyond upstream (``list_sessions``, ``rename_session``,
``delete_session``, ``navigate_tree``, ``set_label``), a collaborator of ``RuntimeBackend``:
thin adapters from the validated command to ``AgentSession`` (``runtime.session_catalog``,
``runtime.navigation``). Values the schema cannot express are checked here with the same
``Invalid command`` wording as the validator's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_rpc.modes.rpc.registry import CommandContext, CommandError

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession


class CatalogCommands:
    """The session-catalog commands of one session."""

    def __init__(self, session: AgentSession) -> None:
        self._holder = session.holder

    @property
    def session(self) -> AgentSession:
        """The holder's current session (a replacement never leaves these commands on an old one)."""
        return self._holder.current

    async def cmd_list_sessions(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        limit = cmd.get("limit")
        if limit is not None and limit <= 0:
            raise CommandError(
                f'Invalid command "list_sessions": field "limit": expected a positive integer, got {limit}'
            )
        sessions = self.session.list_sessions(cmd.get("scope") or "cwd", limit, cmd.get("query"))
        return {"sessions": sessions}

    async def cmd_rename_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        await self.session.rename_session(cmd["sessionPath"], cmd["name"])
        return None

    async def cmd_delete_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        await self.session.delete_session(cmd["sessionPath"])
        return None

    async def cmd_navigate_tree(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        result = await self.session.navigate_tree(
            cmd["targetId"],
            summarize=bool(cmd.get("summarize")),
            custom_instructions=cmd.get("customInstructions"),
        )
        # The SDK's result also says ``aborted`` when an abort cancelled the summary; the RPC
        # answer is {cancelled, editorText?} (an abort or an extension's session_before_tree).
        data: dict[str, object] = {"cancelled": bool(result.get("cancelled"))}
        if "editorText" in result:
            data["editorText"] = result["editorText"]
        return data

    async def cmd_set_label(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self.session.set_label(cmd["entryId"], cmd["label"])
        return None
