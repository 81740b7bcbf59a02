from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
