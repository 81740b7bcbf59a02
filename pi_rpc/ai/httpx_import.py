"""Importing httpx without its command-line tool.

httpx's package ``__init__`` tries ``from ._main import main`` (the ``httpx`` console command),
which imports click, pygments and rich whenever they happen to be installed: 10 ms with click
and pygments, several times that with rich, paid by the first model request of every process.
pi never runs that command. While httpx itself is imported, a ``None`` entry for the module in
``sys.modules`` makes that one import fail at once, as it does where those packages are absent
(httpx then defines a ``main`` that explains what to install); the entry is removed afterwards,
so ``import httpx._main`` still works for anyone who asks for it by name. zstandard likewise
(below).
"""

from __future__ import annotations

import sys

_CLI_MODULE = "httpx._main"
# httpx also imports zstandard when it is installed (the ``codex`` extra), to decode zstd
# responses and to offer ``zstd`` in every request's ``accept-encoding``. Kept out the same way:
# every provider's requests stay as without the extra, and only a Codex request (which
# compresses its body with it) loads it.
_BLOCKED = (_CLI_MODULE, "zstandard")


def import_httpx_without_cli() -> None:
    if "httpx" in sys.modules or _CLI_MODULE in sys.modules:
        return  # already imported (or the CLI asked for): nothing left to spare
    blocked = [name for name in _BLOCKED if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import httpx  # noqa: F401
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
