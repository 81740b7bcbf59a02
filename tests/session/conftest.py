"""Fixtures of the session tests: ``store_kind`` runs a test once per session backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.session_stores import STORE_KINDS, StoreKind


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest, tmp_path: Path) -> StoreKind:
    """The JSONL files, then a session database in ``tmp_path``."""
    return StoreKind(request.param, tmp_path)
