"""Tool discovery: upstream's BM25 ranker over tool metadata, shared by ``tool_search`` and the
codemode scripts' ``search_tools()``.

A tool's document is its description plus its parameters' names and descriptions (following
local ``$ref``s), and separately its namespace's name, description and instructions. Ranking:
a query that is exactly a tool's name (or its suffix after ``__``) comes first, then tools
covering more query terms, then the BM25 score, where a term in the name counts 3× its IDF and
a term in the namespace 0.5×; a tool whose whole local name is in the query gets a bonus.

Words: identifiers split at case changes, lowercased, non-letters/digits as separators,
English stop words dropped, naive singulars (``issues`` → ``issue``). Upstream segments text
without spaces (such as Chinese) with ``Intl.Segmenter``; here such text splits at spaces only.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

DEFAULT_LIMIT = 8
NAME_WEIGHT = 3.0
NAMESPACE_WEIGHT = 0.5

STOP_WORDS = frozenset("a an and are as at be by for from in is it of on or that the this to with".split())
_ASCII_WORDS = re.compile(r"^[a-z0-9 ]*$")
_ASCII_WORD = re.compile(r"^[a-z0-9]+$")


def _stem(term: str) -> str:
    if len(term) > 4 and term.endswith("ies"):
        return term[:-3] + "y"
    if len(term) > 4 and re.search(r"(ches|shes|sses|xes|zes)$", term):
        return term[:-2]
    if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
        return term[:-1]
    return term


def _letters_only(text: str) -> str:
    out: list[str] = []
    gap = False
    for ch in text:
        if unicodedata.category(ch)[0] in "LMN":
            out.append(ch)
            gap = False
        elif not gap:
            out.append(" ")
            gap = True
    return "".join(out)


def tokenize(text: str) -> list[str]:
    normalized = unicodedata.normalize("NFC", text)
    normalized = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", normalized)
    normalized = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", normalized)
    normalized = _letters_only(normalized.lower())
    words = normalized.split(" ") if _ASCII_WORDS.match(normalized) else normalized.split()
    return [_stem(w) if _ASCII_WORD.match(w) else w for w in words if w and w not in STOP_WORDS]


def resolve_ref(ref: str, root: object) -> object:
    """A local JSON pointer (``#/$defs/Item``) in ``root``, or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _schema_text(schema: object, root: object, parts: list[str], seen: list[object]) -> None:
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = resolve_ref(ref, root)
        if isinstance(target, dict) and not any(target is s for s in seen):
            seen.append(target)
            _schema_text(target, root, parts, seen)
    if isinstance(schema.get("description"), str):
        parts.append(schema["description"])
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            parts.append(name)
            _schema_text(prop, root, parts, seen)
    _schema_text(schema.get("items"), root, parts, seen)
    for key in ("anyOf", "oneOf", "allOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            for variant in variants:
                _schema_text(variant, root, parts, seen)


@dataclass
class SearchDocument:
    name: str
    text: str
    namespace_text: str = ""


def create_document(name: str, description: str, parameters: Any, namespace: dict[str, Any] | None) -> SearchDocument:
    parts = [description]
    _schema_text(parameters, parameters, parts, [parameters])
    namespace_text = (
        " ".join([namespace.get("name") or "", namespace.get("description") or "", namespace.get("instructions") or ""])
        if namespace
        else ""
    )
    return SearchDocument(name, " ".join(p for p in parts if p.strip()), namespace_text)


def _normalize_name(name: str) -> str:
    return re.sub(r"[^a-z0-9_$]", "_", name.strip().lower())


def _is_exact(query: str, name: str) -> bool:
    normalized = _normalize_name(name)
    return normalized == query or normalized.endswith(f"__{query}")


@dataclass
class _Indexed:
    name: str
    name_terms: set[str]
    local_terms: list[str]
    text_counts: dict[str, int]
    text_length: int
    namespace_terms: set[str] = field(default_factory=set)


def _index(document: SearchDocument) -> _Indexed:
    counts: dict[str, int] = {}
    for term in tokenize(document.text):
        counts[term] = counts.get(term, 0) + 1
    local = list(dict.fromkeys(tokenize(document.name.split("__")[-1])))
    return _Indexed(
        document.name,
        set(tokenize(document.name)),
        local,
        counts,
        sum(counts.values()),
        set(tokenize(document.namespace_text)),
    )


def rank(
    query: str, documents: list[SearchDocument], limit: int, k1: float = 1.2, b: float = 0.75
) -> list[tuple[str, float]]:
    """``(name, score)`` of the best matches, best first (ties keep document order)."""
    terms = list(dict.fromkeys(tokenize(query)))
    if not terms or not documents or limit <= 0:
        return []
    indexed = [_index(document) for document in documents]
    average = (sum(d.text_length for d in indexed) / len(indexed)) or 1
    idf: dict[str, float] = {}
    for term in terms:
        frequency = sum(
            1 for d in indexed if term in d.name_terms or term in d.text_counts or term in d.namespace_terms
        )
        idf[term] = math.log(1 + (len(indexed) - frequency + 0.5) / (frequency + 0.5))
    bonus = sum(idf.values())
    exact_query = _normalize_name(query)
    matches: list[tuple[bool, int, float, int, str]] = []
    for position, d in enumerate(indexed):
        norm = k1 * (1 - b + b * d.text_length / average)
        score = 0.0
        covered = 0
        for term in terms:
            count = d.text_counts.get(term, 0)
            weight = (
                (NAME_WEIGHT if term in d.name_terms else 0.0)
                + (NAMESPACE_WEIGHT if term in d.namespace_terms else 0.0)
                + (count * (k1 + 1)) / (count + norm)
            )
            if weight > 0:
                covered += 1
            score += idf[term] * weight
        if score == 0:
            continue
        if d.local_terms and all(t in terms for t in d.local_terms):
            score += bonus
        matches.append((_is_exact(exact_query, d.name), covered, score, position, d.name))
    matches.sort(key=lambda m: (-int(m[0]), -m[1], -m[2], m[3]))
    return [(name, score) for _exact, _covered, score, _pos, name in matches[:limit]]
