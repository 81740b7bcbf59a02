"""SIGKILL at random moments of a busy session: the file loads in ours and (when installed)
upstream pi 1.6 with the same messages, and only the entry being written can be missing.
``kill_run.py`` runs the same check for as many iterations as you like."""

from __future__ import annotations

import random
from pathlib import Path

from .kill_run import one_kill


def test_sigkill_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random(11)
    results = [one_kill(tmp_path / f"i{i}", rng, upstream=True) for i in range(4)]
    assert sum(r["files"] for r in results) >= 1
    assert all(r["lost"] == 0 for r in results)
