"""Shared paths, a CLI runner and the usual `k32 release render` arguments for the renderer
tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from k32 import REPO_ROOT
from k32.cli import main

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
FIXTURE_TEMPLATE = HERE / "fixtures" / "release-template"
CATALOG_K3S = REPO_ROOT / "examples" / "catalog" / "k3s"
CATALOG_KUBE32 = REPO_ROOT / "examples" / "catalog" / "kube32"
UPDATE_GOLDEN = os.environ.get("K32_UPDATE_GOLDEN") == "1"

DIGEST = "sha256:" + "ab" * 32
IMAGE = f"ghcr.io/acme/demo-api@{DIGEST}"
SOURCE = "acme/demo@" + "1" * 40 + "#main"
TARGET = "demo/prod/k3s-a/demo"


def k32(*args):
    """Run `k32 ARGS` in-process; returns the click Result (exit_code, output)."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def k32_subprocess(*args, cwd=None):
    """Run `k32 ARGS` in a fresh interpreter (for cross-process determinism)."""
    return subprocess.run(
        [sys.executable, "-m", "k32.cli", *map(str, args)], cwd=cwd, capture_output=True, text=True, check=False
    )


def render_args(out, *extra, template=FIXTURE_TEMPLATE, target=TARGET, weights="10,50,100"):
    """`k32 release render` of template for target with the shared image and source evidence,
    into out; extra are more options."""
    return (
        "release",
        "render",
        "--template",
        template,
        "--image",
        IMAGE,
        "--target",
        target,
        "--source",
        SOURCE,
        "--lane-weights",
        weights,
        *extra,
        "-o",
        out,
    )
