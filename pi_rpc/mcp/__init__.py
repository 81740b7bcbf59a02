"""MCP (Model Context Protocol) servers as tools and resources of the agent.

The package owns everything MCP: the ``mcp.json`` configuration (``config``), tool names and
exposures (``naming``), connections to servers over stdio and streamable HTTP through the
official ``mcp`` SDK (``connection``, ``stdio``), the adaptation of server tools and results to
agent tools (``tools``, ``content``, ``resources``), ``tool_search`` and ``codemode``
(``search``, ``tool_search``, ``codemode``), OAuth (``oauth``), the server log (``log``), the
``pi mcp`` shell command (``cli``) and the session integration (``manager``, ``extension``).

Nothing here is imported on the RPC startup path unless MCP servers are configured: the SDK
itself is imported only when a connection opens.
"""
