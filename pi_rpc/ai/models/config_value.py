"""Config values for API keys and headers (upstream 1.6 ``resolveConfigValue``):

- ``!command``: run with the shell (10 s timeout), trimmed stdout; failure or empty -> None.
  Cached per process for API keys (``resolve_config_value``), uncached for request-time use.
- otherwise a template: ``$NAME`` / ``${NAME}`` read the environment (a missing variable makes the
  whole value unresolved), ``$$`` is a literal ``$`` and ``$!`` a literal ``!``; the rest is literal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_FULL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_COMMAND_CACHE: dict[str, str | None] = {}


def _parse(config: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []

    def lit(value: str) -> None:
        if not value:
            return
        if parts and parts[-1][0] == "literal":
            parts[-1] = ("literal", parts[-1][1] + value)
        else:
            parts.append(("literal", value))

    i = 0
    n = len(config)
    while i < n:
        d = config.find("$", i)
        if d < 0:
            lit(config[i:])
            break
        lit(config[i:d])
        nxt = config[d + 1] if d + 1 < n else ""
        if nxt in ("$", "!"):
            lit(nxt)
            i = d + 2
            continue
        if nxt == "{":
            end = config.find("}", d + 2)
            if end < 0:
                lit("$")
                i = d + 1
                continue
            name = config[d + 2 : end]
            if _NAME_FULL.match(name):
                parts.append(("env", name))
            else:
                lit(config[d : end + 1])
            i = end + 1
            continue
        m = _NAME.match(config, d + 1)
        if m:
            parts.append(("env", m.group(0)))
            i = m.end()
            continue
        lit("$")
        i = d + 1
    return parts


def is_command(config: str) -> bool:
    return config.startswith("!")


def env_var_names(config: str) -> list[str]:
    if is_command(config):
        return []
    names: list[str] = []
    for kind, value in _parse(config):
        if kind == "env" and value not in names:
            names.append(value)
    return names


def _env(name: str, env: Mapping[str, str] | None) -> str | None:
    source = os.environ if env is None else env
    value = source.get(name)
    return value or None


def is_configured(config: str, env: Mapping[str, str] | None = None) -> bool:
    """True when every referenced environment variable is set (commands count as configured)."""
    return all(_env(name, env) is not None for name in env_var_names(config))


def _run(command: str) -> str | None:
    import subprocess  # only for "!command" values: not on every startup

    try:
        out = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def resolve_config_value(config: str, env: Mapping[str, str] | None = None, *, cached: bool = True) -> str | None:
    if is_command(config):
        if not cached:
            return _run(config[1:])
        if config not in _COMMAND_CACHE:
            _COMMAND_CACHE[config] = _run(config[1:])
        return _COMMAND_CACHE[config]
    out = []
    for kind, value in _parse(config):
        if kind == "literal":
            out.append(value)
        else:
            resolved = _env(value, env)
            if resolved is None:
                return None
            out.append(resolved)
    return "".join(out)
