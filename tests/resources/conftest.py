from __future__ import annotations

from pathlib import Path

import pytest

from .rsrc_helpers import make_layout


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    return make_layout(tmp_path)
