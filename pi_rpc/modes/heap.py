"""Keep the process's RSS close to its live data (glibc only; a no-op elsewhere).

glibc serves an allocation of 128 KiB or more with its own ``mmap`` and unmaps it on free,
but after the first such free it raises that threshold (up to 32 MiB), so later multi-
megabyte strings (a large prompt, a ``get_messages`` response) come from the heap and their
memory stays with the process after they are gone. A long-lived RPC server that now and
then handles such records would ratchet its RSS up for good.

- ``limit_heap_retention()`` (at startup) pins the mmap threshold at 256 KiB: large blocks
  always go back to the OS when freed;
- ``release_free_memory()`` (after a large record was written) returns what the heap
  itself has free at its top and in its free lists (``malloc_trim``).
"""

from __future__ import annotations

from typing import Any

_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 256 * 1024

_libc: object = None


def _glibc() -> Any:
    global _libc
    if _libc is None:
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6")
            libc.mallopt, libc.malloc_trim  # noqa: B018 - both must exist (glibc)
            _libc = libc
        except (OSError, AttributeError):
            _libc = False
    return _libc


def limit_heap_retention() -> None:
    libc = _glibc()
    if libc:
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)


def release_free_memory() -> None:
    libc = _glibc()
    if libc:
        libc.malloc_trim(0)
