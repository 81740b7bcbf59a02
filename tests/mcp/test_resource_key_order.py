"""``list_mcp_resources`` and ``list_mcp_resource_templates`` hand the model each item with its
keys in the order the server sent them, as upstream does (issue 25): a REAL ``pi --mode rpc``
against a stdio MCP server that writes its JSON by hand (``servers/raw_resources_server.py``), in
an order that is neither alphabetical nor the SDK models' field order. Values are as sent too
(a URL is not normalised), and an item without ``name`` gets its URI as the name, added last
(upstream's client); ``_meta`` and ``icons`` are left out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from .mcp_helpers import tool_messages

RAW_SERVER = str(Path(__file__).resolve().parent / "servers" / "raw_resources_server.py")

NOTES = (
    '{"server":"raw","uri":"file:///notes.txt","size":42,"mimeType":"text/plain","name":"notes",'
    '"description":"Team notes","annotations":{"priority":0.5,"audience":["user"]}}'
)
UNNAMED = '{"server":"raw","mimeType":"application/json","uri":"https://Example.COM/data.json","name":"https://Example.COM/data.json"}'
LOGO = '{"server":"raw","title":"Logo","uri":"file:///logo.png","name":"logo","mimeType":"image/png"}'
DAILY = (
    '{"server":"raw","uriTemplate":"file:///logs/{day}.log","mimeType":"text/plain","name":"daily-log",'
    '"description":"One day of logs"}'
)
UNNAMED_TEMPLATE = '{"server":"raw","description":"A user","uriTemplate":"users://{id}","name":"users://{id}"}'


def _listings(mcp_pi: Any, *server_args: str) -> tuple[str, str]:
    session = mcp_pi(
        {"raw": {"command": sys.executable, "args": [RAW_SERVER, *server_args], "exposure": "direct"}},
        script=[
            {"tool_calls": [{"name": "list_mcp_resources", "arguments": {}, "id": "r1"}]},
            {"tool_calls": [{"name": "list_mcp_resource_templates", "arguments": {"server": "raw"}, "id": "t1"}]},
            {"text": "done"},
        ],
    )
    session.prompt("list everything")
    resources, templates = (m["content"] for m in tool_messages(session.bodies()[2]))
    return resources, templates


@pytest.mark.parametrize("named_only", [True, False], ids=["named", "with-unnamed-items"])
def test_resource_listings_keep_the_servers_key_order(mcp_pi: Any, named_only: bool) -> None:
    resources, templates = _listings(mcp_pi, *(["--named-only"] if named_only else []))
    listed = [NOTES, LOGO] if named_only else [NOTES, UNNAMED, LOGO]
    assert resources == '{"resources":[' + ",".join(listed) + "]}"
    listed = [DAILY] if named_only else [DAILY, UNNAMED_TEMPLATE]
    assert templates == '{"server":"raw","resourceTemplates":[' + ",".join(listed) + "]}"
