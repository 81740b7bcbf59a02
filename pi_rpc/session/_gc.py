"""Pause the cyclic garbage collector during bulk work.

Loading or projecting a 100k-entry session allocates hundreds of thousands of small dicts
and lists; each allocation burst triggers collections that rescan every live entry, which
costs more than the work itself. Nothing built here forms reference cycles, so the pause is
safe; the previous state is restored afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
