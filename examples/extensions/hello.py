"""Hello tool: the smallest registered tool.

Python port of upstream pi's ``examples/extensions/hello.ts``.
"""

from __future__ import annotations

from typing import Any


async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": f"Hello, {params['name']}!"}],
        "details": {"greeted": params["name"]},
    }


def setup(pi: Any) -> None:
    pi.register_tool(
        {
            "name": "hello",
            "label": "Hello",
            "description": "A simple greeting tool",
            "parameters": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string", "description": "Name to greet"}},
            },
            "execute": execute,
        }
    )
