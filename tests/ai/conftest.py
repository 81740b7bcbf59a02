"""Fixtures for the LLM-layer tests: ``server``, a real HTTP server on 127.0.0.1 that replays
recorded provider bytes and records what it saw (``stub_server.ReplayServer``), and the faux
provider reset between tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from .stub_server import ReplayServer, Reply, Seen

__all__ = ["Reply", "ReplayServer", "Seen", "fixture_bytes"]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "llm-streams"


@pytest.fixture(autouse=True)
def _reset_faux(monkeypatch: pytest.MonkeyPatch):
    from pi_rpc.ai.providers import faux

    monkeypatch.delenv("PI_FAUX_SCRIPT", raising=False)
    faux.set_faux_script(None)
    faux.set_faux_config_script(None)
    faux.reset_faux()
    yield
    faux.set_faux_script(None)
    faux.set_faux_config_script(None)
    faux.reset_faux()


def fixture_bytes(rel: str) -> bytes:
    return (FIXTURES / rel).read_bytes()


@pytest.fixture
def server():
    srv = ReplayServer()
    yield srv
    srv.close()
