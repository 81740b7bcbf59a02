"""A stdio MCP server written without any MCP SDK: it answers with hand-written JSON, so its
resource listings reach the client with their keys in exactly this order (neither alphabetical
nor the order of any SDK model's fields). Used to check that listings keep the server's order."""

from __future__ import annotations

import json
import sys

# ``--named-only``: leave out the items without ``name`` (which an SDK model would refuse), so
# that only the key order differs from what an SDK client makes of the listing.
NAMED_ONLY = "--named-only" in sys.argv[1:]
UNNAMED_RESOURCE = "" if NAMED_ONLY else '{"mimeType":"application/json","uri":"https://Example.COM/data.json"},'
UNNAMED_TEMPLATE = "" if NAMED_ONLY else ',{"description":"A user","uriTemplate":"users://{id}"}'
RESOURCES = (
    '{"resources":['
    '{"uri":"file:///notes.txt","size":42,"mimeType":"text/plain","name":"notes","description":"Team notes",'
    '"annotations":{"priority":0.5,"audience":["user"]},"_meta":{"hidden":true}},'
    + UNNAMED_RESOURCE
    + '{"title":"Logo","uri":"file:///logo.png","name":"logo","icons":[{"src":"x.png"}],"mimeType":"image/png"}'
    '],"nextCursor":null}'
)
TEMPLATES = (
    '{"resourceTemplates":['
    '{"uriTemplate":"file:///logs/{day}.log","mimeType":"text/plain","name":"daily-log","description":"One day of logs"}'
    + UNNAMED_TEMPLATE
    + "]}"
)
INITIALIZE = (
    '{"protocolVersion":"2025-06-18","capabilities":{"resources":{},"tools":{}},'
    '"serverInfo":{"name":"raw","version":"1.0.0"}}'
)
RESULTS = {
    "initialize": INITIALIZE,
    "tools/list": '{"tools":[]}',
    "resources/list": RESOURCES,
    "resources/templates/list": TEMPLATES,
    "ping": "{}",
}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # notifications and responses
        result = RESULTS.get(message["method"])
        if result is None:
            reply = json.dumps(
                {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}
            )
        else:
            reply = '{"jsonrpc":"2.0","id":' + json.dumps(message["id"]) + ',"result":' + result + "}"
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
