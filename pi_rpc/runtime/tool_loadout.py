"""Which tools a session with extensions has, and which of them are active (declared to the
model and callable), as upstream's tool registry does it.

Registered: the built-in tools (all of them, so an extension can activate ``grep``) and the
tools extensions registered (a tool named like a built-in replaces it), minus what
``--exclude-tools`` removes and, with ``--tools``, what the allowlist does not name;
``--no-tools`` registers nothing. Active: the session's built-in selection, then every
registered extension tool unless it says ``defaultActive: False`` (with ``--tools``: the named
ones). ``pi.set_active_tools`` keeps the order of tools that stay active and appends new ones.

Sessions without extensions never build this: their tools stay exactly the built-in list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_rpc.tools import ALL_TOOL_NAMES

if TYPE_CHECKING:
    from pi_rpc.extensions.runner import ExtensionRunner
    from pi_rpc.extensions.types import RegisteredTool
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.resources_state import ResourcesState


def _builtin_source_info(name: str) -> dict[str, str]:
    return {"path": f"builtin:{name}", "source": "builtin", "scope": "temporary", "origin": "top-level"}


class ToolLoadout:
    def __init__(self, options: RuntimeOptions) -> None:
        self.allowlist = set(options.tool_allowlist) if options.tool_allowlist is not None else None
        self.excluded = set(options.excluded_tools)
        self.no_tools = options.no_tools
        self.active_names: list[str] = []
        self._builtins: dict[str, Any] = {}
        self._extension: dict[str, Any] = {}
        self._seen_extension: set[str] = set()
        self._resources: ResourcesState | None = None
        self._initial_active: list[str] = []

    def allowed(self, name: str) -> bool:
        if self.no_tools or name in self.excluded:
            return False
        return self.allowlist is None or name in self.allowlist

    # ------------------------------------------------------------------ registry

    def attach(self, resources: ResourcesState) -> None:
        """Take the session's built-in selection as the active set (startup, or a new
        ResourcesState after the cwd changed: the active names are kept)."""
        first = self._resources is None
        self._resources = resources
        self._builtins = {tool.name: tool for tool in resources.tools}
        if first:
            self._initial_active = [tool.name for tool in resources.tools]
            self.active_names = list(self._initial_active)

    def _builtin(self, name: str) -> Any:
        tool = self._builtins.get(name)
        if tool is None:
            assert self._resources is not None
            tool = self._builtins[name] = self._resources.create_builtin_tool(name)
        return tool

    def registry(self) -> dict[str, Any]:
        registry: dict[str, Any] = {name: self._builtin(name) for name in ALL_TOOL_NAMES if self.allowed(name)}
        registry.update(self._extension)
        return registry

    def refresh(self, registered: list[RegisteredTool], runner: Callable[[], ExtensionRunner]) -> None:
        """Take the extension tools registered now; newly registered ones are activated."""
        from pi_rpc.extensions.tools import ExtensionTool

        tools: dict[str, Any] = {}
        for item in registered:
            name = str(item.definition["name"])
            if self.allowed(name):
                existing = self._extension.get(name)
                same = existing is not None and existing.definition is item.definition
                tools[name] = existing if same else ExtensionTool(item, runner)
        self._extension = tools
        for name, tool in tools.items():
            if name in self._seen_extension:
                continue
            self._seen_extension.add(name)
            activate = name in self.allowlist if self.allowlist is not None else tool.default_active
            if activate and name not in self.active_names:
                self.active_names.append(name)

    def reset_extension_tools(self) -> None:
        """The extensions are about to be loaded again (the session was replaced or reloaded):
        the loadout starts over from the session's built-in selection, and the extension tools
        count as new registrations, active unless they opt out."""
        self.active_names = list(self._initial_active)
        self._extension = {}
        self._seen_extension.clear()

    def set_active(self, names: list[str]) -> None:
        registry = self.registry()
        requested = [name for name in dict.fromkeys(names) if name in registry]
        kept = [name for name in self.active_names if name in requested]
        self.active_names = kept + [name for name in requested if name not in kept]

    def active_tools(self) -> list[Any]:
        registry = self.registry()
        return [registry[name] for name in self.active_names if name in registry]

    def all_tools(self) -> list[dict[str, Any]]:
        """``pi.get_all_tools()``: every registered tool with its metadata."""
        out: list[dict[str, Any]] = []
        for name, tool in self.registry().items():
            out.append(
                {
                    "name": name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                    "promptGuidelines": list(getattr(tool, "prompt_guidelines", ()) or ()),
                    "exposure": "direct",
                    "sourceInfo": dict(getattr(tool, "source_info", None) or _builtin_source_info(name)),
                }
            )
        return out
