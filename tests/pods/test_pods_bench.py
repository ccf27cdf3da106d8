"""Smoke test of `k32 bench pods --json`: a tiny run, checking the report's shape and that
what was measured is consistent (not how fast it is: speed belongs to the bench itself)."""

import json

import pytest
from click.testing import CliRunner

from k32.bench.cli import bench


@pytest.mark.slow
def test_bench_pods_json_shape():
    result = CliRunner().invoke(
        bench,
        ["pods", "--json", "--requests", "30", "--starts", "2", "--callgrind-requests", "0"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    r = json.loads(result.output)
    assert r["requests"] == 30 and r["errors"] == 0
    assert r["requestsPerSec"] > 0 and 0 < r["p50_ms"] <= r["p99_ms"]
    assert len(r["startLatencyMs"]["samples"]) == 2 and r["startLatencyMs"]["median"] > 0
    assert r["linearMemoryBytes"] == 65536 and isinstance(r["ramPerPodBytes"], int)
    assert r["instructionsPerRequest"] is None and r["instructions"].startswith("skipped")


def test_bench_pods_rejects_bad_counts():
    result = CliRunner().invoke(bench, ["pods", "--requests", "0"])
    assert result.exit_code != 0 and "--requests" in result.output
