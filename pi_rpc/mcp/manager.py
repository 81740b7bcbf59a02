"""The MCP integration of one session (upstream's built-in ``mcp`` extension): it reads
``mcp.json`` when the session starts, connects every enabled server in the background,
registers their tools with the session and keeps them in step with the servers.

- Tools are registered as ``mcp__<server>__<tool>`` with their exposure; names stay stable for
  the session (a name taken by another tool gets the hash suffix; tools of one server whose
  names sanitise alike all get it). Tools a server withdraws are re-registered ``hidden``.
- The resource tools reach every enabled, non-hidden server with resources and take the widest
  of their exposures (``direct``, then ``codemode``, then ``deferred``).
- ``codemode`` is activated for servers with ``codemode`` tools (unless ``autoEnableCodemode``
  is false) and ``tool_search`` for servers with ``deferred`` tools, from the configuration,
  before the servers connect; a warning says when neither can reach them.
- The first prompt waits up to 10 s for servers with ``direct`` tools, and for servers whose
  tools the reopened session's transcript declares (loaded by ``tool_search`` on this branch,
  restored when they register, so they must be there for its request); a call waits for the
  servers it may reach (its own server, every server for the resource tools and for tools that
  reach ``all``, the servers a codemode script names).
- Problems after startup (config errors, failed connections, needed sign-ins) are announced
  once with a warning; ``/mcp`` reports each server's state; ``/mcp login|logout|reconnect``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import TaskGroup

from pi_rpc.ai.abort import AbortSignal
from pi_rpc.mcp.command import MCP_USAGE, NO_OAUTH, NO_RECONNECTABLE, no_server_named, not_configured
from pi_rpc.mcp.config import McpConfig, ServerEntry, load_mcp_config
from pi_rpc.mcp.naming import (
    RESOURCE_TOOL_NAMES,
    configured_exposures,
    create_mcp_tool_name,
    has_direct_tools,
    is_mcp_tool_name,
    mcp_namespace,
    server_exposure,
    tool_exposure,
)
from pi_rpc.mcp.prompt import render_servers_section

DEFAULT_STARTUP_WAIT_S = 10.0
CODEMODE_TOOL = "codemode"
TOOL_SEARCH_TOOL = "tool_search"


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


@dataclass
class Server:
    entry: ServerEntry
    connection: Any = None  # McpConnection once started
    ready: anyio.Event | None = None  # set when the latest connection attempt settled
    registered_config: str | None = None  # an extension's registration, to notice a changed config

    @property
    def enabled(self) -> bool:
        return self.entry.enabled


def describe_state(server: Server, with_error: bool = True) -> str:
    if not server.enabled:
        return "disabled"
    connection = server.connection
    if connection is None:
        return "starting"
    state = connection.state
    if state == "needs-auth":
        return "needs sign-in"
    if state == "failed":
        return f"failed: {_first_line(connection.error or 'unknown error')}" if with_error else "failed"
    if state == "connected":
        count = len(connection.tools)
        return (
            f"connected · {count} tool{'' if count == 1 else 's'}{' · resources' if connection.has_resources else ''}"
        )
    if state == "connecting":
        return "connecting…"
    return str(state)


def transcript_declared_mcp_tools(ctx: Any) -> list[str]:
    """MCP tools the session's branch declares: ``tool_search`` loads recorded in its system
    messages (``toolsAdded``/``toolsRemoved``), which the session restores when they register."""
    from pi_rpc.ai.transcript import get_current_tools

    try:
        branch = ctx.session_manager.get_branch()
    except Exception:  # noqa: BLE001 - no session store (or a stale context): nothing declared
        return []
    system = [
        entry["message"]
        for entry in branch
        if entry.get("type") == "message"
        and isinstance(entry.get("message"), dict)
        and entry["message"].get("role") == "system"
    ]
    names = (tool.get("name") for tool in get_current_tools(system))
    return [name for name in names if isinstance(name, str) and is_mcp_tool_name(name)]


def declares_tools_of(declared: list[str], server: str) -> bool:
    """Whether ``declared`` names a tool of ``server`` (its ``mcp__<server>__`` prefix, as
    ``create_mcp_tool_name`` sanitises it) or a resource tool (which reaches every server)."""
    prefix = create_mcp_tool_name(server, "")
    return any(name.startswith(prefix) or name in RESOURCE_TOOL_NAMES for name in declared)


class McpManager:
    def __init__(self, pi: Any, *, agent_dir: str, startup_wait_s: float = DEFAULT_STARTUP_WAIT_S) -> None:
        self.pi = pi
        self.agent_dir = agent_dir
        self.startup_wait_s = startup_wait_s
        self.servers: list[Server] = []
        self.config: McpConfig = McpConfig()
        self.auto_enable_codemode = True
        self.cwd = os.getcwd()
        self.warned_unreachable = False
        self.waited_for_startup = False
        self.tool_owners: dict[str, str] = {}  # tool name -> "<server>\0<tool>"
        self.server_tools: dict[str, set[str]] = {}
        self.definitions: dict[str, dict[str, object]] = {}
        self.resource_exposure: str | None = None
        self._tg: TaskGroup | None = None
        self._tg_ready = anyio.Event()
        self._stopped = anyio.Event()
        self._pending: anyio.Event | None = None
        self._log: object = None
        self._oauth: Any = None
        self._closed = False
        self._serving = False
        self._tokens_at_sign_in: dict[int, tuple[object, str]] = {}
        self.overridden: list[str] = []  # registered servers an mcp.json entry overrides

    # ------------------------------------------------------------------ lookup

    def find(self, name: str) -> Server | None:
        return next((s for s in self.servers if s.entry.name == name), None)

    def connections(self) -> list[Any]:
        return [s.connection for s in self.servers if s.connection is not None]

    # ------------------------------------------------------------------ lifecycle

    def load(self, cwd: str, project_trusted: bool) -> None:
        """Read mcp.json; servers registered for the session (``pi.get_mcp_servers()``: by
        extensions or the ACP client) join with ``add_registered``."""
        self.cwd = cwd
        self.config = load_mcp_config(self.agent_dir, cwd, project_trusted)
        self.auto_enable_codemode = self.config.auto_enable_codemode is not False
        self.servers = [Server(entry) for entry in self.config.servers]
        self.overridden = []

    # ------------------------------------------------------------------ servers extensions register

    def registered_servers(self, registrations: list[dict[str, Any]]) -> tuple[list[Server], list[str]]:
        """Servers extensions registered (``pi.get_mcp_servers()``), except names ``mcp.json``
        defines, which win; and the lines saying which were overridden."""
        servers: list[Server] = []
        overridden: list[str] = []
        for registration in registrations:
            name, config, path = str(registration["name"]), registration["config"], str(registration["extensionPath"])
            configured = next((e for e in self.config.servers if mcp_namespace(e.name) == mcp_namespace(name)), None)
            if configured is not None:
                overridden.append(
                    f'"{name}" registered by {path} is overridden by "{configured.name}" in {configured.source}'
                )
                continue
            entry = ServerEntry(name, config, path, "extension")
            servers.append(Server(entry, registered_config=json.dumps(config, sort_keys=True)))
        return servers, overridden

    def add_registered(self, registrations: list[dict[str, Any]]) -> None:
        """The registered servers join the configured ones when the session starts."""
        servers, self.overridden = self.registered_servers(registrations)
        self.servers.extend(servers)

    def ensure_serving(self) -> None:
        """The connections' task group runs (spawned once, for servers added later)."""
        if not self._serving:
            self._serving = True
            self.pi.spawn(self.serve())

    async def registrations_changed(self, registrations: list[dict[str, object]], ctx: object) -> None:
        """``mcp_servers_change``: unregistered servers (and ones registered again with another
        config) close and their tools become unreachable; new ones connect at once."""
        if self._closed:
            return
        wanted, self.overridden = self.registered_servers(registrations)
        by_name = {server.entry.name: server for server in wanted}
        removed = [
            s
            for s in self.servers
            if s.entry.scope == "extension"
            and (by_name.get(s.entry.name) is None or by_name[s.entry.name].registered_config != s.registered_config)
        ]
        self.servers = [s for s in self.servers if s not in removed]
        for server in removed:
            self.hide_tools(server.entry.name)
        added = [server for server in wanted if self.find(server.entry.name) is None]
        self.servers.extend(added)
        self.ensure_discovery_active(ctx)
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for server in removed:
                    if server.connection is not None:
                        tg.start_soon(server.connection.close)
        connecting = [server for server in added if server.enabled]
        if self._closed or not connecting:
            return
        self.ensure_serving()
        for server in connecting:
            server.ready = anyio.Event()
        await self._tg_ready.wait()
        async with anyio.create_task_group() as tg:
            for server in connecting:
                tg.start_soon(self.start_connection, server)
        if not self._closed:
            self.report_problems(ctx, connecting)

    def hide_tools(self, server_name: str) -> None:
        """The tools of a server that went away stay registered, unreachable (``hidden``)."""
        for name in self.server_tools.get(server_name, set()):
            definition = self.definitions.get(name)
            if definition is not None:
                self.pi.register_tool({**definition, "exposure": "hidden"})
        self.server_tools[server_name] = set()
        self.sync_resource_tools()

    async def serve(self) -> None:
        """The task group the connections live in, for the life of the session."""
        self._serving = True
        async with anyio.create_task_group() as tg:
            self._tg = tg
            self._tg_ready.set()
            await self._stopped.wait()
            tg.cancel_scope.cancel()

    def prepare(self) -> None:
        """Mark the enabled servers as starting, before their connections are spawned: a
        prompt arriving at once (print mode) must find them and wait for the direct ones."""
        self._pending = anyio.Event()
        for server in self.servers:
            if server.enabled:
                server.ready = anyio.Event()

    async def start(self, ctx: object) -> None:
        """Connect every enabled server; announce problems once they all settled."""
        enabled = [s for s in self.servers if s.enabled]
        if not enabled:
            self.report_problems(ctx)
            return
        if self._pending is None:
            self.prepare()
        pending = self._pending
        assert pending is not None
        try:
            await self._tg_ready.wait()
            async with anyio.create_task_group() as tg:
                for server in enabled:
                    tg.start_soon(self.start_connection, server)
            if not self._closed:
                self.report_problems(ctx)
        finally:
            pending.set()

    async def wait_pending(self) -> None:
        if self._pending is not None:
            await self._pending.wait()

    def _support(self) -> tuple[Any, Any]:
        if self._log is None:
            from pi_rpc.mcp.log import ServerLog
            from pi_rpc.mcp.oauth import CredentialStore, OAuthSupport

            self._log = ServerLog(os.path.join(self.agent_dir, "mcp.log"))
            self._oauth = OAuthSupport(CredentialStore(os.path.join(self.agent_dir, "mcp-auth.json")))
        return self._log, self._oauth

    async def start_connection(self, server: Server) -> None:
        from pi_rpc.mcp.connection import McpConnection

        ready = server.ready if server.ready is not None and not server.ready.is_set() else anyio.Event()
        server.ready = ready
        try:
            if self._closed or not server.enabled or self._tg is None:
                return
            log, oauth = self._support()
            connection = McpConnection(
                server.entry,
                self.cwd,
                self._tg,
                on_tools=self.register_tools,
                on_change=self._on_connection_change,
                log=log,
                oauth=oauth,
                provider_token=self._provider_token,
            )
            server.connection = connection
            try:
                await connection.get_session()
            except Exception:  # noqa: BLE001 - the connection records state and error
                pass
        finally:
            ready.set()

    def _stored_tokens(self, connection: Any) -> str:
        url = connection.oauth_url
        if url is None or self._oauth is None:
            return "null"
        return json.dumps(self._oauth.store.tokens(connection.name, url))

    def _on_connection_change(self, connection: Any) -> None:
        # Remember the stored tokens of a server that needs sign-in: `pi mcp login` in another
        # process (for example run by the agent through bash) changes them.
        if connection.state != "needs-auth":
            self._tokens_at_sign_in.pop(id(connection), None)
        elif id(connection) not in self._tokens_at_sign_in:
            self._tokens_at_sign_in[id(connection)] = (connection, self._stored_tokens(connection))

    async def reconnect_signed_in(self, ctx: object) -> None:
        """Reconnect servers that needed a sign-in once credentials were stored meanwhile."""
        signed_in = [c for c, tokens in self._tokens_at_sign_in.values() if self._stored_tokens(c) != tokens]
        if not signed_in:
            return
        for connection in signed_in:
            self._tokens_at_sign_in.pop(id(connection), None)
        async with anyio.create_task_group() as tg:
            for connection in signed_in:
                tg.start_soon(self._reconnect_quietly, connection)
        self.ensure_discovery_active(ctx)

    @staticmethod
    async def _reconnect_quietly(connection: Any) -> None:
        try:
            await connection.reconnect()
        except Exception:  # noqa: BLE001 - the state says why
            pass

    def _provider_token(self, provider: str) -> str | None:
        try:
            registry = self.pi.get_model_registry() if hasattr(self.pi, "get_model_registry") else None
            return registry.get_api_key(provider) if registry is not None else None
        except Exception:  # noqa: BLE001
            return None

    async def shutdown(self) -> None:
        self._closed = True
        connections = self.connections()
        self.servers = []
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for connection in connections:
                    tg.start_soon(connection.close)
        self._stopped.set()

    # ------------------------------------------------------------------ tools

    def register_tools(self, connection: Any) -> None:
        from pi_rpc.mcp.tools import create_tool_definition

        server_name = connection.entry.name
        server = self.find(server_name)
        entry = server.entry if server is not None else connection.entry
        description = (entry.config.get("description") or "").strip()
        namespace: dict[str, Any] = {"name": mcp_namespace(server_name), "aliases": [server_name]}
        if description:
            namespace["description"] = description
        if connection.instructions:
            namespace["instructions"] = connection.instructions
        previous = self.server_tools.get(server_name, set())
        current: set[str] = set()
        tool_names = list(dict.fromkeys(str(tool.get("name")) for tool in connection.tools))
        plain = [create_mcp_tool_name(server_name, name) for name in tool_names]

        def assign(tool: str) -> str:
            owner = f"{server_name}\0{tool}"

            def taken(candidate: str) -> bool:
                existing = self.tool_owners.get(candidate)
                return (
                    (existing is not None and existing != owner) or candidate in current or plain.count(candidate) > 1
                )

            name = create_mcp_tool_name(server_name, tool, taken)
            self.tool_owners[name] = owner
            current.add(name)
            return name

        for tool in connection.tools:
            tool_name = str(tool.get("name"))
            definition = create_tool_definition(
                server=server_name,
                tool=tool,
                name=assign(tool_name),
                exposure=tool_exposure(entry.config, tool_name),
                namespace=namespace,
                get_connection=self._connection_getter(server_name, tool_name),
                readable_resources=self._readable(server_name),
            )
            self.definitions[definition["name"]] = definition
            self.pi.register_tool(definition)
        self.server_tools[server_name] = current
        for name in previous - current:
            withdrawn = self.definitions.get(name)
            if withdrawn is not None:
                self.pi.register_tool({**withdrawn, "exposure": "hidden"})
        self.sync_resource_tools()

    def _readable(self, server_name: str) -> Callable[[], bool]:
        return lambda: any(c.name == server_name for c in self.resource_servers())

    def _connection_getter(self, server_name: str, tool_name: str) -> Callable[[], Awaitable[object]]:
        async def get() -> object:
            server = self.find(server_name)
            if server is None or not server.enabled:
                raise RuntimeError(f'MCP server "{server_name}" is disabled.')
            connection = server.connection
            if connection is None:
                raise RuntimeError(f'MCP server "{server_name}" is still starting.')
            offered = any(str(t.get("name")) == tool_name for t in connection.tools)
            if tool_exposure(server.entry.config, tool_name) == "hidden" or (
                connection.state == "connected" and not offered
            ):
                raise RuntimeError(f'MCP tool "{server_name}/{tool_name}" is no longer available.')
            return connection

        return get

    def servers_with_resources(self) -> list[Server]:
        return [
            s
            for s in self.servers
            if s.connection is not None
            and s.connection.has_resources
            and s.enabled
            and server_exposure(s.entry.config) != "hidden"
        ]

    def resource_servers(self) -> list[Any]:
        return [s.connection for s in self.servers_with_resources()]

    def sync_resource_tools(self) -> None:
        from pi_rpc.mcp.resources import create_resource_tool_definitions

        exposures = {server_exposure(s.entry.config) for s in self.servers_with_resources()}
        wanted = next((e for e in ("direct", "codemode", "deferred") if e in exposures), "hidden")
        if wanted == self.resource_exposure or (self.resource_exposure is None and wanted == "hidden"):
            return
        was_direct = self.resource_exposure == "direct"
        self.resource_exposure = wanted
        definitions = create_resource_tool_definitions(wanted, self.resource_servers)
        for definition in definitions:
            self.pi.register_tool(definition)
        if was_direct:
            names = {d["name"] for d in definitions}
            self.pi.set_active_tools([n for n in self.pi.get_active_tools() if n not in names])

    def ensure_discovery_active(self, ctx: Any) -> None:
        exposures: set[str] = set()
        for server in self.servers:
            if server.enabled:
                exposures |= configured_exposures(server.entry.config)
        needs_codemode = "codemode" in exposures
        needs_search = "deferred" in exposures
        if not needs_codemode and not needs_search:
            return
        tools = self.pi.get_all_tools()

        def reaching(name: str) -> bool:
            return any(t.get("name") == name and t.get("reachesTools") for t in tools)

        has_codemode = reaching(CODEMODE_TOOL)
        has_search = reaching(TOOL_SEARCH_TOOL)
        active = list(self.pi.get_active_tools())
        activate: list[str] = []
        if needs_codemode and has_codemode and self.auto_enable_codemode and CODEMODE_TOOL not in active:
            activate.append(CODEMODE_TOOL)
        if needs_search and has_search and TOOL_SEARCH_TOOL not in active:
            activate.append(TOOL_SEARCH_TOOL)
        if activate:
            self.pi.set_active_tools([*active, *activate])
        reachable = [*active, *activate]
        if (has_codemode and CODEMODE_TOOL in reachable) or (has_search and TOOL_SEARCH_TOOL in reachable):
            return
        if self.warned_unreachable:
            return
        self.warned_unreachable = True
        reason = (
            " (autoEnableCodemode is false)"
            if needs_codemode and has_codemode and not self.auto_enable_codemode
            else ""
        )
        ctx.ui.notify(
            "MCP tools are only reachable from the codemode or tool_search tool, but neither is active"
            f"{reason}; they cannot be called.",
            "warning",
        )

    # ------------------------------------------------------------------ prompts and calls

    def servers_section(self) -> str | None:
        return render_servers_section(
            [
                (s.entry.name, s.entry.config, s.connection.instructions if s.connection is not None else None)
                for s in self.servers
                if s.enabled
            ]
        )

    async def wait_for_direct_servers(self, ctx: Any) -> None:
        if self.waited_for_startup:
            return
        self.waited_for_startup = True
        declared = transcript_declared_mcp_tools(ctx)
        waiting = [
            s
            for s in self.servers
            if s.enabled and (has_direct_tools(s.entry.config) or declares_tools_of(declared, s.entry.name))
        ]
        if not waiting:
            return
        finished = False
        with anyio.move_on_after(self.startup_wait_s):
            for server in waiting:
                if server.ready is not None:
                    await server.ready.wait()
            finished = True
        if not finished:
            ctx.ui.notify("MCP servers are still connecting; their tools become available once connected.", "info")

    async def wait_for_servers(self, servers: list[Server], signal: AbortSignal | None) -> None:
        waiting = [s for s in servers if s.enabled and s.ready is not None and not s.ready.is_set()]
        if not waiting:
            return
        async with anyio.create_task_group() as tg:
            if signal is not None:

                async def on_abort() -> None:
                    assert signal is not None
                    await signal.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(on_abort)
            for server in waiting:
                assert server.ready is not None
                await server.ready.wait()
            tg.cancel_scope.cancel()

    def servers_for_call(self, tool_name: str, tool: dict[str, object] | None, call_input: object) -> list[Server]:
        candidates = [s for s in self.servers if s.enabled]
        reach = None
        reaches = (tool or {}).get("reachesTools")
        if callable(reaches):
            try:
                reach = reaches(call_input)
            except Exception:  # noqa: BLE001 - a broken reach means "wait for everything"
                reach = "all"
        if reach is not None:
            if reach == "all":
                return candidates
            words = list(reach)
            return [s for s in candidates if any(mcp_namespace(s.entry.name) in word for word in words)]
        if tool_name in RESOURCE_TOOL_NAMES:
            return candidates
        owner = self.tool_owners.get(tool_name, "").split("\0", 1)[0]
        return [s for s in candidates if s.entry.name == owner]

    # ------------------------------------------------------------------ reports

    def report_problems(self, ctx: Any, only: list[Server] | None = None) -> None:
        lines = [] if only is not None else [f"config: {error}" for error in self.config.errors]
        for server in only if only is not None else self.servers:
            state = server.connection.state if server.connection is not None else None
            if state in ("needs-auth", "failed"):
                lines.append(f"{server.entry.name}: {describe_state(server)}")
        if not lines:
            return
        body = "\n".join(f"  {line}" for line in lines)
        ctx.ui.notify(f"MCP servers need attention:\n{body}\nRun /mcp to fix.", "warning")

    def format_status(self) -> str:
        if not self.servers and not self.config.errors and not self.overridden:
            return not_configured(self.agent_dir)
        lines = []
        for server in self.servers:
            name = server.entry.name
            exposure = server_exposure(server.entry.config)
            connection = server.connection
            if connection is not None and connection.state == "needs-auth":
                lines.append(f"{name}: needs sign-in, run /mcp login {name} ({exposure})")
                continue
            tools = (
                f", {len(connection.tools)} tools" if connection is not None and connection.state == "connected" else ""
            )
            if not server.enabled:
                state = "disabled"
            elif connection is not None and connection.state == "disconnected":
                state = "disconnected, reconnects on next call"
            else:
                state = connection.state if connection is not None else "starting"
            error = ""
            if connection is not None and connection.error and connection.state != "connected":
                error = "\n    " + connection.error.replace("\n", "\n    ")
            lines.append(f"{name}: {state}{tools} ({exposure}){error}")
        lines.extend(f"config error: {error}" for error in self.config.errors)
        lines.extend(f"overridden: {line}" for line in self.overridden)
        return "\n".join(lines)

    # ------------------------------------------------------------------ /mcp

    async def command(self, args: str, ctx: Any) -> None:
        words = args.split()
        if not words:
            await self.wait_pending()
            ctx.ui.notify(self.format_status(), "info")
            return
        action, name, extra = words[0], words[1] if len(words) > 1 else None, words[2:]
        if extra:
            ctx.ui.notify(MCP_USAGE, "warning")
            return
        await self.wait_pending()
        if action in ("login", "logout"):
            server = await self._pick(
                name,
                ctx,
                eligible=lambda s: s.connection is not None and s.connection.oauth_url is not None,
                preferred=lambda s: s.connection is not None and s.connection.state == "needs-auth",
                none=NO_OAUTH,
            )
            if server is None:
                return
            if action == "login":
                await self._login(server, ctx)
            else:
                connection = server.connection
                removed = self._support()[1].store.remove(server.entry.name, connection.oauth_url)
                await connection.sign_out()
                message = (
                    f'Signed out of MCP server "{server.entry.name}".'
                    if removed
                    else f'No stored credentials for MCP server "{server.entry.name}".'
                )
                ctx.ui.notify(message, "info")
            return
        if action == "reconnect":
            server = await self._pick(
                name,
                ctx,
                eligible=lambda s: s.connection is not None,
                preferred=lambda s: s.connection is not None and s.connection.state in ("failed", "disconnected"),
                none=NO_RECONNECTABLE,
            )
            if server is None:
                return
            try:
                await server.connection.reconnect()
            except Exception as exc:  # noqa: BLE001
                from pi_rpc.mcp.connection import error_message

                ctx.ui.notify(error_message(exc), "error")
                return
            self.ensure_discovery_active(ctx)
            ctx.ui.notify(f'Reconnected to MCP server "{server.entry.name}" ({describe_state(server)}).', "info")
            return
        ctx.ui.notify(MCP_USAGE, "warning")

    async def _pick(
        self,
        name: str | None,
        ctx: Any,
        *,
        eligible: Callable[[Server], bool],
        preferred: Callable[[Server], bool],
        none: str,
    ) -> Server | None:
        if name:
            server = self.find(name)
            if server is None:
                ctx.ui.notify(no_server_named(name), "error")
                return None
            if not eligible(server):
                ctx.ui.notify(none, "error")
                return None
            return server
        candidates = [s for s in self.servers if eligible(s)]
        if not candidates:
            ctx.ui.notify(none, "info")
            return None
        if len(candidates) == 1:
            return candidates[0]
        favoured = [s for s in candidates if preferred(s)]
        if len(favoured) == 1:
            return favoured[0]
        choice = await ctx.ui.select("MCP server", [s.entry.name for s in candidates])
        return next((s for s in candidates if s.entry.name == choice), None)

    async def _login(self, server: Server, ctx: Any) -> None:
        name = server.entry.name
        if not ctx.has_ui:
            ctx.ui.notify(f'Signing in to MCP server "{name}" requires interactive mode.', "error")
            return
        from pi_rpc.mcp.oauth import sign_in

        def show(url: str) -> None:
            from pi_rpc.mcp.oauth import open_browser

            ctx.ui.notify(f'Sign in to MCP server "{name}" in your browser:\n{url}', "info")
            open_browser(url)

        _log, oauth = self._support()
        try:
            await sign_in(server.entry, oauth.store, oauth.settings(server.entry), show)
        except Exception as exc:  # noqa: BLE001
            from pi_rpc.mcp.connection import error_message

            ctx.ui.notify(f"Sign-in failed: {error_message(exc)}", "error")
            return
        try:
            await server.connection.reconnect()
        except Exception as exc:  # noqa: BLE001
            from pi_rpc.mcp.connection import error_message

            ctx.ui.notify(f"Signed in, but {error_message(exc)}", "error")
            return
        self.ensure_discovery_active(ctx)
        ctx.ui.notify(f'Signed in to MCP server "{name}" ({len(server.connection.tools)} tools).', "info")
