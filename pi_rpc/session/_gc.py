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
session calls when it is closed. Nothing is frozen when something else already froze.
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


def freeze_loaded() -> bool:
    """Freeze everything the collector tracks unless something is frozen already; True when
    this call froze (the caller must ``thaw`` later)."""
    if gc.get_freeze_count():
        return False
    gc.freeze()
    return True


def thaw() -> None:
    """Hand the frozen objects back to the collector (its oldest generation)."""
    gc.unfreeze()
