"""Scenario prerequisites from examples/."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def example(name: str) -> Path:
    """An examples/ manifest a scenario needs; skips the scenario until that example exists."""
    path = REPO / "examples" / name
    if not path.is_file():
        pytest.skip(f"examples/{name} is not in the repository yet")
    return path
