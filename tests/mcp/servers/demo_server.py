"""A real MCP server written with the ``mcp`` SDK, for the tests and the upstream comparisons.

Run it over stdio (``python demo_server.py``) or streamable HTTP on 127.0.0.1
(``python demo_server.py --http PORT``; ``--port-file F`` writes the bound port when PORT is 0).

Tools (their schemas are fixed here, so requests can be compared byte for byte):

- ``echo {text}``: ``echo: <text>`` (readOnlyHint); also sends a log notification.
- ``add {a, b}``: structured ``{sum}`` with an output schema.
- ``image``: one 1x1 PNG image block and a caption.
- ``fail``: an ``isError`` result.
- ``big {size}``: a text of ``size`` bytes (lines of digits).
- ``slow {seconds}``: progress notifications, then ``done``; records cancellations.
- ``crash``: the server process exits in the middle of the call.
- ``get-thing {id}``: a name that needs sanitising.
- ``grow``: adds the tool ``extra`` and announces ``tools/list_changed``.
- ``empty``: no content blocks, only structured content.
- ``link``: a resource link to ``file:///notes.txt``.

Resources: ``file:///notes.txt`` (text) and ``file:///pixel.png`` (blob); template
``note://{id}``. Instructions: two lines.

Environment: ``DEMO_PID_FILE`` (append this process's pid), ``DEMO_EVENTS_FILE`` (append one
line per notable event, e.g. ``cancelled slow``; over HTTP also the ``X-Demo-Token`` request
header), ``DEMO_NAME`` (server name in initialize).
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
from collections.abc import Callable
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server

PIXEL_PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c63f8cfc0f01f0005000201e2a2a5ef0000000049454e44ae426082"
    )
).decode()

INSTRUCTIONS = "Demo tools for pi's MCP tests.\nCall echo first."


def _record(line: str) -> None:
    path = os.environ.get("DEMO_EVENTS_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def _tool(
    name: str, description: str, properties: dict[str, Any], required: list[str] | None = None, **extra: Any
) -> types.Tool:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return types.Tool(name=name, description=description, inputSchema=schema, **extra)


BASE_TOOLS = [
    _tool(
        "echo",
        "Echo the text back.",
        {"text": {"type": "string", "description": "Text to echo"}},
        ["text"],
        annotations=types.ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    ),
    _tool(
        "add",
        "Add two numbers.",
        {"a": {"type": "number"}, "b": {"type": "number"}},
        ["a", "b"],
        outputSchema={"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
    ),
    _tool("image", "Return a tiny PNG image.", {}),
    _tool("fail", "Always fails.", {}),
    _tool("big", "Return a long text.", {"size": {"type": "integer", "description": "Bytes"}}, ["size"]),
    _tool("slow", "Wait, reporting progress.", {"seconds": {"type": "number"}}, ["seconds"]),
    _tool("crash", "Exit the server in the middle of the call.", {}),
    _tool("get-thing", "Get a thing by id.", {"id": {"type": "string"}}, ["id"]),
    _tool("grow", "Add the tool extra.", {}),
    _tool("empty", "Structured content without content blocks.", {}),
    _tool("link", "Return a resource link.", {}),
]
EXTRA_TOOL = _tool("extra", "A tool added at run time.", {"x": {"type": "string"}})


def _big_text(arguments: dict[str, Any]) -> Any:
    size = int(arguments["size"])
    line = "0123456789" * 7 + "\n"
    return [types.TextContent(type="text", text=(line * (size // len(line) + 1))[:size])]


# The tools whose answer depends on their arguments only.
_PLAIN_TOOLS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "add": lambda arguments: {"sum": arguments["a"] + arguments["b"]},
    "image": lambda _arguments: [
        types.TextContent(type="text", text="a pixel"),
        types.ImageContent(type="image", data=PIXEL_PNG, mimeType="image/png"),
    ],
    "fail": lambda _arguments: types.CallToolResult(
        content=[types.TextContent(type="text", text="it failed")], isError=True
    ),
    "big": _big_text,
    "get-thing": lambda arguments: [types.TextContent(type="text", text=f"thing {arguments.get('id')}")],
    "empty": lambda _arguments: types.CallToolResult(content=[], structuredContent={"ok": True}),
    "link": lambda _arguments: [
        types.ResourceLink(type="resource_link", uri="file:///notes.txt", name="notes", mimeType="text/plain", size=12)
    ],
    "extra": lambda arguments: [types.TextContent(type="text", text=f"extra {arguments.get('x')}")],
}


def build_server() -> Server:
    server: Server = Server(os.environ.get("DEMO_NAME", "demo"), version="1.0.0", instructions=INSTRUCTIONS)
    tools = list(BASE_TOOLS)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return list(tools)

    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        ctx = server.request_context
        _record(f"call {name}")
        if name == "echo":
            await ctx.session.send_log_message(level="info", data=f"echoing {arguments.get('text')}", logger="demo")
            return [types.TextContent(type="text", text=f"echo: {arguments.get('text')}")]
        if name == "slow":
            seconds = float(arguments["seconds"])
            token = ctx.meta.progressToken if ctx.meta else None
            steps = 10
            try:
                for i in range(steps):
                    if token is not None:
                        await ctx.session.send_progress_notification(token, i + 1, steps, message=f"step {i + 1}")
                    await anyio.sleep(seconds / steps)
            except anyio.get_cancelled_exc_class():
                _record("cancelled slow")
                raise
            return [types.TextContent(type="text", text="done")]
        if name == "crash":
            _record("crashing")
            os._exit(3)
        if name == "grow":
            if EXTRA_TOOL not in tools:
                tools.append(EXTRA_TOOL)
            await ctx.session.send_tool_list_changed()
            return [types.TextContent(type="text", text="grown")]
        if name in _PLAIN_TOOLS:
            return _PLAIN_TOOLS[name](arguments)
        raise ValueError(f"unknown tool {name}")

    @server.list_resources()
    async def list_resources() -> list[types.Resource]:
        return [
            types.Resource(uri="file:///notes.txt", name="notes", mimeType="text/plain", description="Some notes"),
            types.Resource(uri="file:///pixel.png", name="pixel", mimeType="image/png"),
            types.Resource(uri="ui://app", name="app", mimeType="text/html"),
        ]

    @server.list_resource_templates()
    async def list_templates() -> list[types.ResourceTemplate]:
        return [types.ResourceTemplate(uriTemplate="note://{id}", name="note", description="A note by id")]

    @server.read_resource()
    async def read_resource(uri: Any) -> Any:
        from mcp.server.lowlevel.helper_types import ReadResourceContents

        uri = str(uri)
        if uri == "file:///notes.txt":
            return [ReadResourceContents(content="hello notes\n", mime_type="text/plain")]
        if uri == "file:///pixel.png":
            return [ReadResourceContents(content=base64.b64decode(PIXEL_PNG), mime_type="image/png")]
        if uri.startswith("note://"):
            return [ReadResourceContents(content=f"note {uri[7:]}", mime_type="text/plain")]
        raise ValueError(f"unknown resource {uri}")

    return server


def _options(server: Server) -> Any:
    return server.create_initialization_options(NotificationOptions(tools_changed=True))


async def run_stdio() -> None:
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, _options(server))


def run_http(port: int, port_file: str | None) -> None:
    import contextlib
    import socket

    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    server = build_server()
    manager = StreamableHTTPSessionManager(app=server, json_response=False, stateless=False)

    async def handle(scope: Any, receive: Any, send: Any) -> None:
        for key, value in scope.get("headers") or []:
            if key == b"x-demo-token":
                _record(f"header x-demo-token={value.decode('utf-8', 'replace')}")
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        async with manager.run():
            yield

    app = Starlette(routes=[Mount("/mcp", app=handle)], lifespan=lifespan)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    if port_file:
        with open(port_file + ".tmp", "w") as f:
            f.write(str(sock.getsockname()[1]))
        os.replace(port_file + ".tmp", port_file)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=None)
    parser.add_argument("--port-file", default=None)
    args, _unknown = parser.parse_known_args()  # extra arguments are accepted and ignored
    pid_file = os.environ.get("DEMO_PID_FILE")
    if pid_file:
        with open(pid_file, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    print(f"demo server starting ({'http' if args.http is not None else 'stdio'})", file=sys.stderr)
    if args.http is not None:
        run_http(args.http, args.port_file)
    else:
        anyio.run(run_stdio)


if __name__ == "__main__":
    main()
