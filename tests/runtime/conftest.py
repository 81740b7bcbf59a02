"""Fixtures for the session-runtime tests: ``pi(...)`` starts a real RPC subprocess in an
isolated tmp dir (see ``rt_client.RpcProc``) and kills it at teardown."""

from __future__ import annotations

from rt_client import pi  # noqa: F401 - the shared fixture
