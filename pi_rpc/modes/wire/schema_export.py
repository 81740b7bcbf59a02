"""Generate the protocol's JSON Schema from the pydantic models.

    python -m pi_rpc.modes.wire.schema_export            # writes protocol/schema/*.json
    python -m pi_rpc.modes.wire.schema_export --check    # exit 1 if the files are stale
    python -m pi_rpc.modes.wire.schema_export --out DIR

Files: ``commands.schema.json`` (inbound records: the 33 commands, the commands beyond
upstream and ``extension_ui_response``), ``responses.schema.json`` (the envelope plus each command's
``data``), ``events.schema.json`` (the 24 events and ``extension_ui_request``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).resolve().parents[3] / "protocol" / "schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _adapter_schema(tp: Any, title: str, description: str) -> dict[str, Any]:
    from pydantic import TypeAdapter

    schema = TypeAdapter(tp).json_schema(by_alias=True, mode="validation")
    return {"$schema": DRAFT, **schema, "title": title, "description": description}


def build_schemas() -> dict[str, dict[str, Any]]:
    from pydantic import BaseModel, create_model

    from pi_rpc.modes.wire.protocol.commands import InboundRecord
    from pi_rpc.modes.wire.protocol.events import OutboundRecord
    from pi_rpc.modes.wire.protocol.responses import (
        BEYOND_UPSTREAM_RESPONSE_DATA,
        NULLABLE_DATA,
        RESPONSE_DATA,
        Response,
    )

    commands = _adapter_schema(
        InboundRecord,
        "pi RPC inbound records",
        "One JSON object per LF-terminated line on pi's stdin: a command (upstream's 33 types "
        "and the ones beyond upstream) or an extension_ui_response.",
    )
    events = _adapter_schema(
        OutboundRecord,
        "pi RPC events",
        "Session events (24 types) and extension UI requests written on pi's stdout.",
    )

    # The envelope, plus a map of command type -> schema of its success ``data``.
    fields: dict[str, Any] = {}
    for command, model in {**RESPONSE_DATA, **BEYOND_UPSTREAM_RESPONSE_DATA}.items():
        if model is None:
            continue
        annotation: Any = model | None if command in NULLABLE_DATA else model
        fields[command] = (annotation, ...)
    data_container: type[BaseModel] = create_model("ResponseDataByCommand", **fields)
    responses = _adapter_schema(
        Response,
        "pi RPC response envelope",
        "Exactly one per command (none for extension_ui_response). Key order: id, type, command, "
        "success, data|error. `$defs.ResponseDataByCommand` gives each command's success data; "
        "commands absent from it answer without a data key.",
    )
    data_schema = data_container.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
    defs = responses.setdefault("$defs", {})
    defs.update(data_schema.pop("$defs", {}))
    defs["ResponseDataByCommand"] = data_schema
    return {
        "commands.schema.json": commands,
        "responses.schema.json": responses,
        "events.schema.json": events,
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="fail if committed files differ")
    opts = parser.parse_args(argv)
    stale = []
    for name, schema in build_schemas().items():
        path = opts.out / name
        text = render(schema)
        if opts.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if stale:
        print("stale schema files (run python -m pi_rpc.modes.wire.schema_export):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
