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


def setup(pi: Any) -> None:
    from pi_rpc.config import paths

    state: dict[str, Any] = {}

    def manager() -> Any:
        return state.get("manager")

    def new_manager(ctx: Any) -> Any:
        from pi_rpc.mcp.manager import McpManager

        mcp = McpManager(pi, agent_dir=str(paths.agent_dir()))
        state["manager"] = mcp
        mcp.load(ctx.cwd, ctx.is_project_trusted())
        return mcp

    async def on_session_start(_event: dict[str, Any], ctx: Any) -> None:
        import os

        agent_dir = str(paths.agent_dir())
        trusted = ctx.is_project_trusted()
        global_file = os.path.join(agent_dir, "mcp.json")
        project_file = os.path.join(ctx.cwd, paths.CONFIG_DIR_NAME, "mcp.json")
        registrations = pi.get_mcp_servers()
        if not registrations and not os.path.exists(global_file) and not (trusted and os.path.exists(project_file)):
            return  # nothing configured or registered: nothing to load
        mcp = new_manager(ctx)
        # Servers extensions registered while loading join the configured ones.
        mcp.add_registered(registrations)
        mcp.ensure_discovery_active(ctx)
        if any(server.enabled for server in mcp.servers):
            mcp.prepare()
            mcp.ensure_serving()
            pi.spawn(mcp.start(ctx))
        else:
            mcp.report_problems(ctx)

    async def on_servers_change(_event: dict[str, Any], ctx: Any) -> None:
        # Servers registered or unregistered after startup connect or close at once.
        mcp = manager()
        registrations = pi.get_mcp_servers()
        if mcp is None:
            if not registrations:
                return
            mcp = new_manager(ctx)
        await mcp.registrations_changed(registrations, ctx)

    async def on_before_agent_start(event: dict[str, Any], ctx: Any) -> None:
        mcp = manager()
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

    async def on_tool_call(event: dict[str, Any], ctx: Any) -> None:
        mcp = manager()
        if mcp is None or not mcp.servers:
            return
        name = event.get("toolName")
        tool = next((t for t in pi.get_all_tools() if t.get("name") == name), None)
        if tool is None:
            return
        servers = mcp.servers_for_call(str(name), tool, event.get("input"))
        await mcp.wait_for_servers(servers, ctx.signal)

    async def on_turn_start(_event: dict[str, Any], ctx: Any) -> None:
        mcp = manager()
        if mcp is not None:
            await mcp.reconnect_signed_in(ctx)

    async def on_session_shutdown(_event: dict[str, Any], _ctx: Any) -> None:
        mcp = state.pop("manager", None)
        if mcp is not None:
            await mcp.shutdown()

    async def command(args: str, ctx: Any) -> None:
        mcp = manager()
        if mcp is None:
            from pi_rpc.mcp.command import unconfigured_reply

            message, kind = unconfigured_reply(args, str(paths.agent_dir()))
            ctx.ui.notify(message, kind)
            return
        await mcp.command(args, ctx)

    pi.on("session_start", on_session_start)
    pi.on("before_agent_start", on_before_agent_start)
    pi.on("tool_call", on_tool_call)
    pi.on("turn_start", on_turn_start)
    pi.on("session_shutdown", on_session_shutdown)
    pi.on("mcp_servers_change", on_servers_change)
    from pi_rpc.mcp.command import COMMAND_DESCRIPTION, COMMAND_NAME

    pi.register_command(COMMAND_NAME, {"description": COMMAND_DESCRIPTION, "handler": command})
