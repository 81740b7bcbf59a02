"""Tool-argument validation as the loop needs it: a ``ValidateArgs`` callable, by default
``pi_rpc.tools.validation.validate_tool_arguments`` (upstream's coercion rules and
``Validation failed for tool ...`` text). Tests and hosts may inject another."""

from __future__ import annotations

from collections.abc import Callable

ValidateArgs = Callable[[object, dict[str, object]], object]


def resolve_validator() -> ValidateArgs:
    # Imported on first use: the tools package imports the agent's types.
    from pi_rpc.tools.validation import validate_tool_arguments

    return validate_tool_arguments
