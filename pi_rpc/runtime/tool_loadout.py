"""Which tools a session with extensions has, which of them are active (declared to the model)
and which other tools can call them, as upstream's tool registry does it.

Registered: the built-in tools (all of them, so an extension can activate ``grep``) and the
tools extensions registered (a tool named like a built-in replaces it), minus what
``--exclude-tools`` removes and, with ``--tools``, what the allowlist does not name or match
(``*`` patterns). MCP tools (``mcp__…`` and the resource tools) stay registered unless an
allowlist entry starts with ``mcp__``; an MCP tool the allowlist keeps without matching it can
only be declared through ``tool_search``. ``--no-tools`` registers nothing.

Exposure (a tool definition's ``exposure``, default ``direct``): ``direct`` tools are declared
when active; ``deferred`` tools (MCP's ``codemode`` and ``deferred``) are declared only once
something activates them (``tool_search``) but other tools can always call them
(``ctx.execute_tool``); ``model-only`` tools are declared but never called by tools; ``hidden``
tools are neither.

Active: the session's built-in selection (plus ``+name`` entries naming extension tools), then
every newly registered declarable tool unless it says ``defaultActive: False`` (with
``--tools``: the named ones). ``pi.set_active_tools`` keeps the order of tools that stay active
and appends new ones. Active tools with a ``prepareLoadout`` hook (codemode) may change the
declared descriptions and hide declarations from requests.

Sessions without extensions never build this: their tools stay exactly the built-in list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_rpc.config.tool_patterns import tool_name_matcher
from pi_rpc.tools import ALL_TOOL_NAMES

if TYPE_CHECKING:
    from pi_rpc.extensions.runner import ExtensionRunner
    from pi_rpc.extensions.types import RegisteredTool
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.resources_state import ResourcesState

DECLARABLE = frozenset({"direct", "model-only"})
MCP_RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})
TOOL_SEARCH = "tool_search"


def is_mcp_tool(name: str) -> bool:
    return name.startswith("mcp__") or name in MCP_RESOURCE_TOOLS


def _builtin_source_info(name: str) -> dict[str, str]:
    return {"path": f"builtin:{name}", "source": "builtin", "scope": "temporary", "origin": "top-level"}


class _Declared:
    """A tool as declared to the model with the description a ``prepareLoadout`` hook chose;
    everything else (execution included) is the tool's own."""

    def __init__(self, tool: object, description: str) -> None:
        self._tool = tool
        self.description = description

    def __getattr__(self, name: str) -> object:
        return getattr(self._tool, name)


