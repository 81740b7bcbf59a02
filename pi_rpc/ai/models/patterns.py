"""Model reference parsing for ``--model``/``--models``/``set_model`` text (upstream 1.6
``resolveModelReference``): ``provider/id``, bare ``id``, optional ``:thinking`` suffix, and fuzzy
substring matching on id or name (aliases over dated ids, then the latest). ``usable(provider)``
only breaks ties between providers."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pi_rpc.ai.thinking import THINKING_LEVELS

_DATED = re.compile(r"-\d{8}$")


def split_thinking_suffix(text: str) -> tuple[str, str] | None:
    idx = text.rfind(":")
    if idx < 0:
        return None
    suffix = text[idx + 1 :]
    return (text[:idx], suffix) if suffix in THINKING_LEVELS else None


def split_provider_prefix(text: str, providers: list[str]) -> tuple[str, str] | None:
    """``provider/rest`` with the longest provider id (case-insensitive) that prefixes ``text``
    followed by a slash, or None."""
    lower = text.lower()
    best: tuple[str, str] | None = None
    for provider in providers:
        prefix = provider.strip().lower()
        if not prefix or (best and len(best[0]) >= len(provider)):
            continue
        slash = lower.find("/", len(prefix))
        if slash < 0 or lower[:slash].strip() != prefix:
            continue
        rest = text[slash + 1 :].strip()
        if rest:
            best = (provider, rest)
    return best


def _split_provider(text: str, models: list[dict[str, Any]]) -> tuple[str, str] | None:
    return split_provider_prefix(text, list(dict.fromkeys(m["provider"] for m in models)))


def _fuzzy(text: str, models: list[dict[str, Any]]) -> list[dict[str, Any]]:
    low = text.lower()
    return [m for m in models if low in m["id"].lower() or low in (m.get("name") or "").lower()]


def _best(matches: list[dict[str, Any]]) -> dict[str, Any] | None:
    aliases = [m for m in matches if m["id"].endswith("-latest") or not _DATED.search(m["id"])]
    pool = aliases or matches
    return sorted(pool, key=lambda m: m["id"], reverse=True)[0] if pool else None


def _select(text: str, pool: list[dict[str, Any]], fuzzy: bool, usable: Callable[[str], bool]) -> dict[str, Any] | None:
    low = text.lower()
    raw = [m for m in pool if m["id"].lower() == low]
    split = _split_provider(text, pool)
    named = None
    if split:
        pmodels = [m for m in pool if m["provider"] == split[0]]
        lm = split[1].lower()
        named = next((m for m in pmodels if m["id"].lower() == lm), None)
        if named is None:
            named = next((m for m in raw if m["provider"] == split[0]), None)
        if named is None and fuzzy:
            named = _best(_fuzzy(split[1], pmodels))
    others = [m for m in raw if m is not named]
    candidates = ([named] if named else []) + others
    if not candidates:
        return None
    if len({m["provider"] for m in candidates}) == 1:
        return {"status": "resolved", "model": candidates[0]}
    if named and usable(named["provider"]):
        return {"status": "resolved", "model": named}
    usable_others = [m for m in others if usable(m["provider"])]
    if len(usable_others) == 1:
        return {"status": "resolved", "model": usable_others[0]}
    if not usable_others and named:
        return {"status": "resolved", "model": named}
    return {"status": "ambiguous", "candidates": candidates}


def _resolve_text(
    text: str, pool: list[dict[str, object]], usable: Callable[[str], bool], fuzzy: bool, thinking: bool
) -> dict[str, object]:
    ref = _select(text, pool, fuzzy, usable)
    if ref:
        return ref
    if fuzzy:
        matches = _fuzzy(text, pool)
        if matches:
            multi = len({m["provider"] for m in matches}) > 1
            usable_matches = [m for m in matches if usable(m["provider"])] if multi else []
            fpool = usable_matches or matches
            best = _best(fpool)
            if best is not None:
                tied = [m for m in fpool if m["id"] == best["id"]]
                if len({m["provider"] for m in tied}) == 1:
                    return {"status": "resolved", "model": best}
                return {"status": "ambiguous", "candidates": tied}
    if not thinking:
        return {"status": "not-found"}
    split = split_thinking_suffix(text)
    if split:
        inner = _resolve_text(split[0], pool, usable, fuzzy, thinking)
        if inner["status"] == "not-found":
            return inner
        if "warning" not in inner:
            inner = {**inner, "thinkingLevel": split[1]}
        return inner
    idx = text.rfind(":")
    if idx < 0:
        return {"status": "not-found"}
    inner = _resolve_text(text[:idx], pool, usable, fuzzy, thinking)
    if inner["status"] == "not-found":
        return inner
    return {
        **{k: v for k, v in inner.items() if k != "thinkingLevel"},  # upstream: thinkingLevel undefined
        "warning": f'Invalid thinking level "{text[idx + 1 :]}" in pattern "{text}". Using default instead.',
    }


def resolve_model_reference(
    text: str,
    models: list[dict[str, Any]],
    usable: Callable[[str], bool] = lambda _p: True,
    *,
    provider: str | None = None,
    fuzzy: bool = True,
    thinking_suffix: bool = True,
) -> dict[str, Any]:
    """``{"status": "resolved", "model": m, "thinkingLevel"?: str, "warning"?: str}``,
    ``{"status": "ambiguous", "candidates": [...]}`` or ``{"status": "not-found"}``."""
    text = text.strip()
    if not text:
        return {"status": "not-found"}
    pool = [m for m in models if m["provider"].lower() == provider.lower()] if provider else models
    return _resolve_text(text, pool, usable, fuzzy, thinking_suffix)


def select_reference(
    text: str,
    models: list[dict[str, Any]],
    usable: Callable[[str], bool] = lambda _p: True,
    *,
    provider: str | None = None,
    fuzzy: bool = True,
) -> dict[str, Any] | None:
    """The first step of ``resolve_model_reference`` alone: ``provider/id`` or an exact id
    (fuzzy only within a named provider); None where resolution would go on to fuzzy matching
    over every model or to a thinking suffix. Its answer depends only on the models of the
    provider ``text`` names and those whose id equals ``text``, so a caller may pass just those
    (``ModelRegistry.resolve`` does, to spare parsing the whole catalogue)."""
    text = text.strip()
    if not text:
        return None
    pool = [m for m in models if m["provider"].lower() == provider.lower()] if provider else models
    return _select(text, pool, fuzzy, usable)


def find_exact_model(reference: str, models: list[dict[str, object]]) -> dict[str, object] | None:
    """Exact ``provider/id`` or bare id, no suffix, no fuzzy."""
    result = resolve_model_reference(reference, models, fuzzy=False, thinking_suffix=False)
    return result.get("model") if result["status"] == "resolved" else None
