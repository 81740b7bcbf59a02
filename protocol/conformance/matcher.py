"""Pattern language for conformance expectations (documented in README.md, section "Patterns").

A pattern is plain JSON. Dicts match *partially* (extra keys allowed), lists match element-wise with
equal length, scalars by equality (1 == 1.0, but true != 1). Special forms:

  "*"                       key present, any value
  "$absent"                 (as a dict value) key must not be present
  "${name}"                 a captured variable (whole string keeps the variable's JSON type)
  {"$any": [p, ...]}        one alternative matches (used for deliberate ours/upstream differences)
  {"$not": p}               p does not match
  {"$regex": "re"}          string, re.search
  {"$prefix": "s"}          string startswith
  {"$contains": x}          string: substring; list: some element matches pattern x
  {"$type": "string"|"number"|"integer"|"boolean"|"null"|"object"|"array"}
  {"$len": n | p}           length of string/list/object matches n (or pattern p, e.g. {"$gte": 1})
  {"$gte": n} {"$lte": n} {"$gt": n}   numeric comparisons
  {"$exact": {...}}         dict with exactly these keys (each value a pattern)
  {"$each": p}              every element of a list matches p
  {"$save": "name", "$match": p?}   capture the value (after p matched) into variable name
  "$raw": p                 (top-level key of a record pattern) matched against the raw stdout line
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

OPERATORS = {
    "$any",
    "$not",
    "$regex",
    "$prefix",
    "$contains",
    "$type",
    "$len",
    "$gte",
    "$lte",
    "$gt",
    "$exact",
    "$each",
    "$save",
    "$match",
}
_VAR = re.compile(r"\$\{([A-Za-z0-9_.:-]+)\}")


class Unresolved(KeyError):
    """A ${name} variable that was never captured."""


def substitute(value: Any, variables: dict[str, Any], strict: bool = True) -> Any:
    """Replace ${name} in strings (recursively). A whole-string reference keeps the JSON type.

    Unknown names raise Unresolved when ``strict``, else stay as written (patterns may capture them later).
    """
    if isinstance(value, str):
        m = _VAR.fullmatch(value)
        if m:
            if m.group(1) not in variables:
                if strict:
                    raise Unresolved(m.group(1))
                return value
            return variables[m.group(1)]

        def repl(mm: re.Match[str]) -> str:
            if mm.group(1) not in variables:
                if not strict:
                    return mm.group(0)
                raise Unresolved(mm.group(1))
            v = variables[mm.group(1)]
            return v if isinstance(v, str) else str(v)

        return _VAR.sub(repl, value)
    if isinstance(value, list):
        return [substitute(v, variables, strict) for v in value]
    if isinstance(value, dict):
        # operator payloads like $save names are not substituted
        return {k: (v if k == "$save" else substitute(v, variables, strict)) for k, v in value.items()}
    return value


def _is_op(p: Any) -> bool:
    return isinstance(p, dict) and bool(p) and all(k in OPERATORS for k in p)


def _type_ok(value: Any, t: str) -> bool:
    return {
        "string": isinstance(value, str),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "integer": isinstance(value, int)
        and not isinstance(value, bool)
        or (isinstance(value, float) and value.is_integer()),
        "boolean": isinstance(value, bool),
        "null": value is None,
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }.get(t, False)


def _scalar_eq(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def match(pattern: Any, value: Any, captures: dict[str, Any], raw: str | None = None) -> bool:
    """True when value matches pattern; on success new captures are written into ``captures``."""
    local: dict[str, Any] = dict(captures)
    if _match(pattern, value, local, raw):
        captures.update(local)
        return True
    return False


def _match(p: Any, v: Any, caps: dict[str, Any], raw: str | None = None) -> bool:
    if isinstance(p, str):
        if p == "*":
            return True
        m = _VAR.fullmatch(p)
        if m and m.group(1) in caps:
            p = caps[m.group(1)]
            return _match_literal(p, v)
        return isinstance(v, str) and v == p
    if _is_op(p):
        return _match_op(p, v, caps)
    if isinstance(p, dict):
        if not isinstance(v, dict):
            return False
        for k, sub in p.items():
            if k == "$raw":
                if raw is None or not _match(sub, raw, caps):
                    return False
                continue
            if sub == "$absent":
                if k in v:
                    return False
                continue
            if k not in v or not _match(sub, v[k], caps):
                return False
        return True
    if isinstance(p, list):
        return isinstance(v, list) and len(v) == len(p) and all(_match(a, b, caps) for a, b in zip(p, v))
    return _scalar_eq(p, v)


def _match_literal(p: Any, v: Any) -> bool:
    if isinstance(p, dict):
        return isinstance(v, dict) and p.keys() == v.keys() and all(_match_literal(p[k], v[k]) for k in p)
    if isinstance(p, list):
        return isinstance(v, list) and len(p) == len(v) and all(_match_literal(a, b) for a, b in zip(p, v))
    return _scalar_eq(p, v)


def _first_match(trials: Iterable[tuple[Any, Any]], caps: dict[str, Any]) -> bool:
    """Whether a (pattern, value) pair matches; the first that does keeps its captures."""
    for pattern, value in trials:
        trial = dict(caps)
        if _match(pattern, value, trial):
            caps.update(trial)
            return True
    return False


def _match_op(p: dict[str, Any], v: Any, caps: dict[str, Any]) -> bool:
    for op, arg in p.items():
        if op == "$save":
            continue
        if op == "$match":
            ok = _match(arg, v, caps)
        elif op == "$any":
            ok = _first_match(((alt, v) for alt in arg), caps)
        elif op == "$not":
            ok = not _match(arg, v, dict(caps))
        elif op == "$regex":
            ok = isinstance(v, str) and re.search(arg, v) is not None
        elif op == "$prefix":
            ok = isinstance(v, str) and v.startswith(arg)
        elif op == "$contains":
            if isinstance(v, str):
                ok = isinstance(arg, str) and arg in v
            else:
                ok = isinstance(v, list) and _first_match(((arg, item) for item in v), caps)
        elif op == "$type":
            ok = _type_ok(v, arg)
        elif op == "$len":
            ok = isinstance(v, (str, list, dict)) and (
                _scalar_eq(arg, len(v)) if isinstance(arg, (int, float)) else _match(arg, len(v), caps)
            )
        elif op in ("$gte", "$lte", "$gt"):
            ok = _type_ok(v, "number") and (v >= arg if op == "$gte" else v <= arg if op == "$lte" else v > arg)
        elif op == "$exact":
            ok = (
                isinstance(v, dict) and set(v) == {k for k, s in arg.items() if s != "$absent"} and _match(arg, v, caps)
            )
        elif op == "$each":
            ok = isinstance(v, list) and all(_match(arg, item, caps) for item in v)
        else:  # pragma: no cover - guarded by OPERATORS
            ok = False
        if not ok:
            return False
    if "$save" in p:
        caps[p["$save"]] = v
    return True
