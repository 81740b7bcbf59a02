"""Tool name patterns as ``--tools``, ``--exclude-tools`` and ``toolExposure`` accept them: an
exact name, or a pattern where ``*`` matches any characters (the whole name must match)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable


def tool_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$", re.DOTALL)


def tool_name_matcher(entries: Iterable[str]) -> Callable[[str], bool]:
    """Whether a name equals one of the exact entries or matches one of the patterns."""
    items = list(entries)
    names = {entry for entry in items if "*" not in entry}
    patterns = [tool_pattern(entry) for entry in items if "*" in entry]
    return lambda name: name in names or any(p.match(name) for p in patterns)
