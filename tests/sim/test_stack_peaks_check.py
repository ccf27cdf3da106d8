"""The suites' stack check (k32.testing.pytest_plugin): every test cluster's thread peaks are
read from its nodes as it stops, listed at the end of the run, and a thread past its budget
fails the run even when every test passed. Run here as a separate pytest session."""

import os
import subprocess
import sys
import textwrap

import pytest

from k32.testing.clusters import BOARDS_ENV

# A test file for the inner session: one real cluster, started and stopped.
ONE_CLUSTER = """
from k32.testing.clusters import make_test_cluster

def test_one_cluster(tmp_path):
    c = make_test_cluster(tmp_path / "c", workers=1)
    c.up()
    c.down()
"""

# The same, plus a record as a pytest-xdist worker would hand it over, of a thread past its budget.
OVER_BUDGET = (
    ONE_CLUSTER
    + """
from k32.testing.stack_peaks import RECORDED

def test_a_worker_reports_an_overflowing_thread():
    RECORDED.merge_json({"peaks": [{"board": "sim", "node": "n", "thread": "probe", "budget": 1000,
                                    "peak": 1200, "threads": 1, "cluster": "c"}], "clusters": 1,
                        "outOfHeap": [{"log": "l", "board": "esp32", "node": "w", "cluster": "c",
                                       "line": "[PORT] out of heap: 288 bytes refused"}]})
"""
)


def run_inner(tmp_path, source: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(source))
    env = {k: v for k, v in os.environ.items() if k != BOARDS_ENV}  # the default profile, in either mode
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "k32.testing.pytest_plugin", "-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.mark.slow
def test_the_run_lists_every_nodes_thread_peaks(tmp_path):
    r = run_inner(tmp_path, ONE_CLUSTER)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "thread stacks: deepest use against the budget (1 clusters stopped)" in r.stdout, r.stdout
    rows = [line.split() for line in r.stdout.splitlines() if line.startswith("sim ")]
    kinds = {row[1] for row in rows}
    # the control plane's threads and the worker's
    assert {"api", "scheduler", "kubelet", "heartbeat", "console"} <= kinds, r.stdout
    for row in rows:
        budget, peak = int(row[2]), int(row[3])
        assert 0 < peak <= budget, row


@pytest.mark.slow
def test_a_thread_past_its_budget_fails_the_run(tmp_path):
    r = run_inner(tmp_path, OVER_BUDGET)
    assert "2 passed" in r.stdout, r.stdout[-3000:]
    assert r.returncode == 1, r.stdout[-3000:]
    assert "FAILED: 1 thread(s) went past their stack budget" in r.stdout
    assert "sim probe: peak 1200 B > budget 1000 B" in r.stdout
    assert "OVER BUDGET" in r.stdout
    assert "node stopped out of heap: esp32 w: [PORT] out of heap: 288 bytes refused" in r.stdout
