"""Host tools: tools the client of the process executes (RPC ``set_host_tools``).

A ``HostTool`` is an ordinary agent tool (declared to the model, listed in the system prompt,
its arguments validated against its schema by the loop, seen by the extensions'
``tool_call``/``tool_result`` hooks); its ``execute`` hands the call to a ``HostChannel`` (the
RPC mode's: a ``host_tool_request`` record, answered by the client's ``host_tool_result``).

``parse_host_tool_specs`` checks a client's tool list before anything changes: every entry an
object with a provider-safe ``name``, a string ``description`` and a ``parameters`` JSON Schema
(draft 2020-12, an object schema), no duplicate, no name already taken by another tool.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from pi_rpc.agent.types import AgentToolResult, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal

HOST_SOURCE = "host"
# What the providers accept as a function name (OpenAI's and Anthropic's common subset).
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class HostToolSpecError(ValueError):
    """A client's tool list was refused; ``str(exc)`` names the entry and the problem."""


class HostChannel(Protocol):
    """Where a host tool's calls go (the RPC mode implements it over stdout/stdin)."""

    async def call(
        self,
        name: str,
        tool_call_id: str,
        args: dict[str, object],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult: ...


@dataclass(frozen=True)
class HostToolSpec:
    name: str
    description: str
    parameters: dict[str, object]


class HostTool:
    """A tool the client executes; everything but the execution is an ordinary tool's."""

    host_tool = True

    def __init__(self, spec: HostToolSpec, channel: HostChannel) -> None:
        self.name = spec.name
        self.label = spec.name
        self.description = spec.description
        self.parameters = spec.parameters
        self.spec = spec
        self._channel = channel

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, object],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        return await self._channel.call(self.name, tool_call_id, args, signal, on_update)

    def __repr__(self) -> str:
        return f"<HostTool {self.name!r}>"


def _check_schema(where: str, schema: object) -> dict[str, object]:
    if not isinstance(schema, dict):
        raise HostToolSpecError(f'{where}: "parameters" must be a JSON Schema object')
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        path = "/".join(str(p) for p in exc.absolute_path)
        at = f" at /{path}" if path else ""
        raise HostToolSpecError(f'{where}: "parameters" is not a valid JSON Schema{at}: {exc.message}') from None
    if schema.get("type") != "object":
        raise HostToolSpecError(f'{where}: "parameters" must be an object schema ({{"type": "object", ...}})')
    return schema


def parse_host_tool_specs(raw: object, taken: Mapping[str, str]) -> list[HostToolSpec]:
    """The client's tool list, checked; ``taken`` maps the names of the session's other tools
    to their source (``builtin``, ``extension``, ``mcp``). Raises ``HostToolSpecError``."""
    if not isinstance(raw, list):
        raise HostToolSpecError('"tools" must be an array')
    specs: list[HostToolSpec] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        where = f"tools[{index}]"
        if not isinstance(entry, dict):
            raise HostToolSpecError(f"{where}: expected an object with name, description and parameters")
        name = entry.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise HostToolSpecError(
                f'{where}: "name" must be 1 to 64 letters, digits, "_" or "-" (got {name!r})'
                if isinstance(name, str)
                else f'{where}: "name" must be a string'
            )
        where = f'{where} "{name}"'
        description = entry.get("description", "")
        if not isinstance(description, str):
            raise HostToolSpecError(f'{where}: "description" must be a string')
        unknown = sorted(set(entry) - {"name", "description", "parameters"})
        if unknown:
            raise HostToolSpecError(f"{where}: unknown field(s): {', '.join(unknown)}")
        parameters = _check_schema(where, entry.get("parameters", {"type": "object", "properties": {}}))
        if name in seen:
            raise HostToolSpecError(f"{where}: duplicate name")
        if name in taken:
            source = taken[name]
            article = "an" if source[:1] in ("a", "e", "i", "o", "u") else "a"
            raise HostToolSpecError(f"{where}: the name is taken by {article} {source} tool")
        seen.add(name)
        specs.append(HostToolSpec(name, description, parameters))
    return specs
