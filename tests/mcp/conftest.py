"""Fixtures for the MCP tests (helpers in ``mcp_helpers``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .mcp_helpers import McpSession, ScriptedLLM, http_demo, write_agent_config  # noqa: F401 (http_demo: a fixture)


@pytest.fixture
def mcp_pi(spawn_pi: Callable[..., Any], tmp_path: Path) -> Iterator[Callable[..., McpSession]]:
    """``mcp_pi(servers, script=[], settings=None, args=(), mcp_extra=None, env=None, no_session=True)``."""
    llms: list[ScriptedLLM] = []

    def start(
        servers: dict[str, Any],
        script: Any = None,
        settings: dict[str, Any] | None = None,
        args: tuple[str, ...] = (),
        mcp_extra: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        no_session: bool = True,
    ) -> McpSession:
        llm = ScriptedLLM(script or []).start()
        llms.append(llm)
        agent = tmp_path / "agent"
        write_agent_config(str(agent), llm.base_url, settings)
        models = json.loads((agent / "models.json").read_text())
        models["providers"]["conf"]["models"][0]["input"] = ["text", "image"]  # images pass through
        (agent / "models.json").write_text(json.dumps(models))
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": servers, **(mcp_extra or {})}, indent=2))
        proc = spawn_pi(*(("--no-session",) if no_session else ()), *args, env=env, faux=False)
        return McpSession(proc, llm, agent)

    yield start
    for llm in llms:
        llm.stop()
