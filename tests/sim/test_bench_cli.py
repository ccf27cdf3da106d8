"""`k32 bench api --json` runs end to end against a fresh simulated control plane (no timing
assertions: benchmarks report numbers, they do not pass or fail on them)."""

import json
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_bench_api_json():
    proc = subprocess.run(
        [sys.executable, "-m", "k32.cli", "bench", "api", "--count", "5", "--list-rounds", "3", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["benchmark"] == "api" and out["count"] == 5
    assert out["apply"]["n"] == 5 and out["list"]["n"] == 3 and out["list"]["items"] == 5
    for key in ("apply", "list"):
        assert 0 < out[key]["p50_ms"] <= out[key]["p99_ms"] <= out[key]["max_ms"]
    heap = out["heapBytes"]
    assert heap["before"] > 0 and heap["after"] > 0, "the control plane reported no heap bytes"
    assert heap["delta"] == heap["after"] - heap["before"]


def test_bench_api_bad_server_is_a_clear_error():
    proc = subprocess.run(
        [sys.executable, "-m", "k32.cli", "bench", "api", "--server", "ftp://nowhere"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "must look like http(s)://HOST:PORT" in proc.stderr
