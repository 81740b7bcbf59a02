"""A short soak (``bench/soak_bench.py`` runs 2,000 prompts): prompts with tool calls in one
process leave no file descriptors or child processes behind and do not grow memory."""

from __future__ import annotations

from pathlib import Path

from bench.soak_bench import soak


def test_short_soak_returns_to_baseline(tmp_path: Path) -> None:
    figures = soak(prompts=120, warmup=20, rotate=40, window=40, work=tmp_path / "soak")
    assert figures["exit_code"] == 0
    assert figures["model_requests"] >= 2 * 140  # every prompt ran a tool call and answered
    assert figures["fds_end"] == figures["fds_baseline"]
    assert figures["children_end"] == figures["children_baseline"] == 0
    assert figures["rss_growth_mb"] < 20
