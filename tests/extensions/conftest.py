"""Fixtures for the extension tests: ``pi(...)`` starts the REAL ``python -m pi_rpc --mode rpc``
subprocess (``tests/runtime/rt_client.RpcProc``) in an isolated tmp dir; extension files are
written there (``files={"ext/gate.py": SOURCE}``) and loaded with ``args=("-e", ...)`` or by
discovery (``agent/extensions/``, ``cwd/.pi/extensions/``)."""

from __future__ import annotations

import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

from rt_client import pi  # noqa: E402,F401 - the shared fixture
