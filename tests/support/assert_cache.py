"""pytest's rewritten test modules written to disk once, shared by the xdist workers.

pytest rewrites the ``assert`` statements of every test module, conftest and plugin module
(hypothesis, anyio, xdist: over 350 files here) when it imports them, and caches the result as
a ``*-pytest-*.pyc`` beside the source -- unless ``PYTHONDONTWRITEBYTECODE`` is set, as on the
CI machines, where nothing is cached and each of the four workers rewrote all of them again:
measured 12.5 s of CPU to collect the suite against 3.3 s with the cache. pytest reads a cached
file even when it may not write one, so each worker first writes its share of them (in
parallel, before any collects; pytest's writes are atomic renames, so a worker reads a whole
file or none) and then only reads the others'.

This uses pytest's assertion-rewrite internals (``_rewrite_test``, ``_write_pyc``); if they
move, ``write_rewritten_modules`` does nothing and the suite only loses the speed.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any


def write_rewritten_modules(config: Any, roots: list[Path], share: tuple[int, int] = (0, 1)) -> int:
    """Write the rewritten form of the test modules and conftests under ``roots`` and of the
    plugin packages, where no valid one is cached; returns how many. ``share=(i, n)``: only the
    i-th of every n files (each xdist worker writes its share before it collects)."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
            try_makedirs,
        )
    except ImportError:
        return 0
    state = config.stash.get(assertstate_key, None)
    hook = getattr(state, "hook", None)
    if hook is None:  # --assert=plain: nothing is rewritten
        return 0
    patterns = list(config.getini("python_files")) + ["conftest.py"]
    files = {Path(fn) for fn in getattr(hook, "_rewritten_names", {}).values()}
    files.update(_plugin_package_files(getattr(hook, "_must_rewrite", set())))
    for root in roots:
        for path in root.rglob("*.py"):
            if "fixtures" not in path.parts and any(fnmatch.fnmatch(path.name, p) for p in patterns):
                files.add(path)
    written = 0
    index, count = share
    for fn in sorted(files)[index::count]:
        cache_dir = get_cache_dir(fn)
        pyc = cache_dir / (fn.name[:-3] + PYC_TAIL)
        try:
            if _read_pyc(fn, pyc, state.trace) is not None or not try_makedirs(cache_dir):
                continue
            source_key, code = _rewrite_test(fn, config)
            _write_pyc(state, code, source_key, pyc)
        except (OSError, SyntaxError, ValueError):  # (the worker fails on such a file the same way)
            continue
        written += 1
    return written


def _plugin_package_files(names: set[str]) -> set[Path]:
    """Every module of the plugin packages pytest rewrites (hypothesis's are imported by the
    test modules only as they are collected, so they are not among those rewritten so far)."""
    import importlib.util

    found: set[Path] = set()
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                found.update(Path(folder).rglob("*.py"))
    return found
