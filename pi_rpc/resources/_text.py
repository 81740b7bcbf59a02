"""Text helpers shared by the resource loaders: JavaScript-compatible trimming and UTF-16
lengths (upstream measures and cuts strings the JS way), file reading, and YAML frontmatter.

Frontmatter follows upstream's rules: line endings are normalised to LF first; a file has
frontmatter only when it starts with ``---``; the YAML block runs to the first following
``\\n---``; the body after it is trimmed, while a file without frontmatter keeps its body as is.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# ECMAScript WhiteSpace + LineTerminator: what String.prototype.trim() removes. Python's
# str.strip() differs (it strips \x1c-\x1f and \x85 but keeps the BOM).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript does it."""
    return text.strip(JS_WHITESPACE)


def js_is_blank(text: str) -> bool:
    return js_trim(text) == ""


def utf16_len(text: str) -> int:
    """``text.length`` in JavaScript (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """``text.slice(0, units)`` in JavaScript, never splitting a surrogate pair into garbage."""
    if utf16_len(text) <= units:
        return text
    out: list[str] = []
    used = 0
    for ch in text:
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > units:
            break
        out.append(ch)
        used += width
    return "".join(out)


def read_text(path: str | Path) -> str:
    """Read a file as UTF-8, replacing invalid bytes like Node's ``readFileSync(p, "utf-8")``."""
    with open(path, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace")


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --------------------------------------------------------------------------- YAML


@functools.cache
def _yaml12_loader() -> type:
    """SafeLoader with YAML 1.2 core-schema scalars, as upstream's ``yaml`` package resolves
    them: only true/false are booleans (``yes``/``on`` stay strings), dates stay strings, and
    duplicate mapping keys are an error. Built on first use: PyYAML is imported only when a
    skill or template with frontmatter is read (startup cost)."""
    import yaml

    class _Yaml12Loader(yaml.SafeLoader):
        pass

    _Yaml12Loader.yaml_implicit_resolvers = {
        first: [
            (tag, regexp)
            for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
        ]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _Yaml12Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )

    def _construct_unique_mapping(loader: Any, node: Any) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"Map keys must be unique: {key!r}", key_node.start_mark
                )
            seen.add(key)
        return loader.construct_mapping(node, deep=True)

    _Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _construct_unique_mapping)
    return _Yaml12Loader


class FrontmatterError(Exception):
    """The frontmatter block is not valid YAML."""


@dataclass(frozen=True)
class Frontmatter:
    """A markdown file split into its YAML frontmatter and its body."""

    data: dict[str, Any]
    body: str


def _split_frontmatter(content: str) -> tuple[str | None, str]:
    normalized = normalize_newlines(content)
    if not normalized.startswith("---"):
        return None, normalized
    end = normalized.find("\n---", 3)
    if end == -1:
        return None, normalized
    return normalized[4:end], js_trim(normalized[end + 4 :])


def parse_frontmatter(content: str) -> Frontmatter:
    """Split ``content`` into its YAML frontmatter (a dict; anything else counts as empty) and
    body. Raises :class:`FrontmatterError` when the YAML does not parse."""
    yaml_text, body = _split_frontmatter(content)
    if not yaml_text:
        return Frontmatter({}, body)
    import yaml

    try:
        data = yaml.load(yaml_text, Loader=_yaml12_loader())  # noqa: S506 - safe loader subclass
    except yaml.YAMLError as exc:
        raise FrontmatterError(str(exc).replace("\n", " ")) from exc
    return Frontmatter(data if isinstance(data, dict) else {}, body)


def strip_frontmatter(content: str) -> str:
    """The body of ``content`` without its frontmatter (YAML errors propagate)."""
    return parse_frontmatter(content).body
