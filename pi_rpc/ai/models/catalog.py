"""Built-in model catalogue: ``catalog.json`` beside this file, generated from upstream pi-ai
1.6.0's own catalogue data (MIT) by ``generate_catalog.py`` (``python -m
pi_rpc.ai.models.generate_catalog --pi-ai DIR``; README "The model catalogue"). Every built-in
provider and chat model of upstream, in upstream's order (providers as ``MODELS``, models as
``flattenChatModelCatalog``); model dicts keep upstream's key order (id, name, api, provider,
baseUrl, reasoning, input, cost, contextWindow, maxTokens, then thinkingLevelMap, compat,
promptCache, inputLimits, type). ``defaults`` is the coding agent's ``defaultModelPerProvider``.

Loading is lazy per provider, because startup pays for it: the file keeps each provider's array
on lines of its own, so ``_index`` finds every provider's byte range with a few ``find`` calls
and ``builtin_models(provider)`` parses only that slice (a session configured for one provider
parses a few kilobytes, not the whole ~1 MB). A file not in that layout (edited by hand) is
parsed whole instead. The ``labels`` line holds each model's id and name alone (what fuzzy
``--model`` text is matched against, ``builtin_labels``), so fuzzy resolution parses ~100 kB
and then only the chosen model's provider.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from pi_rpc.ai.types import Model

CATALOG_PATH = Path(__file__).with_name("catalog.json")
_PROVIDERS_HEAD = b'\n"providers":{\n'


@lru_cache(maxsize=1)
def _data() -> bytes:
    return CATALOG_PATH.read_bytes()


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[int, int]]:
    """Provider id -> (start, end) of its JSON array in ``_data()``; empty when the layout is
    not the generated one (then ``_parsed`` serves everything)."""
    data = _data()
    head = data.find(_PROVIDERS_HEAD)
    if head < 0:
        return {}
    index: dict[str, tuple[int, int]] = {}
    pos = head + len(_PROVIDERS_HEAD)
    while not data.startswith(b"}}", pos):
        colon = data.find(b'":[\n', pos)
        close = data.find(b"\n]", colon)
        if data[pos : pos + 1] != b'"' or colon < 0 or close < 0:
            return {}
        index[orjson.loads(data[pos : colon + 1])] = (colon + 2, close + 2)
        pos = close + 2
        if data.startswith(b",\n", pos):
            pos += 2
        elif data.startswith(b"\n", pos):
            pos += 1
        else:
            return {}
    return index


def _parsed() -> dict[str, Any]:
    parsed: dict[str, object] = orjson.loads(_data())
    return parsed


def builtin_providers() -> list[str]:
    """Built-in provider ids in upstream's order (also those without chat models)."""
    index = _index()
    return list(index) if index else list(_parsed()["providers"])


def builtin_models(provider: str | None = None) -> list[dict[str, object]]:
    """Fresh copies of the built-in models (all, or one provider's): each call parses the
    bytes again, ~20x cheaper than ``copy.deepcopy`` of a cached catalogue."""
    index = _index()
    if not index:
        providers: dict[str, list[dict[str, object]]] = _parsed()["providers"]
        if provider is not None:
            return list(providers.get(provider, []))
        return [m for models in providers.values() for m in models]
    data = _data()
    if provider is not None:
        span = index.get(provider)
        if span is None:
            return []
        models: list[dict[str, object]] = orjson.loads(data[span[0] : span[1]])
        return models
    out: list[dict[str, object]] = []
    for start, end in index.values():
        out.extend(orjson.loads(data[start:end]))
    return out


@lru_cache(maxsize=1)
def _lowered() -> bytes:
    return _data().lower()


def providers_with_id(model_id: str) -> list[str] | None:
    """Built-in providers with a model whose id equals ``model_id`` ignoring case (as
    ``str.lower`` compares them), read from the ``labels`` line; in a file without it, found in
    the file's bytes (``"id":"<id>"`` in the provider's range, ASCII case; a nested ``id`` field
    with that value could add a provider, never hide one), and None when this cannot be told
    so (a non-ASCII id, a file not in the generated layout)."""
    labels = _labels()
    if labels is not None:
        low = model_id.lower()
        return [p for p, pairs in labels.items() if any(pair[0].lower() == low for pair in pairs)]
    index = _index()
    if not index or not model_id.isascii():
        return None
    data = _lowered()
    needle = b'"id":' + orjson.dumps(model_id.lower())
    found: list[str] = []
    at = data.find(needle)
    while at >= 0:
        for name, (start, end) in index.items():
            if start <= at < end and name not in found:
                found.append(name)
        at = data.find(needle, at + 1)
    return found


def builtin_providers_with_models() -> list[str]:
    """Built-in providers that have at least one chat model, in catalogue order."""
    index = _index()
    if not index:
        return [p for p, models in _parsed()["providers"].items() if models]
    data = _data()
    return [name for name, (start, end) in index.items() if data[start + 2 : start + 3] == b"{"]


@lru_cache(maxsize=1)
def _defaults() -> dict[str, str]:
    data = _data()
    start = data.find(b'\n"defaults":')
    end = data.find(b",\n", start)
    if start < 0 or end < 0:
        return dict(_parsed().get("defaults") or {})
    defaults: dict[str, str] = orjson.loads(data[start + len(b'\n"defaults":') : end])
    return defaults


def builtin_labels() -> dict[str, list[tuple[str, str | None]]] | None:
    """Provider -> ``(id, name)`` of each of its built-in models, in ``builtin_models`` order,
    read from the ``labels`` line alone; None when the file has none (then parse the models)."""
    return _labels()


@lru_cache(maxsize=1)
def _labels() -> dict[str, list[tuple[str, str | None]]] | None:
    data = _data()
    start = data.find(b'\n"labels":')
    end = data.find(b",\n", start)
    if start < 0 or end < 0 or not _index():
        return None
    # ``[id, name]`` pairs, read as the tuples they stand for (no copy: this runs at startup).
    labels: dict[str, list[tuple[str, str | None]]] = orjson.loads(data[start + len(b'\n"labels":') : end])
    return labels


@lru_cache(maxsize=1)
def _source() -> dict[str, object]:
    data = _data()
    end = data.find(b",\n")
    if data.startswith(b'{"_source":') and end > 0:
        source: dict[str, object] = orjson.loads(data[len(b'{"_source":') : end])
        return source
    return dict(_parsed().get("_source") or {})


def catalogue_source() -> dict[str, object]:
    """The ``_source`` header: the upstream package, ``dataGeneratedAt``, the generator."""
    return dict(_source())


def default_model_ids() -> dict[str, str]:
    """Upstream's ``defaultModelPerProvider``: provider -> the model picked first when that
    provider is configured, in upstream's search order."""
    return dict(_defaults())


def placeholder_model() -> Model:
    """Upstream agent-core's stand-in when no model is configured (protocol reference §1.1)."""
    return {
        "id": "unknown",
        "name": "unknown",
        "api": "unknown",
        "provider": "unknown",
        "baseUrl": "",
        "reasoning": False,
        "input": [],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 0,
        "maxTokens": 0,
    }
