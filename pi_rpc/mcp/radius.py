"""The Radius MCP server entry that ``pi auth login radius`` writes (upstream's
``coding-agent/dist/core/radius-mcp.js`` ``planRadiusMcpServer`` and ``cli/auth-login.js``
``configureRadiusMcpServer``): the global ``mcp.json`` server whose URL is the gateway's MCP
endpoint is pointed at the Radius login (``auth: {provider}``, its MCP OAuth sign-in removed),
or a ``radius`` server is added (``radius-mcp``, ``radius-mcp-2``, … when the namespace is
taken). Nothing is written when a global server already uses that login. Upstream's ``/login``
asks first; the terminal command does it without asking, since the login is what the server
needs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

RADIUS_MCP_URL = "https://radius.pi.dev/mcp"


class RadiusMcpPlan(NamedTuple):
    mcp_path: str
    name: str
    config: dict[str, object]


def plan_radius_mcp_server(provider_id: str, agent_dir: Path | str, cwd: Path | str) -> RadiusMcpPlan | None:
    from pi_rpc.mcp.config import load_mcp_config
    from pi_rpc.mcp.naming import mcp_namespace

    def normalize(url: str) -> str:
        return url.rstrip("/")

    servers = load_mcp_config(agent_dir, cwd, project_trusted=False).servers
    existing = next(
        (
            s
            for s in servers
            if isinstance(s.config.get("url"), str) and normalize(s.config["url"]) == normalize(RADIUS_MCP_URL)
        ),
        None,
    )
    if existing is not None:
        auth = existing.config.get("auth")
        if isinstance(auth, dict) and auth.get("provider") == provider_id:
            return None
    name = existing.name if existing is not None else "radius"
    if existing is None:
        namespaces = {mcp_namespace(s.name) for s in servers}
        suffix = 1
        while mcp_namespace(name) in namespaces:
            name = "radius-mcp" if suffix == 1 else f"radius-mcp-{suffix}"
            suffix += 1
    config: dict[str, object] = (
        {**existing.config, "auth": {"provider": provider_id}}
        if existing is not None
        else {"url": RADIUS_MCP_URL, "auth": {"provider": provider_id}}
    )
    config.pop("oauth", None)  # ``auth`` replaces the MCP OAuth sign-in
    return RadiusMcpPlan(os.path.join(str(agent_dir), "mcp.json"), name, config)


def configure_radius_mcp_server(
    provider_id: str, provider_name: str, agent_dir: Path | str, cwd: Path | str
) -> tuple[str | None, str | None]:
    """(message for stdout, error for stderr) after the Radius login, as upstream prints them."""
    from pi_rpc.mcp.config import add_server_config

    plan = plan_radius_mcp_server(provider_id, agent_dir, cwd)
    if plan is None:
        return None, None
    try:
        replaced = add_server_config(plan.mcp_path, plan.name, plan.config)
    except (OSError, ValueError) as exc:
        return None, f"Could not update {plan.mcp_path}: {exc}"
    verb = "Updated" if replaced else "Added"
    return f'{verb} MCP server "{plan.name}" in {plan.mcp_path} to use the {provider_name} login.', None
