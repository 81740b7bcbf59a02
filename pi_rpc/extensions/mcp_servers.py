"""MCP servers extensions register with ``pi.register_mcp_server`` (upstream's
``McpServerRegistry``): the core only checks and stores them; the built-in MCP extension (or
any extension handling ``mcp_servers_change``) connects them next to the ``mcp.json`` servers.

A registration is ``{"name", "config", "extensionPath"}`` with the config as the validator
returned it (exposure aliases resolved). Only the registering extension may replace or remove
a name; names that differ only in ``-``/``_`` clash (they would share a tool namespace).
``on_change`` runs after every change once the runtime is bound.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

# (name, raw config) -> the validated config, or upstream's error text. The runtime supplies
# MCP's own checks (pi_rpc.mcp.config); without them a config only has to be an object.
Validator = Callable[[str, Any], "dict[str, Any] | str"]


def _loose_validate(name: str, raw: Any) -> dict[str, Any] | str:
    return dict(raw) if isinstance(raw, dict) else f'server "{name}" must be an object'


def namespace(name: str) -> str:
    return name.replace("-", "_")


class McpServerRegistry:
    def __init__(self) -> None:
        self._servers: dict[str, dict[str, Any]] = {}
        self.validate: Validator = _loose_validate
        self.on_change: Callable[[], None] | None = None

    def owner(self, name: str) -> str | None:
        server = self._servers.get(name)
        return None if server is None else str(server["extensionPath"])

    def check(self, name: str, config: Any, extension_path: str) -> dict[str, Any]:
        """The registration ``extension_path`` may make, or ValueError with upstream's text."""
        validated = self.validate(name, config)
        if isinstance(validated, str):
            raise ValueError(f'Invalid MCP server registered by extension "{extension_path}": {validated}')
        owner = self.owner(name)
        if owner is not None and owner != extension_path:
            raise ValueError(f'MCP server "{name}" is already registered by extension "{owner}"')
        clash = next((other for other in self._servers if other != name and namespace(other) == namespace(name)), None)
        if clash is not None:
            raise ValueError(f'MCP server "{name}" conflicts with registered server "{clash}"')
        return {"name": name, "config": copy.deepcopy(validated), "extensionPath": extension_path}

    def seed(self, servers: list[dict[str, Any]]) -> None:
        """Servers the mode registers for the session (already validated), placed before the
        extensions' registrations without a change notice; names already taken are skipped."""
        seeded = {
            str(server["name"]): copy.deepcopy(server) for server in servers if server["name"] not in self._servers
        }
        self._servers = {**seeded, **self._servers}

    def register(self, server: dict[str, Any]) -> None:
        self._servers[str(server["name"])] = server
        self._changed()

    def unregister(self, name: str, extension_path: str) -> None:
        """Remove ``name`` if ``extension_path`` registered it; anything else is left alone."""
        if self.owner(name) != extension_path:
            return
        del self._servers[name]
        self._changed()

    def list(self) -> list[dict[str, Any]]:
        """Copies of the registrations, in registration order."""
        return [copy.deepcopy(server) for server in self._servers.values()]

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
