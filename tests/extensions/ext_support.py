"""Paths shared by the extension tests (imported by name; ``conftest`` names are ambiguous)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "extensions"
EXAMPLES = REPO / "examples" / "extensions"
