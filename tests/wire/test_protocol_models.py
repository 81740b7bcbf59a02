"""Protocol models: completeness, camelCase both ways, schema freshness, and every record
upstream pi 1.6.0 actually wrote validates against our generated JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pi_rpc.modes.wire import schema_export
from pi_rpc.modes.wire.protocol import commands, events, names, responses

FIXTURES = Path(__file__).parent / "fixtures" / "pi-oracle"
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "protocol" / "schema"


def transcript(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURES / f"{name}.jsonl").read_text().splitlines() if line]


def out_records(name: str) -> list[dict[str, Any]]:
    records = []
    for entry in transcript(name):
        if entry.get("dir") != "out":
            continue
        for line in entry["raw"].split("\n"):
            if line:
                records.append(json.loads(line))
    return records


def in_records(name: str) -> list[dict[str, Any]]:
    out = []
    for entry in transcript(name):
        if entry.get("dir") != "in":
            continue
        if "json" in entry:
            out.append(entry["json"])
    return out


def test_all_33_commands_and_24_events_modelled() -> None:
    assert len(names.COMMAND_TYPES) == 33
    assert set(commands.COMMAND_MODELS) == set(names.COMMAND_TYPES)
    assert set(responses.RESPONSE_DATA) == set(names.COMMAND_TYPES)
    assert len(names.EVENT_TYPES) == 24
    assert set(events.EVENT_MODELS) == set(names.EVENT_TYPES)
    for ctype in names.FIELDLESS_COMMANDS:
        extra = set(commands.COMMAND_MODELS[ctype].model_fields) - {"id", "type"}
        assert not extra, (ctype, extra)


def test_camel_case_both_directions_and_absent_stays_absent() -> None:
    cmd = commands.BashCommand.model_validate({"type": "bash", "command": "ls", "excludeFromContext": True})
    assert cmd.exclude_from_context is True
    assert cmd.to_wire() == {"type": "bash", "command": "ls", "excludeFromContext": True}
    built = commands.SetModelCommand(type="set_model", provider="p", model_id="m")
    assert built.to_wire() == {"type": "set_model", "provider": "p", "modelId": "m"}
    assert "id" not in commands.GetStateCommand.model_validate({"type": "get_state"}).to_wire()
    assert commands.GetStateCommand.model_validate({"type": "get_state", "id": None}).to_wire() == {
        "id": None,
        "type": "get_state",
    }


def test_committed_schema_is_fresh() -> None:
    for name, schema in schema_export.build_schemas().items():
        path = SCHEMA_DIR / name
        assert path.exists(), f"{path} missing: run python -m pi_rpc.modes.wire.schema_export"
        assert path.read_text(encoding="utf-8") == schema_export.render(schema), (
            f"{path} is stale: run python -m pi_rpc.modes.wire.schema_export"
        )


@pytest.fixture(scope="module")
def schemas() -> dict[str, dict[str, Any]]:
    return {name: json.loads((SCHEMA_DIR / name).read_text()) for name in ("commands.schema.json", "responses.schema.json", "events.schema.json")}


def _data_schema(responses_schema: dict[str, Any], command: str) -> dict[str, Any] | None:
    by_cmd = responses_schema["$defs"]["ResponseDataByCommand"]["properties"]
    if command not in by_cmd:
        return None
    return {"$defs": responses_schema["$defs"], **by_cmd[command]}


@pytest.mark.parametrize("scenario", ["a_queries", "b_text", "c_tool_bash", "d_fork", "g_bad_input"])
def test_upstream_output_validates(scenario: str, schemas: dict[str, dict[str, Any]]) -> None:
    seen_types: set[str] = set()
    for record in out_records(scenario):
        rtype = record["type"]
        seen_types.add(rtype)
        if rtype == "response":
            jsonschema.validate(record, schemas["responses.schema.json"])
            if record["success"] and "data" in record:
                data_schema = _data_schema(schemas["responses.schema.json"], record["command"])
                assert data_schema is not None, f"{record['command']} answered data but we declare none"
                jsonschema.validate(record["data"], data_schema)
            elif record["success"]:
                assert responses.RESPONSE_DATA[record["command"]] is None, record
        else:
            jsonschema.validate(record, schemas["events.schema.json"])
    assert "response" in seen_types


@pytest.mark.parametrize("scenario", ["a_queries", "b_text", "c_tool_bash", "d_fork"])
def test_upstream_client_input_validates(scenario: str, schemas: dict[str, dict[str, Any]]) -> None:
    records = in_records(scenario)
    assert records
    for record in records:
        jsonschema.validate(record, schemas["commands.schema.json"])
        commands.COMMAND_MODELS[record["type"]].model_validate(record)
