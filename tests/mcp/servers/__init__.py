"""MCP servers the tests start as subprocesses (written with the ``mcp`` SDK)."""
