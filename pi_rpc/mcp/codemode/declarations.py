"""How tools look to codemode scripts: Python-flavoured declarations rendered from JSON Schema.

    await tools.mcp__docs__search({
        "query": str,  # What to look for
        "limit"?: int,
    }) -> {"content": list[...], "structuredContent"?: Any, "isError"?: bool, ...}

Upstream renders TypeScript; the types map as ``string → str``, ``number → float``,
``integer → int``, ``boolean → bool``, ``null → None``, arrays ``list[T]``, enums and consts
``Literal[…]``, unions ``A | B``, objects as dict literals whose optional keys carry ``?``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pi_rpc.mcp.search import resolve_ref

TEXT_OUTPUT_SCHEMA: dict[str, object] = {"type": "string"}
_MAX_DEPTH = 6


def identifier(name: str) -> str:
    """A tool's script identifier: characters invalid in a Python identifier become ``_``."""
    out: list[str] = []
    for ch in name:
        valid = (
            (ch.isascii() and (ch.isalpha() or ch == "_"))
            if not out
            else (ch.isascii() and (ch.isalnum() or ch == "_"))
        )
        out.append(ch if valid else "_")
    return "".join(out) or "_"


def _literal(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, bool) and value is not None else repr(value)


def render_type(schema: object, root: object, depth: int = 0, indent: str = "") -> str:
    if depth > _MAX_DEPTH or schema is True or schema == {} or not isinstance(schema, dict):
        return "Any"
    if isinstance(schema.get("$ref"), str):
        target = resolve_ref(schema["$ref"], root)
        return render_type(target, root, depth + 1, indent) if isinstance(target, dict) else "Any"
    if "const" in schema:
        return f"Literal[{_literal(schema['const'])}]"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "Literal[" + ", ".join(_literal(v) for v in schema["enum"]) + "]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return " | ".join(dict.fromkeys(render_type(v, root, depth + 1, indent) for v in schema[key]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(dict.fromkeys(render_type({**schema, "type": k}, root, depth, indent) for k in kind))
    if kind == "string":
        return "str"
    if kind == "integer":
        return "int"
    if kind == "number":
        return "float"
    if kind == "boolean":
        return "bool"
    if kind == "null":
        return "None"
    if kind == "array":
        return f"list[{render_type(schema.get('items'), root, depth + 1, indent)}]"
    if kind == "object" or isinstance(schema.get("properties"), dict):
        return render_object(schema, root, depth, indent)
    return "Any"


def render_object(schema: dict[str, Any], root: Any, depth: int = 0, indent: str = "", comments: bool = False) -> str:
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    extra = schema.get("additionalProperties")
    if not properties:
        return "dict[str, Any]"
    required = set(schema.get("required") or [])
    inner = indent + "    "
    lines = []
    for name, prop in properties.items():
        optional = "" if name in required else "?"
        rendered = render_type(prop, root, depth + 1, inner)
        note = ""
        if (
            comments
            and isinstance(prop, dict)
            and isinstance(prop.get("description"), str)
            and prop["description"].strip()
        ):
            note = "  # " + re.sub(r"\s+", " ", prop["description"].strip())
        lines.append(f"{inner}{json.dumps(name)}{optional}: {rendered},{note}")
    if extra not in (None, False):
        lines.append(f"{inner}...")
    return "{\n" + "\n".join(lines) + f"\n{indent}}}"


def render_output_type(schema: object) -> str:
    if not isinstance(schema, dict):
        return "Any"
    return render_type(schema, schema)


def render_declaration(name: str, parameters: object, output_schema: object) -> str:
    """The call a script makes and what it resolves to."""
    params = parameters if isinstance(parameters, dict) else {}
    args = render_object(params, params, comments=True) if params.get("properties") else "{}"
    returns = render_output_type(output_schema if output_schema is not None else TEXT_OUTPUT_SCHEMA)
    return f"await tools.{identifier(name)}({args}) -> {returns}"


def render_tool_sample(name: str, description: str, parameters: object, output_schema: object) -> str:
    """A tool as scripts see it: description, then its declaration in a Python block."""
    return f"{description.strip()}\n\ncodemode tool declaration:\n```python\n{render_declaration(name, parameters, output_schema)}\n```"


def _follow(schema: object, root: object) -> object:
    seen: list[object] = []
    current = schema
    while isinstance(current, dict) and isinstance(current.get("$ref"), str) and not any(current is s for s in seen):
        target = resolve_ref(current["$ref"], root)
        if target is None:
            break
        seen.append(current)
        current = target
    return current


def _fields(schema: object, root: object, depth: int) -> str | None:
    resolved = _follow(schema, root)
    if (
        not isinstance(resolved, dict)
        or resolved.get("type") != "object"
        or not isinstance(resolved.get("properties"), dict)
    ):
        return None
    required = set(resolved.get("required") or [])
    parts = []
    for name, field in resolved["properties"].items():
        followed = _follow(field, root)
        const = followed.get("const") if isinstance(followed, dict) and "const" in followed else None
        nested = (
            json.dumps(const)
            if isinstance(followed, dict) and "const" in followed
            else (_fields(field, root, depth - 1) if depth > 0 else None)
        )
        _ = const
        parts.append(f"{name}{'' if name in required else '?'}{f': {nested}' if nested else ''}")
    return "{ " + ", ".join(parts) + " }"


def describe_output(name: str, schema: object) -> str:
    """What a script call resolves to, in one line (for declared tools' descriptions)."""
    rendered = render_output_type(schema)
    if rendered == "str":
        return "a string"
    fields = _fields(schema, schema, 1) if schema is not None else None
    if fields is None and isinstance(schema, dict):
        variants = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(variants, list) and variants:
            described = [_fields(v, schema, 0) for v in variants]
            if all(d is not None for d in described):
                fields = " | ".join(d for d in described if d is not None)
    if fields:
        return f"`{fields}`"
    if "\n" not in rendered:
        return f"`{rendered}`"
    return f"a value; `await describe_tool({json.dumps(name)})` shows its type"
