"""``pi`` in a terminal: the interactive mode, a thin Textual front end over the same session
runtime (``pi_rpc.runtime.session.AgentSession``) that print, JSON, RPC and the SDK drive.

Nothing here imports Textual at module level except the widget modules, and those are imported
only by ``main.run_interactive_mode`` once the mode starts (startup of the other modes is
measured; ``tests/modes/interactive/test_lazy_import.py`` checks they import none of it).

Layout: ``main`` (process entry: runtime, signals, terminal), ``app`` (the Textual app, event
rendering), ``transcript`` (conversation widgets), ``editor`` (the prompt editor), ``dialogs``
(modal screens and ``ctx.ui`` for extensions), ``commands/`` (the slash-command registry; one
module per command group, discovered automatically).
"""

from __future__ import annotations
