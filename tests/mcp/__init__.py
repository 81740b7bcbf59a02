"""Tests of MCP support (demo servers in ``servers/``)."""
