"""The ``/mcp`` command of a session that loads no extension runtime.

Upstream's built-in MCP extension loads in every session, so ``get_commands`` always lists
``mcp`` and ``prompt "/mcp"`` is always handled (without an ``mcp.json`` it says so). Ours loads
``builtin:mcp`` only when something uses MCP (``RuntimeOptions.mcp_command``); otherwise the
session answers the command here, with the same listing, texts and queueing refusal, importing
only ``pi_rpc.mcp.command`` and only when the command is listed or run. The ``notify`` record
goes through the mode's notifier (RPC: an ``extension_ui_request``; print and JSON modes have no
UI and drop it, as upstream).
"""

from __future__ import annotations

from collections.abc import Callable

from pi_rpc.runtime.errors import RuntimeCommandError, command_not_queueable

Notify = Callable[[str, str | None], None]

MCP = "mcp"


def command_name(text: str) -> tuple[str, str] | None:
    """``("name", "args")`` for ``/name args``, else None."""
    if not text.startswith("/"):
        return None
    space = text.find(" ")
    return (text[1:], "") if space == -1 else (text[1:space], text[space + 1 :])


class McpCommand:
    """``/mcp`` while no MCP server can exist in the session."""

    def __init__(self, agent_dir: str) -> None:
        self.agent_dir = agent_dir
        self.notify: Notify | None = None  # set by the mode

    @staticmethod
    def listing() -> dict[str, object]:
        from pi_rpc.mcp.command import listing

        return listing()

    def handles(self, text: str) -> bool:
        parsed = command_name(text)
        return parsed is not None and parsed[0] == MCP

    def run(self, text: str) -> None:
        from pi_rpc.mcp.command import unconfigured_reply

        parsed = command_name(text)
        message, kind = unconfigured_reply(parsed[1] if parsed else "", self.agent_dir)
        if self.notify is not None:
            self.notify(message, kind)

    def check_not_queued(self, text: str) -> None:
        """``steer``/``follow_up`` of ``/mcp`` fail as for any extension command."""
        if self.handles(text):
            raise RuntimeCommandError(command_not_queueable(MCP))
