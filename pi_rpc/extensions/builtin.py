"""Built-in extensions: Python modules shipped inside pi_rpc that load through exactly the same
path as user extensions (``setup(pi)``, the same ``pi`` and ``ctx``), under the extension path
``builtin:<name>`` (as upstream's built-in ``mcp`` and ``llama.cpp`` extensions).

A built-in is enabled by default unless ``--no-extensions`` is given, or the ``extensions``
setting lists ``-builtin:<name>`` (or ``!builtin:<name>``); ``-e builtin:<name>`` loads it even
with ``--no-extensions``. To add one, register ``name -> module`` here; the module is imported
only when the built-in is enabled, so keep its import light (import heavy dependencies inside
``setup`` or later). ``disabled_by_flags`` maps a command-line switch (e.g. ``--no-mcp``) to
the built-ins it turns off.
"""

from __future__ import annotations

# A path that is not a file: built-in extensions are named ``builtin:<name>``, as upstream.
BUILTIN_PREFIX = "builtin:"

# name -> module defining setup(pi). Empty until a built-in extension lands.
BUILTIN_EXTENSIONS: dict[str, str] = {}

# CliArgs attribute -> built-in names it disables (upstream: --no-mcp disables builtin:mcp).
DISABLED_BY_FLAGS: dict[str, tuple[str, ...]] = {"no_mcp": ("mcp",)}
