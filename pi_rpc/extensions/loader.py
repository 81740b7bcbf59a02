"""Importing extensions and running their ``setup(pi)``.

A file is imported under a private module name derived from its path (a package directory is
imported as a package, so its relative imports work); a built-in is imported by its module name.
Modules are cached by path for the life of the process, so replacing the session (new, switch,
fork) runs ``setup(pi)`` again on the same module, as upstream re-runs its cached factories;
``fresh=True`` (``ctx.reload()``) imports the files again.

A failure is reported as upstream words it (``Extension path does not exist: ...``,
``Failed to load extension: <message>``) and the extension is left out; the caller decides
whether that is fatal (startup) or a warning (session replacement).

TypeScript/JavaScript files load in the Node sidecar (``pi_rpc.extensions.nodejs``, imported
only for them) into the same ordered list; without a new enough Node they are skipped with one
warning that names them and says how to get Node.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from pi_rpc.extensions.api import ExtensionAPI, SharedRuntime, error_message
from pi_rpc.extensions.bus import EventBus
from pi_rpc.extensions.discovery import ExtensionSource
from pi_rpc.extensions.mcp_servers import Validator
from pi_rpc.extensions.types import Extension, LoadFailure

_FOREIGN_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")
_module_cache: dict[str, ModuleType] = {}


@dataclass
class LoadResult:
    extensions: list[Extension] = field(default_factory=list)
    failures: list[LoadFailure] = field(default_factory=list)
    runtime: SharedRuntime | None = None


def clear_module_cache() -> None:
    _module_cache.clear()


def _module_name(path: str) -> str:
    stem = (
        os.path.basename(os.path.dirname(path))
        if os.path.basename(path) == "__init__.py"
        else os.path.splitext(os.path.basename(path))[0]
    )
    safe = re.sub(r"\W", "_", stem) or "ext"
    digest = hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"pi_rpc_extension_{safe}_{digest}"


def _import_file(path: str) -> ModuleType:
    name = _module_name(path)
    is_package = os.path.basename(path) == "__init__.py"
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[os.path.dirname(path)] if is_package else None
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def import_extension_module(source: ExtensionSource, *, fresh: bool = False) -> ModuleType:
    """The module of ``source`` (cached by path unless ``fresh``)."""
    if source.module_name is not None:
        return importlib.import_module(source.module_name)
    if not fresh and source.path in _module_cache:
        return _module_cache[source.path]
    module = _import_file(source.path)
    _module_cache[source.path] = module
    return module


def _check_path(source: ExtensionSource) -> str | None:
    if source.module_name is not None:
        return None
    if source.path.startswith("builtin:"):
        return f"Unknown built-in extension: {source.path}"
    if not os.path.exists(source.path):
        return f"Extension path does not exist: {source.path}"
    return None


_warned_unrunnable: set[str] = set()


def without_unrunnable_scripts(sources: list[ExtensionSource]) -> list[ExtensionSource]:
    """``sources`` without the TypeScript/JavaScript ones when no new enough Node is available;
    those are named in one warning (once per process), with both ways to get Node."""
    scripts = [s for s in sources if s.module_name is None and s.path.endswith(_FOREIGN_SUFFIXES)]
    if not scripts:
        return sources
    from pi_rpc.extensions.nodejs.bridge import check_node

    problem = check_node()
    if problem is None:
        return sources
    names = [s.path for s in scripts if os.path.exists(s.path)]
    fresh_names = [name for name in names if name not in _warned_unrunnable]
    if fresh_names:
        _warned_unrunnable.update(fresh_names)
        from pi_rpc.log import logger

        plural = "s" if len(fresh_names) > 1 else ""
        logger().warning(
            f"Warning: Skipping {len(fresh_names)} TypeScript/JavaScript extension{plural} "
            f"({', '.join(fresh_names)}): {problem}"
        )
    skipped = set(names)
    return [s for s in sources if s.path not in skipped]


async def load_extension(
    source: ExtensionSource, runtime: SharedRuntime, *, fresh: bool = False
) -> Extension | LoadFailure:
    problem = _check_path(source)
    if problem is not None:
        return LoadFailure(source.path, problem, source.explicit)
    if source.module_name is None and source.path.endswith(_FOREIGN_SUFFIXES):
        from pi_rpc.extensions.nodejs.bridge import load_script_extension

        return await load_script_extension(source, runtime, fresh=fresh)
    try:
        module = import_extension_module(source, fresh=fresh)
    except Exception as exc:  # noqa: BLE001 - any import failure is a load failure
        return LoadFailure(source.path, f"Failed to load extension: {error_message(exc)}", source.explicit)
    setup = getattr(module, "setup", None)
    if not callable(setup):
        return LoadFailure(
            source.path, f"Extension does not define a setup(pi) function: {source.path}", source.explicit
        )
    extension = Extension(
        path=source.path,
        source_info=dict(source.source_info),
        module=module,
        builtin=source.path.startswith("builtin:"),
    )
    api = ExtensionAPI(extension, runtime)
    try:
        result: Any = setup(api)
        if inspect.isawaitable(result):
            await result
    except Exception as exc:  # noqa: BLE001 - setup raising is a load failure
        api._discard()
        return LoadFailure(source.path, f"Failed to load extension: {error_message(exc)}", source.explicit)
    api._commit()
    return extension


async def load_extensions(
    sources: list[ExtensionSource],
    *,
    bus: EventBus | None = None,
    flag_values: dict[str, Any] | None = None,
    fresh: bool = False,
    mcp_validator: Validator | None = None,
) -> LoadResult:
    """Load ``sources`` in order into one shared runtime; failures are collected, not raised.
    ``mcp_validator`` checks ``pi.register_mcp_server`` configs (MCP's own rules)."""
    runtime = SharedRuntime(bus or EventBus(), flag_values)
    if mcp_validator is not None:
        runtime.mcp_servers.validate = mcp_validator
    result = LoadResult(runtime=runtime)
    for source in without_unrunnable_scripts(sources):
        loaded = await load_extension(source, runtime, fresh=fresh)
        if isinstance(loaded, LoadFailure):
            result.failures.append(loaded)
        else:
            result.extensions.append(loaded)
    return result


async def complete_load(preloaded: LoadResult, sources: list[ExtensionSource]) -> LoadResult:
    """``sources`` loaded with what ``preloaded`` already loaded reused (its ``setup`` does not
    run again) and the rest loaded into its runtime, in ``sources`` order (upstream's
    pre-trust pass followed by the final load)."""
    runtime = preloaded.runtime
    assert runtime is not None
    loaded = {ext.path: ext for ext in preloaded.extensions}
    failed = {failure.path: failure for failure in preloaded.failures}
    result = LoadResult(runtime=runtime)
    for source in without_unrunnable_scripts(sources):
        if source.path in loaded:
            result.extensions.append(loaded[source.path])
        elif source.path in failed:
            result.failures.append(failed[source.path])
        else:
            outcome = await load_extension(source, runtime)
            if isinstance(outcome, LoadFailure):
                result.failures.append(outcome)
            else:
                result.extensions.append(outcome)
    return result


def unknown_options_error(names: list[str]) -> str:
    """Upstream's error for ``--flags`` nothing registered (names without dashes, in order)."""
    unique = list(dict.fromkeys(names))
    plural = "" if len(unique) == 1 else "s"
    return f"Unknown option{plural}: {', '.join(f'--{name}' for name in unique)}"


def apply_flag_values(result: LoadResult, given: list[tuple[str, str | bool]]) -> list[str]:
    """Apply ``--name[=value]`` flags from the command line to the flags extensions registered
    (upstream ``applyExtensionFlagValues``). Returns error texts: string flags given without a
    value, then (one text) the flags no extension registered: upstream refuses them."""
    if result.runtime is None:
        return []
    registered = {name: flag for ext in result.extensions for name, flag in ext.flags.items()}
    errors: list[str] = []
    unknown: list[str] = []
    for name, value in given:
        flag = registered.get(name)
        if flag is None:
            unknown.append(name)
            continue
        if flag.get("type", "boolean") == "boolean":
            result.runtime.flag_values[name] = True
        elif isinstance(value, str):
            result.runtime.flag_values[name] = value
        else:
            errors.append(f'Extension flag "--{name}" requires a value')
    if unknown:
        errors.append(unknown_options_error(unknown))
    return errors


def help_lines(extensions: list[Extension]) -> list[str]:
    """The ``Extension CLI Flags:`` lines of ``--help`` (upstream's layout)."""
    lines = []
    for ext in extensions:
        for name, flag in ext.flags.items():
            value = " <value>" if flag.get("type") == "string" else ""
            description = flag.get("description") or f"Registered by {ext.path}"
            lines.append(f"  --{name}{value}".ljust(30) + str(description))
    return lines
