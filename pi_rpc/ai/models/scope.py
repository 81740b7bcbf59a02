"""Model scope for ``--models`` / ``enabledModels`` (upstream 1.6's
``resolveModelScopeFromModels`` in ``core/model-resolver.js``): each pattern picks models from
the available ones, in pattern order without repeats, with an optional thinking level.

A pattern with ``*``, ``?`` or ``[`` is first tried as an exact reference (ids such as
``model[1m]`` are not globs), then as a glob (minimatch semantics, case-insensitive) against
``provider/id`` and against the bare id, its thinking suffix split off first; any other pattern
resolves as ``--model`` text does (fuzzy, an invalid thinking suffix warned about). Patterns that
match nothing, or several providers, give upstream's warnings."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from pi_rpc.ai.models.patterns import resolve_model_reference, split_thinking_suffix


def _expand_braces(pattern: str) -> list[str]:
    """minimatch's brace expansion: ``a{b,c}d`` -> ``abd``, ``acd`` (innermost first, nested)."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [out for part in match.group(1).split(",") for out in _expand_braces(head + part + tail)]


def _segment_regex(segment: str) -> str:
    if segment == "**":
        return "(?:(?!\\.)[^/]*(?:/(?!\\.)[^/]*)*)?"
    out: list[str] = []
    i = 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (close := segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "^") else i + 1)) > 0:
            body = segment[i + 1 : close]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            out.append("[" + ("^/" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = close
        else:
            out.append(re.escape(c))
        i += 1
    # Without minimatch's ``dot`` option a wildcard does not match a leading dot.
    lead = "(?!\\.)" if segment[:1] in ("*", "?", "[") else ""
    return lead + "".join(out)


@lru_cache(maxsize=64)
def _glob(pattern: str) -> re.Pattern[str]:
    alternatives = ["/".join(_segment_regex(s) for s in p.split("/")) for p in _expand_braces(pattern)]
    return re.compile("^(?:" + "|".join(alternatives) + ")$", re.IGNORECASE | re.DOTALL)


def glob_matches(text: str, pattern: str) -> bool:
    """minimatch(text, pattern, {nocase: true}) for the patterns model scopes use."""
    return _glob(pattern).match(text) is not None


def resolve_model_scope(
    patterns: list[str], models: list[dict[str, Any]]
) -> tuple[list[tuple[dict[str, Any], str | None]], list[str]]:
    """``([(model, thinking level or None), ...], [warning, ...])`` for ``patterns`` over the
    available ``models`` (in their order)."""
    scoped: list[tuple[dict[str, object], str | None]] = []
    warnings: list[str] = []

    def add(model: dict[str, object], level: str | None) -> None:
        if not any(m["provider"] == model["provider"] and m["id"] == model["id"] for m, _ in scoped):
            scoped.append((model, level))

    def ambiguous(pattern: str, candidates: list[dict[str, Any]]) -> None:
        # Provider ids are lowercase letters, digits and dashes: code-point order is
        # localeCompare's order for them.
        providers = sorted({m["provider"] for m in candidates})
        warnings.append(
            f'Pattern "{pattern}" matches several providers: {", ".join(providers)}. Use provider/id to choose one.'
        )

    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            split = split_thinking_suffix(pattern)
            glob, level = split if split else (pattern, None)
            exact = resolve_model_reference(glob, models, fuzzy=False, thinking_suffix=False)
            if exact["status"] == "resolved":
                matches = [exact["model"]]
            elif exact["status"] == "ambiguous":
                matches = exact["candidates"]
                ambiguous(pattern, matches)
            else:
                matches = [
                    m for m in models if glob_matches(f"{m['provider']}/{m['id']}", glob) or glob_matches(m["id"], glob)
                ]
            if not matches:
                warnings.append(f'No models match pattern "{pattern}"')
            for model in matches:
                add(model, level)
            continue
        result = resolve_model_reference(pattern, models)
        if result["status"] == "not-found":
            warnings.append(f'No models match pattern "{pattern}"')
            continue
        if "warning" in result:
            warnings.append(result["warning"])
        if result["status"] == "ambiguous":
            ambiguous(pattern, result["candidates"])
        for model in [result["model"]] if result["status"] == "resolved" else result["candidates"]:
            add(model, result.get("thinkingLevel"))
    return scoped, warnings
