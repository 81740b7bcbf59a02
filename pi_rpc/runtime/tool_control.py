"""A client's control over a session's tools: its own tools (host tools, executed by the
client) and which tools are active (``get_tools`` / ``set_active_tools`` / ``set_host_tools``).

``ToolControl`` exists only once a client used one of those commands (``AgentSession.
tool_control``): until then the session's tools are exactly what they were, byte for byte.

The session's tools are composed in one place (``AgentSession.install_tools``): the active tools
of the loadout (``tool_loadout``: built-in, extension and MCP tools; a session without
extensions gets a loadout of its own here), then the active host tools in the order the client
gave them. A host tool whose name an extension registers later is hidden by that tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pi_rpc.errors import CommandError
from pi_rpc.runtime.tool_loadout import ToolLoadout, is_mcp_tool
from pi_rpc.tools import ALL_TOOL_NAMES
from pi_rpc.tools.host import HOST_SOURCE, HostChannel, HostTool, HostToolSpecError, parse_host_tool_specs

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.resources_state import ResourcesState


class ToolHost(Protocol):
    """What tool control needs of its session (``AgentSession``)."""

    ext: Any  # SessionExtensions | None
    options: RuntimeOptions
    resources: ResourcesState
    agent: Agent

    def install_tools(self, tools: list[object], hidden: set[str] | None = None) -> None: ...


def tool_source(name: str, tool: object) -> str:
    """``builtin`` | ``extension`` | ``mcp`` | ``host``."""
    if getattr(tool, "host_tool", False):
        return HOST_SOURCE
    if getattr(tool, "extension_tool", False) or hasattr(tool, "definition"):
        return "mcp" if is_mcp_tool(name) else "extension"
    return "builtin" if name in ALL_TOOL_NAMES else "extension"


class ToolControl:
    def __init__(self, session: ToolHost) -> None:
        self._session = session
        self.host_tools: dict[str, HostTool] = {}
        self._host_active: list[str] = []
        self._own_loadout: ToolLoadout | None = None
        if session.ext is None:
            self._own_loadout = ToolLoadout(session.options)
            self._own_loadout.attach(session.resources)

    def moved_to(self, session: ToolHost) -> ToolControl:
        """This client's control over the session that replaced this one's (``runtime.holder``):
        the host tools and which of them are active go along; a session without extensions
        keeps its loadout's selection too. Once it is the new session's ``tool_control``,
        ``take_effect`` installs the tools."""
        moved = ToolControl(session)
        moved.host_tools = dict(self.host_tools)
        moved._host_active = list(self._host_active)
        if self._own_loadout is not None and moved._own_loadout is not None:
            moved._own_loadout = self._own_loadout
            moved._own_loadout.attach(session.resources)
        return moved

    def take_effect(self) -> None:
        """Install the session's tools with this control's host tools, unless extensions will
        (their loadout composes them when they bind)."""
        if self._session.ext is None:
            self.apply()

    # ------------------------------------------------------------------ composition

    @property
    def loadout(self) -> ToolLoadout:
        ext = self._session.ext
        return ext.loadout if ext is not None else self._own_loadout  # type: ignore[return-value]

    def compose(self, base: list[Any]) -> list[Any]:
        """``base`` (the loadout's active tools) followed by the active host tools."""
        if not self._host_active:
            return base
        names = {tool.name for tool in base}
        registry = self.loadout.registry()
        extra = [
            self.host_tools[name]
            for name in self._host_active
            if name in self.host_tools and name not in names and name not in registry
        ]
        return [*base, *extra] if extra else base

    def apply(self) -> None:
        """Install the composed tools on the session (its prompt and its agent)."""
        ext = self._session.ext
        if ext is not None:
            ext.actions.apply_loadout()  # (composes through install_tools)
        else:
            assert self._own_loadout is not None
            self._session.install_tools(self._own_loadout.active_tools())

    def on_resources_replaced(self) -> None:
        """A session without extensions rebuilt its resources (reload, cwd change)."""
        if self._own_loadout is not None:
            self._own_loadout.attach(self._session.resources)
            self.apply()

    # ------------------------------------------------------------------ commands

    def _registered(self) -> dict[str, Any]:
        """Every tool of the session by name: the loadout's, then the host tools it does not hide."""
        registry = dict(self.loadout.registry())
        for name, tool in self.host_tools.items():
            registry.setdefault(name, tool)
        return registry

    def get_tools(self) -> list[dict[str, Any]]:
        active = {tool.name for tool in self._session.agent.tools}
        out: list[dict[str, object]] = []
        for name, tool in self._registered().items():
            out.append(
                {
                    "name": name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                    "source": tool_source(name, tool),
                    "active": name in active,
                }
            )
        return out

    def set_active_tools(self, names: list[str]) -> list[str]:
        """Exactly ``names`` become active (in the loadout's order for its tools, then the host
        tools'); an unknown name refuses the whole command. Returns the active names."""
        registry = self._registered()
        unknown = [name for name in dict.fromkeys(names) if name not in registry]
        if unknown:
            raise CommandError(
                f"Unknown tool name(s): {', '.join(unknown)} (get_tools lists the session's tools: "
                f"{', '.join(registry) or 'none'})"
            )
        wanted = set(names)
        self.loadout.set_active([name for name in names if name not in self.host_tools])
        self._host_active = [name for name in self.host_tools if name in wanted]
        self.apply()
        return [tool.name for tool in self._session.agent.tools]

    def set_host_tools(self, raw: object, channel: HostChannel) -> list[str]:
        """Replace the client's tools (every one active). Returns their names."""
        taken = {
            name: tool_source(name, tool)
            for name, tool in self.loadout.registry().items()
            if name not in self.host_tools
        }
        for name in ALL_TOOL_NAMES:
            taken.setdefault(name, "builtin")
        try:
            specs = parse_host_tool_specs(raw, taken)
        except HostToolSpecError as exc:
            raise CommandError(f'Invalid command "set_host_tools": {exc}') from None
        self.host_tools = {spec.name: HostTool(spec, channel) for spec in specs}
        self._host_active = [spec.name for spec in specs]
        self.apply()
        return list(self.host_tools)
