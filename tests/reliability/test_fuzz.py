"""A short run of the grammar-based fuzz (``fuzz_rpc.py``; the acceptance run is 20,000
records): no exit, every readable id answered exactly once, every other record answered
id-less once, every stdout line JSON, every session file loadable (by upstream too when it
is installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .fuzz_rpc import ok, run


@pytest.mark.parametrize("seed", [5])
def test_fuzz_short_run(tmp_path: Path, seed: int) -> None:
    figures = run(1500, seed, upstream=True, work=tmp_path / "work", quiet=True)
    assert ok(figures), figures
    assert figures["agent_runs"] > 10 and figures["model_requests"] > 10  # the runtime really ran
    assert figures["peak_rss_mb"] < 150
