"""Fixtures for client tests: a `pi` factory bound to a target (ours always; upstream when installed locally)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pi_rpc_client import RpcClient

from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config

from .pi_client_testkit import OURS_MISSING, server_argv, server_env, upstream_available


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" in metafunc.fixturenames:
        params = [pytest.param("ours", id="ours")]
        params.append(
            pytest.param(
                "upstream",
                id="upstream",
                marks=pytest.mark.skipif(
                    not upstream_available(),
                    reason="upstream pi 1.6 not installed (see protocol/conformance/README.md)",
                ),
            )
        )
        metafunc.parametrize("target", params)


@pytest.fixture
def make_pi(target: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[..., RpcClient]]:
    """make_pi(script=None, settings=None, needs=("server",), **client_kw) -> started RpcClient.

    ``needs`` names server features (keys of OURS_MISSING); against ours a missing one turns the test
    into xfail(strict=False) so it still runs and reports XPASS once the feature exists.
    """
    clients: list[RpcClient] = []
    servers: list[ScriptedLLM] = []

    def factory(
        script: Any = None, settings: dict | None = None, needs: tuple[str, ...] = ("server",), **kw: Any
    ) -> RpcClient:
        if target == "ours":
            missing = [OURS_MISSING[n] for n in ("server", *needs) if n in OURS_MISSING]
            if missing:
                request.applymarker(pytest.mark.xfail(strict=False, reason="; ".join(dict.fromkeys(missing))))
        for d in ("agent", "sessions", "cwd", "home"):
            (tmp_path / d).mkdir(exist_ok=True)
        llm = ScriptedLLM(script or []).start()
        servers.append(llm)
        write_agent_config(str(tmp_path / "agent"), llm.base_url, settings)
        kw.setdefault("default_timeout", 20.0)
        client = RpcClient(
            server_argv(target, str(tmp_path / "sessions")),
            cwd=tmp_path / "cwd",
            env=server_env(tmp_path),
            inherit_env=False,
            **kw,
        )
        clients.append(client)
        return client

    yield factory
    for c in clients:
        c.close(timeout=3.0)
    for s in servers:
        s.stop()
