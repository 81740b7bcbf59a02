"""Lazy package exports (PEP 562): a package that re-exports names from its submodules imports
each submodule on the first access to one of its names, not when the package is imported.

Startup time is a goal (a client may spawn ``pi`` per chat), and importing a package for one
of its small modules must not pull in the rest of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_exports(
    namespace: dict[str, object], exports: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package whose ``globals()`` is ``namespace``;
    ``exports`` maps each exported name to the module defining it."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
