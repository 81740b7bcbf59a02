"""Importing httpx without its command-line tool.

httpx's package ``__init__`` tries ``from ._main import main`` (the ``httpx`` console command),
which imports click, pygments and rich whenever they happen to be installed: 10 ms with click
and pygments, several times that with rich, paid by the first model request of every process.
pi never runs that command. While httpx itself is imported, a ``None`` entry for the module in
``sys.modules`` makes that one import fail at once, as it does where those packages are absent
(httpx then defines a ``main`` that explains what to install); the entry is removed afterwards,
so ``import httpx._main`` still works for anyone who asks for it by name.
"""

from __future__ import annotations

import sys

_CLI_MODULE = "httpx._main"


def import_httpx_without_cli() -> None:
    if "httpx" in sys.modules or _CLI_MODULE in sys.modules:
        return  # already imported (or the CLI asked for): nothing left to spare
    sys.modules[_CLI_MODULE] = None  # type: ignore[assignment]
    try:
        import httpx  # noqa: F401
    finally:
        if _CLI_MODULE in sys.modules and sys.modules[_CLI_MODULE] is None:
            del sys.modules[_CLI_MODULE]
