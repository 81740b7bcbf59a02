"""pytest configuration for the session-store tests (helpers live in session_helpers.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
