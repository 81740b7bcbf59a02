"""``runtime.run_limits`` and ``tools.host`` in-process: the checks and texts the RPC tests rely on."""

from __future__ import annotations

import pytest

from pi_rpc.runtime.run_limits import LimitsError, check_output_schema, parse_limits, validate_output
from pi_rpc.tools.host import HostToolSpecError, parse_host_tool_specs

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def test_parse_limits() -> None:
    assert parse_limits({"maxTurns": 3, "maxCostUsd": 1, "timeoutMs": 2.0, "maxToolCalls": None}) == {
        "maxTurns": 3,
        "maxCostUsd": 1.0,
        "timeoutMs": 2,
    }
    for raw, error in [
        ({"maxTurns": True}, '"limits.maxTurns" must be a positive number'),
        ({"maxCostUsd": -1}, '"limits.maxCostUsd" must be a positive number'),
        ({"maxCostUsd": float("inf")}, '"limits.maxCostUsd" must be a positive number'),
        ({"timeoutMs": 0.5}, '"limits.timeoutMs" must be a positive integer'),
        ({"turns": 1}, '"limits.turns" is not a limit'),
        (3, '"limits" must be an object'),
    ]:
        with pytest.raises(LimitsError, match=error.replace("(", r"\(").replace(".", r"\.")):
            parse_limits(raw)


def test_validate_output() -> None:
    assert validate_output('{"n": 1}', SCHEMA) == (True, {"n": 1})
    assert validate_output('```json\n{"n": 2}\n```', SCHEMA) == (True, {"n": 2})
    assert validate_output('```\n{"n": 3}\n```', SCHEMA) == (True, {"n": 3})
    ok, why = validate_output("nope", SCHEMA)
    assert not ok and why.startswith("the answer is not JSON")
    assert validate_output('{"n": "x"}', SCHEMA) == (
        False,
        "the answer does not match the schema at /n: 'x' is not of type 'integer'",
    )
    with pytest.raises(LimitsError, match="not a valid JSON Schema"):
        check_output_schema({"type": "nope"})


def test_host_tool_specs() -> None:
    (spec,) = parse_host_tool_specs([{"name": "t"}], {})
    assert spec.parameters == {"type": "object", "properties": {}} and spec.description == ""
    with pytest.raises(HostToolSpecError, match='tools\\[0\\] "bash": the name is taken by a builtin tool'):
        parse_host_tool_specs([{"name": "bash"}], {"bash": "builtin"})
    with pytest.raises(HostToolSpecError, match='"name" must be 1 to 64'):
        parse_host_tool_specs([{"name": "x" * 65}], {})
    with pytest.raises(HostToolSpecError, match='"description" must be a string'):
        parse_host_tool_specs([{"name": "t", "description": 1}], {})
