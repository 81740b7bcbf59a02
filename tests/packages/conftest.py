"""The package tests share one local npm registry and git repository per worker
(``tests.support.package_world.make_world``); npm and node must be installed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.npm_registry import npm_available
from tests.support.package_world import make_world


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    if not npm_available():  # loud: these tests need npm
        pytest.skip("npm/node are not installed: the package-command tests need them")
    yield from make_world(tmp_path_factory.mktemp("world"))
