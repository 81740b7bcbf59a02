"""``builtin:mcp``: MCP servers in a session, as a built-in extension (``setup(pi)``).

Importing this module costs nothing: ``session_start`` only reads ``mcp.json`` and the servers
registered for the session (``pi.get_mcp_servers()``: by extensions with
``pi.register_mcp_server``, at load time or later (``mcp_servers_change``), and by the ACP
client); the manager, the SDK and the connections load when a server is configured or
registered, and enabled. ``--no-mcp`` (or
``"extensions": ["-builtin:mcp"]``) keeps the extension from loading at all.
"""

from __future__ import annotations

from typing import Any


class _McpExtension:
    """The extension's state (the session's MCP manager, made when a server is configured or
    registered) and its handlers."""

    def __init__(self, pi: Any) -> None:
        from pi_rpc.config import paths

        self.pi = pi
        self.paths = paths
        self.manager: Any = None

    def new_manager(self, ctx: Any) -> Any:
        from pi_rpc.mcp.manager import McpManager

        mcp = McpManager(self.pi, agent_dir=str(self.paths.agent_dir()))
        self.manager = mcp
        mcp.load(ctx.cwd, ctx.is_project_trusted())
        return mcp

    async def on_session_start(self, _event: dict[str, Any], ctx: Any) -> None:
        import os

        paths = self.paths
        agent_dir = str(paths.agent_dir())
        trusted = ctx.is_project_trusted()
        global_file = os.path.join(agent_dir, "mcp.json")
        project_file = os.path.join(ctx.cwd, paths.CONFIG_DIR_NAME, "mcp.json")
        registrations = self.pi.get_mcp_servers()
        if not registrations and not os.path.exists(global_file) and not (trusted and os.path.exists(project_file)):
            return  # nothing configured or registered: nothing to load
        mcp = self.new_manager(ctx)
        # Servers extensions registered while loading join the configured ones.
        mcp.add_registered(registrations)
        mcp.ensure_discovery_active(ctx)
        if any(server.enabled for server in mcp.servers):
            mcp.prepare()
            mcp.ensure_serving()
            self.pi.spawn(mcp.start(ctx))
        else:
            mcp.report_problems(ctx)

    async def on_servers_change(self, _event: dict[str, object], ctx: object) -> None:
        # Servers registered or unregistered after startup connect or close at once.
        mcp = self.manager
        registrations = self.pi.get_mcp_servers()
        if mcp is None:
            if not registrations:
                return
            mcp = self.new_manager(ctx)
        await mcp.registrations_changed(registrations, ctx)

    async def on_before_agent_start(self, event: dict[str, object], ctx: object) -> None:
        mcp = self.manager
        if mcp is None:
            return
        await mcp.wait_for_direct_servers(ctx)
        options = event.get("systemPromptOptions")
        if not isinstance(options, dict):
            return
        sections = options.setdefault("sections", {})
        section = mcp.servers_section()
        from pi_rpc.mcp.prompt import SECTION_NAME

        if section:
            sections[SECTION_NAME] = section
        else:
            sections.pop(SECTION_NAME, None)

    async def on_tool_call(self, event: dict[str, Any], ctx: Any) -> None:
        mcp = self.manager
        if mcp is None or not mcp.servers:
            return
        name = event.get("toolName")
        tool = next((t for t in self.pi.get_all_tools() if t.get("name") == name), None)
        if tool is None:
            return
        servers = mcp.servers_for_call(str(name), tool, event.get("input"))
        await mcp.wait_for_servers(servers, ctx.signal)

    async def on_turn_start(self, _event: dict[str, object], ctx: object) -> None:
        mcp = self.manager
        if mcp is not None:
            await mcp.reconnect_signed_in(ctx)

    async def on_session_shutdown(self, _event: dict[str, object], _ctx: object) -> None:
        mcp, self.manager = self.manager, None
        if mcp is not None:
            await mcp.shutdown()

    async def command(self, args: str, ctx: Any) -> None:
        mcp = self.manager
        if mcp is None:
            from pi_rpc.mcp.command import unconfigured_reply

            message, kind = unconfigured_reply(args, str(self.paths.agent_dir()))
            ctx.ui.notify(message, kind)
            return
        await mcp.command(args, ctx)


def setup(pi: Any) -> None:
    extension = _McpExtension(pi)
    pi.on("session_start", extension.on_session_start)
    pi.on("before_agent_start", extension.on_before_agent_start)
    pi.on("tool_call", extension.on_tool_call)
    pi.on("turn_start", extension.on_turn_start)
    pi.on("session_shutdown", extension.on_session_shutdown)
    pi.on("mcp_servers_change", extension.on_servers_change)
    from pi_rpc.mcp.command import COMMAND_DESCRIPTION, COMMAND_NAME

    pi.register_command(COMMAND_NAME, {"description": COMMAND_DESCRIPTION, "handler": extension.command})
