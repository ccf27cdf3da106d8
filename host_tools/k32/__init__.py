"""Kube32 host tools."""

from pathlib import Path

# The repository root: host_tools/k32/__init__.py -> ../../
REPO_ROOT = Path(__file__).resolve().parents[2]
