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
    return [json.loads(line) for line in (FIXTURES / f"{name}.jsonl").read_bytes().split(b"\n") if line]


def out_records(name: str) -> list[dict[str, Any]]:
    # The recorder stores one stdout line (without its LF) per "out" entry.
    return [json.loads(e["raw"]) for e in transcript(name) if e.get("dir") == "out"]


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
    assert set(events.EVENT_MODELS) == set(names.EVENT_TYPES) | set(names.OUR_EVENT_TYPES)
    for ctype in names.FIELDLESS_COMMANDS:
        # (``handle``, the session every command may address, is validated for all commands)
        extra = set(commands.ALL_COMMAND_MODELS[ctype].model_fields) - {"id", "type", "handle"}
        assert not extra, (ctype, extra)
    for model in commands.ALL_COMMAND_MODELS.values():
        assert "handle" in model.model_fields


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


class Schemas:
    """Validators picked by the ``type`` discriminator (validating against the whole oneOf for
    every record would be needlessly slow)."""

    def __init__(self) -> None:
        self.raw = {
            name: json.loads((SCHEMA_DIR / name).read_text())
            for name in ("commands.schema.json", "responses.schema.json", "events.schema.json")
        }
        self._cache: dict[tuple[str, str], jsonschema.protocols.Validator] = {}

    def _validator(self, file: str, ref: str) -> Any:
        key = (file, ref)
        if key not in self._cache:
            root = self.raw[file]
            schema = {"$defs": root.get("$defs", {}), "$ref": ref}
            self._cache[key] = jsonschema.Draft202012Validator(schema)
        return self._cache[key]

    def validate_tagged(self, file: str, record: dict[str, Any]) -> None:
        mapping = self.raw[file]["discriminator"]["mapping"]
        assert record["type"] in mapping, f"unknown type {record['type']!r}"
        self._validator(file, mapping[record["type"]]).validate(record)

    def validate_response(self, record: dict[str, Any]) -> None:
        root = self.raw["responses.schema.json"]
        envelope = {k: v for k, v in root.items() if k != "$defs"}
        jsonschema.validate(record, envelope)
        if record["success"] and "data" in record:
            by_cmd = root["$defs"]["ResponseDataByCommand"]["properties"]
            assert record["command"] in by_cmd, f"{record['command']} answered data but we declare none"
            key = ("responses.schema.json", "data:" + record["command"])
            if key not in self._cache:
                self._cache[key] = jsonschema.Draft202012Validator(
                    {"$defs": root["$defs"], **by_cmd[record["command"]]}
                )
            self._cache[key].validate(record["data"])
        elif record["success"]:
            command = record["command"]
            assert responses.RESPONSE_DATA[command] is None or command in responses.DATA_ABSENT_UPSTREAM, record


@pytest.fixture(scope="module")
def schemas() -> Schemas:
    return Schemas()


@pytest.mark.parametrize("scenario", ["a_queries", "b_text", "c_tool_bash", "d_fork", "g_bad_input"])
def test_upstream_output_validates(scenario: str, schemas: Schemas) -> None:
    seen_types: set[str] = set()
    for record in out_records(scenario):
        seen_types.add(record["type"])
        if record["type"] == "response":
            schemas.validate_response(record)
        else:
            schemas.validate_tagged("events.schema.json", record)
    assert "response" in seen_types


@pytest.mark.parametrize("scenario", ["a_queries", "b_text", "c_tool_bash", "d_fork", "g_bad_input"])
def test_upstream_client_input_that_succeeded_validates(scenario: str, schemas: Schemas) -> None:
    succeeded = {r["id"] for r in out_records(scenario) if r["type"] == "response" and r["success"] and "id" in r}
    records = [r for r in in_records(scenario) if r.get("id") in succeeded]
    assert records
    for record in records:
        schemas.validate_tagged("commands.schema.json", record)
        commands.COMMAND_MODELS[record["type"]].model_validate(record)
