"""The cyclic garbage collector while a long-lived server builds itself.

Between the early answer and the first served command the process imports its runtime and
builds the session: a few hundred modules and some 30,000 container objects, nearly all of
which live as long as the process. Each collection in that burst walks every one of them again
(about 5% of the instructions of a first answer to a prompt sent right after startup), and
finds next to nothing (about 80 objects). So the collector is paused for the build
(``pause_for_startup``) and what was built is then moved to the permanent generation
(``freeze_startup``), where later collections no longer walk it.

Frozen objects are still freed by reference counting; only a reference cycle among them that
becomes garbage later is never collected, which bounds what can stay behind to the startup
objects themselves.
"""

from __future__ import annotations

import gc


def pause_for_startup() -> bool:
    """Pause the collector; True when it was running (pass that to ``freeze_startup``)."""
    was_enabled = gc.isenabled()
    gc.disable()
    return was_enabled


def freeze_startup(was_enabled: bool) -> None:
    """Move everything built so far to the permanent generation and resume collecting."""
    gc.freeze()
    if was_enabled:
        gc.enable()
