"""Extensions in Python: upstream pi's extension model (``pi.on``, ``pi.register_tool``,
``pi.register_command``, ``ctx.ui`` ...) with upstream's event names, orders, results and wire
records, so a Python port of a TypeScript extension behaves the same.

An extension is a Python file, or a package directory with ``__init__.py``, whose module
defines ``setup(pi)`` (plain or async)::

    def setup(pi):
        @pi.on("tool_call")
        async def gate(event, ctx):
            if event["toolName"] == "bash" and "rm " in event["input"]["command"]:
                if not await ctx.ui.confirm("Dangerous", event["input"]["command"]):
                    return {"block": True, "reason": "Blocked by user"}

Modules (each owns one part):

- ``discovery``: which extensions a session loads, in upstream's order (cheap: only listdir);
- ``loader``: importing them and running ``setup(pi)``; load failures;
- ``api``: the ``pi`` object; ``context``: ``ctx`` and the read-only session view;
- ``ui``: ``ctx.ui`` (no-UI defaults; modes with a user subclass it);
- ``runner``: dispatching events to handlers and composing their results;
- ``tools``: registered tools as agent tools; ``exec``: ``pi.exec``; ``bus``: ``pi.events``;
- ``host``: what the runtime (``ExtensionHost``) and the mode (``ModeBinding``) provide;
- ``events``: the event names; ``builtin``: built-in extensions (``builtin:<name>``).

Nothing here is imported when no extension is discovered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc._lazy import lazy_exports

_EXPORTS = {
    "ExtensionAPI": "pi_rpc.extensions.api",
    "ExtensionContext": "pi_rpc.extensions.context",
    "ExtensionCommandContext": "pi_rpc.extensions.context",
    "ExtensionToolContext": "pi_rpc.extensions.context",
    "ReadonlySessionManager": "pi_rpc.extensions.context",
    "ExtensionUI": "pi_rpc.extensions.ui",
    "ExtensionHost": "pi_rpc.extensions.host",
    "ModeBinding": "pi_rpc.extensions.host",
    "ExtensionRunner": "pi_rpc.extensions.runner",
    "ALL_EVENTS": "pi_rpc.extensions.events",
    "BUILTIN_EXTENSIONS": "pi_rpc.extensions.builtin",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from pi_rpc.extensions.api import ExtensionAPI
    from pi_rpc.extensions.builtin import BUILTIN_EXTENSIONS
    from pi_rpc.extensions.context import (
        ExtensionCommandContext,
        ExtensionContext,
        ExtensionToolContext,
        ReadonlySessionManager,
    )
    from pi_rpc.extensions.events import ALL_EVENTS
    from pi_rpc.extensions.host import ExtensionHost, ModeBinding
    from pi_rpc.extensions.runner import ExtensionRunner
    from pi_rpc.extensions.ui import ExtensionUI


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
