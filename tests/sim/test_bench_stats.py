"""Percentiles of `k32 bench` are nearest-rank: every reported value was measured."""

import pytest

from k32.bench.api import BenchError, percentile, summarize


def test_nearest_rank():
    data = [float(i) for i in range(1, 101)]
    assert percentile(data, 50) == 50.0
    assert percentile(data, 99) == 99.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([7.0], 99) == 7.0


def test_summary_in_ms():
    s = summarize([0.001, 0.002, 0.003])
    assert s == {"n": 3, "p50_ms": 2.0, "p99_ms": 3.0, "mean_ms": 2.0, "max_ms": 3.0}


def test_empty_is_an_error():
    with pytest.raises(BenchError):
        percentile([], 50)
