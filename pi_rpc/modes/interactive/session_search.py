"""The search syntax of upstream's session selector (``/resume``): ``re:<pattern>`` is a
case-insensitive regular expression, ``"a phrase"`` must appear as written (whitespace
normalised), other words must each appear (or, in a name or folder, their letters in order).
Each option is matched field by field (name, then id / messages / folder), and a better field
ranks first: the name, then exact text elsewhere, then scattered letters (upstream's tiers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TIER_WEIGHT = 1_000_000
TIER_NAME, TIER_TEXT, TIER_FUZZY = 0, 1, 2


@dataclass(frozen=True)
class SearchFields:
    """What one session is matched against."""

    name: str = ""
    text: tuple[str, ...] = ()  # id, the messages' text, the path: matched exactly
    folder: str = ""


@dataclass(frozen=True)
class Query:
    mode: str  # "tokens" or "regex"
    tokens: tuple[tuple[str, str], ...] = ()  # (kind, value): kind "fuzzy" or "phrase"
    regex: re.Pattern[str] | None = None
    error: str | None = None
    empty: bool = field(default=False)


def parse_query(query: str) -> Query:
    """Upstream's ``parseSearchQuery``: ``re:`` regex, quoted phrases, whitespace-split words
    (an unclosed quote falls back to plain words)."""
    trimmed = query.strip()
    if not trimmed:
        return Query("tokens", empty=True)
    if trimmed.startswith("re:"):
        pattern = trimmed[3:].strip()
        if not pattern:
            return Query("regex", error="Empty regex")
        try:
            return Query("regex", regex=re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            return Query("regex", error=f"Invalid regex: {exc}")
    tokens: list[tuple[str, str]] = []
    buffer, quoted = "", False

    def flush(kind: str) -> None:
        nonlocal buffer
        value = buffer.strip()
        buffer = ""
        if value:
            tokens.append((kind, value))

    for char in trimmed:
        if char == '"':
            flush("phrase" if quoted else "fuzzy")
            quoted = not quoted
        elif not quoted and char.isspace():
            flush("fuzzy")
        else:
            buffer += char
    if quoted:  # unbalanced quotes: plain words
        return Query("tokens", tokens=tuple(("fuzzy", word) for word in trimmed.split()))
    flush("fuzzy")
    return Query("tokens", tokens=tuple(tokens))


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _scattered(needle: str, haystack: str) -> int | None:
    """Letters of ``needle`` in order in ``haystack``: a score (lower is tighter), else None."""
    needle, haystack = needle.lower(), haystack.lower()
    pos, first, gaps = -1, -1, 0
    for char in needle:
        found = haystack.find(char, pos + 1)
        if found < 0:
            return None
        if first < 0:
            first = found
        elif found > pos + 1:
            gaps += found - pos - 1
        pos = found
    return gaps + max(0, first)


def _literal(fields: SearchFields, value: str, normalise: bool) -> int | None:
    prepare = _normal if normalise else str.lower
    if value in prepare(fields.name):
        return TIER_NAME * TIER_WEIGHT + prepare(fields.name).index(value)
    if any(value in prepare(text) for text in fields.text) or value in prepare(fields.folder):
        return TIER_TEXT * TIER_WEIGHT
    return None


def match(query: Query, fields: SearchFields) -> int | None:
    """The score of a match (lower ranks first), or None when ``fields`` do not match."""
    if query.empty:
        return 0
    if query.mode == "regex":
        if query.regex is None:
            return None
        if fields.name and query.regex.search(fields.name):
            return TIER_NAME * TIER_WEIGHT
        if any(query.regex.search(text) for text in (*fields.text, fields.folder)):
            return TIER_TEXT * TIER_WEIGHT
        return None
    total = 0
    for kind, value in query.tokens:
        if kind == "phrase":
            phrase = _normal(value)
            if not phrase:
                continue
            score = _literal(fields, phrase, True)
        else:
            score = _literal(fields, value.lower(), False)
            if score is None:
                found = [s for s in (_scattered(value, fields.name), _scattered(value, fields.folder)) if s is not None]
                score = TIER_FUZZY * TIER_WEIGHT + min(found) if found else None
        if score is None:
            return None
        total += score
    return total
