"""The cyclic garbage collector around bulk session work.

Loading or projecting a 100k-entry session allocates hundreds of thousands of small dicts
and lists; each allocation burst triggers collections that rescan every live entry, which
costs more than the work itself. Nothing built here forms reference cycles, so pausing the
collector (``gc_paused``) is safe; the previous state is restored afterwards.

Pausing only defers that cost: the next collections after the pause would still walk every
new container, several times over as they age through the generations (as long as parsing
the file). A large opened session is long-lived and acyclic, so ``freeze_loaded`` moves
everything the collector tracks into its permanent generation (``gc.freeze``), where
collections no longer look. Frozen objects are still freed by reference counting; only a
reference cycle that was alive at that moment and dies later waits for ``thaw``, which the
session calls when it is closed. One session's freeze at a time: while one is in place, another
large session is not frozen. The server's own freeze of its startup objects
(``modes.startup_gc``) does not count; a ``thaw`` hands those back to the collector too, which
only means later collections walk them again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Below this many entries the deferred collections cost little; leave the collector alone.
FREEZE_MIN_ENTRIES = 5000


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_session_frozen = False


def freeze_loaded() -> bool:
    """Freeze everything the collector tracks unless a session's freeze is in place; True when
    this call froze (the caller must ``thaw`` later)."""
    global _session_frozen
    if _session_frozen:
        return False
    gc.freeze()
    _session_frozen = True
    return True


def thaw() -> None:
    """Hand the frozen objects back to the collector (its oldest generation)."""
    global _session_frozen
    _session_frozen = False
    gc.unfreeze()
