"""Command validation with error texts that name the field and what was expected, e.g.
``Invalid command "prompt": field "message": expected string, got number``.

Upstream has no validation layer (a bad field fails with whatever JS TypeError the handler
hits); ours answers the same single ``success:false`` response with the request's id, but
says what is wrong.

The pydantic models are the authority. Common well-formed commands are accepted by a
conservative fast check (plain str/bool fields only) so that pydantic is not even imported
for them; anything the fast check is unsure about goes to pydantic.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pi_rpc.modes.wire.protocol.names import EXTENSION_UI_RESPONSE, FIELDLESS_COMMANDS, OWN_HANDLE_COMMANDS
from pi_rpc.modes.wire.protocol.table import COMMANDS, FastField

_MISSING = object()

# Required/optional plain-scalar fields per command (the command table's ``fast``). A command
# passes the fast check only if every listed field is absent-and-optional or has exactly the
# given type (one of the types of a tuple; one of the strings of a frozenset), and no field
# outside this list that needs deep validation (``images``) is present.
_FAST_SPECS: dict[str, tuple[FastField, ...]] = {spec.name: spec.fast for spec in COMMANDS if spec.fast is not None}
_DEEP_FIELDS = ("images",)


def _fast_ok(obj: dict[str, Any], spec: tuple[FastField, ...]) -> bool:
    for key in _DEEP_FIELDS:
        if key in obj:
            return False
    for key, kind, required in spec:
        value = obj.get(key, _MISSING)
        if value is _MISSING:
            if required:
                return False
            continue
        if isinstance(kind, type):
            if type(value) is not kind:
                return False
        elif isinstance(kind, tuple):
            if type(value) not in kind:
                return False
        elif type(value) is not str or value not in kind:
            return False
    return True


def validate_command(command_type: str, obj: dict[str, Any]) -> str | None:
    """None when ``obj`` is a valid ``command_type`` command, else the error text."""
    if "handle" in obj and command_type not in OWN_HANDLE_COMMANDS:
        # The session a command addresses (any command; absent or null: "default").
        handle = obj["handle"]
        if handle is not None and type(handle) is not str:
            return f'Invalid command "{command_type}": field "handle": expected string, got {js_type(handle)}'
    if command_type in FIELDLESS_COMMANDS or command_type == EXTENSION_UI_RESPONSE:
        return None
    spec = _FAST_SPECS.get(command_type)
    if spec is not None and _fast_ok(obj, spec):
        return None
    return validate_with_model(command_type, obj)


def validate_with_model(command_type: str, obj: dict[str, Any]) -> str | None:
    from pydantic import ValidationError

    from pi_rpc.modes.wire.protocol.commands import ALL_COMMAND_MODELS

    model = ALL_COMMAND_MODELS.get(command_type)
    if model is None:
        return None
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        return format_validation_error(command_type, model, exc)
    return None


# --------------------------------------------------------------------------- messages


def js_type(value: Any) -> str:
    """How a JS programmer would name the JSON type of ``value``."""
    if value is _MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _describe(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        return " or ".join(_describe(a) for a in parts) if parts else "null"
    if origin is typing.Literal:
        values = typing.get_args(annotation)
        return "one of " + ", ".join(f'"{v}"' for v in values)
    if origin in (list, tuple):
        return "array"
    if origin is dict:
        return "object"
    if annotation is str:
        return "string"
    if annotation is bool:
        return "boolean"
    if annotation is int:
        return "integer"
    if annotation is float:
        return "number"
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return "object"
    return "a valid value"


def _field_annotation(model: Any, loc: tuple[Any, ...]) -> Any:
    """Follow ``loc`` (aliases and list indices) through nested models to a field's type."""
    current: Any = model
    annotation: Any = None
    for part in loc:
        if isinstance(part, int):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            inner = args[0] if args else None
            if typing.get_origin(inner) in (list, tuple):
                inner = typing.get_args(inner)[0]
            current = inner
            annotation = inner
            continue
        if current is None or not hasattr(current, "model_fields"):
            return None
        found = None
        for name, info in current.model_fields.items():
            if part in (name, info.alias):
                found = info.annotation
                break
        if found is None:
            return None
        annotation = found
        current = found
        # unwrap Optional[Model] / list[Model] for the next step
        args = [a for a in typing.get_args(found) if a is not type(None)]
        if args and typing.get_origin(found) in (typing.Union, types.UnionType):
            current = args[0]
    return annotation


def format_validation_error(command_type: str, model: Any, exc: Any) -> str:
    errors = exc.errors(include_url=False)
    if not errors:
        return f'Invalid command "{command_type}"'
    err = errors[0]
    loc = tuple(err.get("loc", ()))
    field = _format_loc(loc) or "<root>"
    kind = err.get("type", "")
    if kind == "missing":
        got = "undefined"
        expected = _describe(_field_annotation(model, loc))
    else:
        got = js_type(err.get("input"))
        if kind == "literal_error":
            expected = "one of " + str((err.get("ctx") or {}).get("expected", "")).replace("'", '"')
        else:
            expected = {
                "string_type": "string",
                "bool_type": "boolean",
                "int_type": "integer",
                "int_from_float": "integer",
                "float_type": "number",
                "list_type": "array",
                "tuple_type": "array",
                "dict_type": "object",
                "model_type": "object",
                "model_attributes_type": "object",
            }.get(kind) or _describe(_field_annotation(model, loc))
    return f'Invalid command "{command_type}": field "{field}": expected {expected}, got {got}'
