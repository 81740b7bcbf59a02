"""Tool-argument validation as the loop needs it.

The real validator (with upstream's coercion rules) belongs to ``pi_rpc.tools``; the loop finds
it lazily so the two layers can be built independently. Until it exists, a ``jsonschema`` based
fallback produces the same message shape::

    Validation failed for tool "<name>":
      - <dotted.path>: <message>

    Received arguments:
    <JSON.stringify(args, null, 2)>
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

ValidateArgs = Callable[[Any, dict[str, Any]], Any]


def js_json_pretty(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``: integral floats print as ints, non-ASCII kept."""

    def norm(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, list):
            return [norm(x) for x in v]
        return v

    return json.dumps(norm(value), indent=2, ensure_ascii=False)


def _path(parts: Any) -> str:
    items = [str(p) for p in parts]
    return ".".join(items) if items else "root"


def fallback_validate_tool_arguments(tool: Any, args: dict[str, Any]) -> dict[str, Any]:
    import jsonschema

    prepare = getattr(tool, "prepare_arguments", None)
    if callable(prepare):
        args = prepare(copy.deepcopy(args))
    schema = getattr(tool, "parameters", None) or {}
    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema)
    lines: list[str] = []
    for error in sorted(validator.iter_errors(args), key=lambda e: list(e.absolute_path)):
        if error.validator == "required":
            missing = [r for r in error.validator_value if isinstance(error.instance, dict) and r not in error.instance]
            for name in missing:
                lines.append(f"  - {_path([*error.absolute_path, name])}: missing")
        elif error.validator == "type":
            lines.append(f"  - {_path(error.absolute_path)}: expected {error.validator_value}")
        elif error.validator == "additionalProperties":
            lines.append(f"  - {_path(error.absolute_path)}: {error.message}")
        else:
            lines.append(f"  - {_path(error.absolute_path)}: {error.message}")
    if lines:
        name = getattr(tool, "name", "?")
        raise ValueError(
            f'Validation failed for tool "{name}":\n' + "\n".join(lines) + "\n\nReceived arguments:\n" + js_json_pretty(args)
        )
    # A copy, so a tool that edits its arguments never edits the tool call in the transcript.
    return copy.deepcopy(args)


def resolve_validator() -> ValidateArgs:
    """``pi_rpc.tools.validate_tool_arguments`` when it exists, else the fallback."""
    try:
        from pi_rpc import tools as tools_pkg

        fn = getattr(tools_pkg, "validate_tool_arguments", None)
        if fn is None:
            from pi_rpc.tools import validation as tools_validation

            fn = getattr(tools_validation, "validate_tool_arguments", None)
        if callable(fn):
            return fn
    except ImportError:
        pass
    return fallback_validate_tool_arguments
