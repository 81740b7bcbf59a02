"""What a loaded extension registered: its handlers, tools, commands, flags and the inert
rendering registrations, with the provenance (``sourceInfo``) upstream reports for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypedDict

Handler = Callable[..., Any]

from pi_rpc.extensions.builtin import BUILTIN_PREFIX  # noqa: E402, F401 - re-exported after the types


class ExtensionErrorRecord(TypedDict):
    """An extension failure as the RPC ``extension_error`` event reports it."""

    extensionPath: str
    event: str
    error: str


@dataclass
class RegisteredTool:
    definition: dict[str, Any]
    source_info: dict[str, Any]
    extension_path: str


@dataclass
class RegisteredCommand:
    name: str
    options: dict[str, Any]
    source_info: dict[str, Any]
    extension_path: str

    @property
    def description(self) -> str | None:
        description = self.options.get("description")
        return description if isinstance(description, str) else None

    @property
    def handler(self) -> Handler:
        return self.options["handler"]


@dataclass
class Extension:
    """One loaded extension (a file, a package directory or a built-in module)."""

    path: str  # absolute path of the file (a package's __init__.py), or builtin:<name>
    source_info: dict[str, Any]
    module: ModuleType | None = None
    builtin: bool = False
    handlers: dict[str, list[Handler]] = field(default_factory=dict)
    tools: dict[str, RegisteredTool] = field(default_factory=dict)
    commands: dict[str, RegisteredCommand] = field(default_factory=dict)
    flags: dict[str, dict[str, Any]] = field(default_factory=dict)
    shortcuts: dict[str, dict[str, Any]] = field(default_factory=dict)
    renderers: list[Any] = field(default_factory=list)  # accepted, unused outside a terminal UI


@dataclass
class LoadFailure:
    path: str
    error: str  # upstream's text after 'Failed to load extension "<path>": '
    explicit: bool = False

    def message(self) -> str:
        return f'Error: Failed to load extension "{self.path}": {self.error}'