class ToolLoadout:
    def __init__(self, options: RuntimeOptions) -> None:
        allowlist = options.tool_allowlist
        self.allowlist = list(allowlist) if allowlist is not None else None
        self._allow = tool_name_matcher(self.allowlist) if self.allowlist is not None else None
        self.allowlist_filters_mcp = any(entry.startswith("mcp__") for entry in self.allowlist or ())
        self._excluded = tool_name_matcher(options.excluded_tools)
        self.no_tools = options.no_tools
        self.active_names: list[str] = []
        self.hidden_declarations: set[str] = set()
        self._builtins: dict[str, object] = {}
        self._extension: dict[str, Any] = {}
        self._activated_on_registration: set[str] = set()
        self._seen: set[str] = set()
        self._resources: ResourcesState | None = None
        self._initial_active: list[str] = []
        # Names requested before their tool exists (``+codemode``, names a restored transcript
        # declares): activated once registered.
        self.pending: list[str] = []
        self._initial_pending: list[str] = []
        self.on_error: Callable[[str, str], None] = lambda _path, _error: None

    # ------------------------------------------------------------------ filters

    def allowed(self, name: str) -> bool:
        """Whether ``--tools``/``--exclude-tools`` keep the tool registered."""
        if self.no_tools or self._excluded(name):
            return False
        if self._allow is None or self._allow(name):
            return True
        return not self.allowlist_filters_mcp and is_mcp_tool(name)

    def activatable(self, name: str) -> bool:
        """An MCP tool the allowlist keeps without naming it is only for codemode and
        tool_search: it can be declared only when tool_search can load it."""
        if self._allow is None or self._allow(name) or not is_mcp_tool(name):
            return True
        return self.exposure(name) != "direct" and TOOL_SEARCH in self.registry()

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
            self._initial_pending = [n for n in resources.requested_extension_tools if n not in self.active_names]
            self.pending = list(self._initial_pending)

    def _builtin(self, name: str) -> object:
        tool = self._builtins.get(name)
        if tool is None:
            assert self._resources is not None
            tool = self._builtins[name] = self._resources.create_builtin_tool(name)
        return tool

    def registry(self) -> dict[str, object]:
        registry: dict[str, object] = {name: self._builtin(name) for name in ALL_TOOL_NAMES if self.allowed(name)}
        registry.update(self._extension)
        return registry

    def definition(self, name: str) -> dict[str, object] | None:
        tool = self._extension.get(name)
        return getattr(tool, "definition", None) if tool is not None else None

    def exposure(self, name: str) -> str:
        definition = self.definition(name)
        exposure = definition.get("exposure") if definition else None
        return str(exposure) if isinstance(exposure, str) and exposure else "direct"

    def refresh(self, registered: list[RegisteredTool], runner: Callable[[], ExtensionRunner]) -> None:
        """Take the extension tools registered now. Newly registered declarable tools are
        activated, and so is a tool whose exposure became declarable (e.g. from ``hidden``)."""
        from pi_rpc.extensions.tools import ExtensionTool

        tools: dict[str, object] = {}
        for item in registered:
            name = str(item.definition["name"])
            if self.allowed(name):
                existing = self._extension.get(name)
                same = existing is not None and existing.definition is item.definition
                tools[name] = existing if same else ExtensionTool(item, runner)
        self._extension = tools
        for name, tool in tools.items():
            first_time = name not in self._seen
            self._seen.add(name)
            declarable = self.exposure(name) in DECLARABLE
            on_registration = declarable and getattr(tool, "default_active", True)
            became = on_registration and name not in self._activated_on_registration
            if on_registration:
                self._activated_on_registration.add(name)
            else:
                self._activated_on_registration.discard(name)
            if name in self.pending:
                self.pending.remove(name)
                activate = self.exposure(name) != "hidden"
            elif self._allow is not None:
                # Naming or matching a tool activates it even when it is inactive by default.
                activate = declarable and self._allow(name) and (first_time or became)
            else:
                activate = became
            if activate and name not in self.active_names:
                self.active_names.append(name)

    def reset_extension_tools(self) -> None:
        """The extensions are about to be loaded again (the session was replaced or reloaded):
        the loadout starts over from the session's built-in selection, and the extension tools
        count as new registrations, active unless they opt out."""
        self.active_names = list(self._initial_active)
        self.pending = list(self._initial_pending)
        self._extension = {}
        self._activated_on_registration.clear()
        self._seen.clear()

    def restore(self, declared: list[str]) -> None:
        """Deferred tools a resumed transcript declares (loaded by ``tool_search`` on that
        branch) stay active; MCP tools not registered yet (their server is still connecting)
        once they are. Other tools follow the session's own selection."""
        registry = self.registry()
        for name in declared:
            if name in registry:
                if self.exposure(name) == "deferred" and name not in self.active_names:
                    self.active_names.append(name)
            elif is_mcp_tool(name) and self.allowed(name) and name not in self.pending:
                self.pending.append(name)

    def set_active(self, names: list[str]) -> None:
        registry = self.registry()
        requested = [name for name in dict.fromkeys(names) if name in registry]
        kept = [name for name in self.active_names if name in requested]
        self.active_names = kept + [name for name in requested if name not in kept]

    def _declarable_active(self) -> list[Any]:
        registry = self.registry()
        return [
            registry[name]
            for name in self.active_names
            if name in registry and self.exposure(name) != "hidden" and self.activatable(name)
        ]

    def callable_tools(self, active: list[Any] | None = None) -> list[Any]:
        """Tools other tools may call: active ``direct`` tools and every ``deferred`` one."""
        active_names = {t.name for t in (active if active is not None else self._declarable_active())}
        out = []
        for name, tool in self.registry().items():
            exposure = self.exposure(name)
            if exposure in ("codemode", "deferred") or (exposure == "direct" and name in active_names):
                out.append(tool)
        return out

    def active_tools(self) -> list[object]:
        """The declared tools, with the descriptions ``prepareLoadout`` hooks chose."""
        tools = self._declarable_active()
        hooks = [t for t in tools if callable((getattr(t, "definition", None) or {}).get("prepareLoadout"))]
        hidden: set[str] = set()
        if not hooks:
            self.hidden_declarations = hidden
            return tools
        view = {
            "declared": [self.describe(t) for t in tools],
            "callable": [self.describe(t) for t in self.callable_tools(tools)],
            "registered": [self.describe(t) for t in self.registry().values()],
            "getExposure": self.exposure,
            "getNamespace": lambda name: (self.definition(name) or {}).get("namespace"),
            "getPromptGuidelines": lambda name: list(getattr(self.registry().get(name), "prompt_guidelines", ()) or ()),
        }
        descriptions: dict[str, str] = {}
        for hook in hooks:
            try:
                changes = hook.definition["prepareLoadout"](view) or {}
                descriptions.update(changes.get("descriptions") or {})
                hidden.update(changes.get("hiddenDeclarations") or [])
            except Exception as exc:  # noqa: BLE001 - reported like every extension failure
                self.on_error(getattr(hook, "extension_path", hook.name), str(exc) or type(exc).__name__)
        self.hidden_declarations = hidden
        return [_Declared(t, descriptions[t.name]) if t.name in descriptions else t for t in tools]

    def describe(self, tool: Any) -> dict[str, Any]:
        """A tool as hooks, scripts and ``pi.get_all_tools()`` see it."""
        name = tool.name
        definition = self.definition(name) or {}
        out: dict[str, object] = {
            "name": name,
            "description": tool.description,
            "parameters": tool.parameters,
            "promptGuidelines": list(getattr(tool, "prompt_guidelines", ()) or ()),
            "exposure": self.exposure(name),
        }
        for key in ("namespace", "annotations", "outputSchema"):
            if definition.get(key) is not None:
                out[key] = definition[key]
        if callable(definition.get("reachesTools")):
            out["reachesTools"] = definition["reachesTools"]
        return out

    def all_tools(self) -> list[dict[str, Any]]:
        """``pi.get_all_tools()``: every registered tool with its metadata."""
        out: list[dict[str, Any]] = []
        for name, tool in self.registry().items():
            described = self.describe(tool)
            described.pop("outputSchema", None)
            described["sourceInfo"] = dict(getattr(tool, "source_info", None) or _builtin_source_info(name))
            out.append(described)
        return out
