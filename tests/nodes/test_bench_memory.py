"""`k32 bench memory --json`, run short (3 apps, 1 round): the report is well formed and its
figures are consistent with each other. Whether the targets are met is the bench's verdict
(its exit status), not this test's: a missed target exits 1 and still gives a full report."""

import json
import subprocess
import sys

import pytest

from k32.bench.memory_report import verdicts
from k32.bench.memory_targets import BOARD, CONTROLLER_THREADS, DEPLOYMENT_CYCLES, HISTORY_FILL_BYTES, TARGETS
from k32.boards import load_board
from k32.build.firmware import REPO_ROOT, build_dir_for

APPS, ROUNDS = 3, 1
POINT_KEYS = {
    "internalBytes",
    "psramBytes",
    "podLinearBytes",
    "podBulkBytes",
    "internalWithoutLinearBytes",
    "psramOtherBytes",
    "spilledBytes",
    "quiet",
}


def test_32_bit_builds_have_their_own_trees():
    assert build_dir_for("sim", m32=True) == REPO_ROOT / "build" / "host32"
    assert build_dir_for("s3", m32=True) == REPO_ROOT / "build" / "host32-s3"
    assert build_dir_for("s3") == REPO_ROOT / "build" / "host-s3"


def test_churn_without_rounds_is_not_measured():
    # A run of no delete/re-apply rounds has no churn figure: its verdict is a miss, not 0 %.
    apps = {"internalWithoutLinearBytes": 100_000}
    r = {"workload": {"apps": 1, "rounds": 0}, "apps": apps, "churn": []}
    assert verdicts(r)["churn"]["measured"] is None and not verdicts(r)["churn"]["ok"]
    again = {"apps": {"internalWithoutLinearBytes": 105_000}}
    r = {"workload": {"apps": 1, "rounds": 1}, "apps": apps, "churn": [again]}
    assert verdicts(r)["churn"]["measured"] == 0.05 and verdicts(r)["churn"]["ok"]


@pytest.mark.slow
@pytest.mark.bench
def test_bench_memory_json_is_consistent():
    p = subprocess.run(
        [sys.executable, "-m", "k32.cli", "bench", "memory", "--json", "--apps", str(APPS), "--rounds", str(ROUNDS)],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert p.returncode in (0, 1), p.stderr[-2000:]
    r = json.loads(p.stdout)
    assert "error" not in r, (r["error"], r.get("nodeLogTail"))
    assert r["board"] == "s3" and "32-bit" in r["build"]
    assert r["workload"] == {"apps": APPS, "rounds": ROUNDS}
    for point in [r["idle"], r["apps"]] + [c[k] for c in r["churn"] for k in ("deleted", "apps")]:
        assert POINT_KEYS <= point.keys(), point
    assert len(r["churn"]) == ROUNDS

    idle, apps = r["idle"], r["apps"]
    # Idle is judged with the watch history full (as an idle node lives within minutes), and
    # reported at start too: the history holds its budget within two filler versions.
    start = r["idleAtStart"]
    assert POINT_KEYS <= start.keys(), start
    assert idle["historyBytes"] >= idle["historyMaxBytes"] - 2 * HISTORY_FILL_BYTES
    assert r["verdicts"]["idle_internal"]["measured"] == idle["internalWithoutLinearBytes"]
    # No pods idle; with the apps, each pod's linear memory in PSRAM (the s3 board has it).
    assert idle["podLinearBytes"] == 0 and idle["podBulkBytes"] == 0
    assert apps["podLinearBytes"] > 0 and apps["podBulkBytes"] > apps["podLinearBytes"]
    assert apps["podBulkRegion"] == "psram"
    assert apps["internalWithoutLinearBytes"] > idle["internalWithoutLinearBytes"]
    # The apps' objects as the store counts them, within the board's store_total_max.
    assert 0 < apps["storeBytes"] <= apps["storeMaxBytes"], apps
    # Internal first: the node books its own allocations in internal RAM, and at rest none of
    # them found it full (nothing spilled to PSRAM); PSRAM holds the pods' blocks and what the
    # profile places there, reported beside them.
    for point in [idle, apps] + [c[k] for c in r["churn"] for k in ("deleted", "apps")]:
        assert point["spilledBytes"] == 0, point
        assert point["psramOtherBytes"] == point["psramBytes"] - point["podBulkBytes"], point
    # The running threads' stacks are heap too, and the s3 profile places most of them in
    # PSRAM: beside them, the node's own allocations stay in internal RAM.
    assert idle["internalBytes"] > idle["psramBytes"] - idle["threadStackBytes"], idle
    # Deleting the apps gives their linear memory back.
    assert all(c["deleted"]["podLinearBytes"] == 0 for c in r["churn"])

    m = r["marginal"]
    assert set(m) == {"pod", "service", "ingress", "configmap"}
    for kind, cost in m.items():
        assert cost["objects"] > 0
        assert cost["internalBytes"] > 0, (kind, cost)
    # A pod's linear memory is its own (per-pod), and larger than nothing; a ConfigMap has none.
    assert m["pod"]["linearBytes"] > 0 and m["configmap"]["linearBytes"] == 0
    assert m["pod"]["internalBytes"] > m["configmap"]["internalBytes"]

    # A Deployment costs more than its bare pods (its objects, its ReplicaSet, the owner index);
    # its rollout keeps the old ReplicaSet; each figure is the verdict's.
    d = r["deployment"]
    assert d["replicas"] > 0 and d["internalBytes"] > d["beyondPodsInternalBytes"] > 0
    assert d["rolloutInternalBytes"] > 0
    assert r["verdicts"]["deployment"]["measured"] == d["beyondPodsInternalBytes"]
    assert r["verdicts"]["rollout"]["measured"] == d["rolloutInternalBytes"]
    # Each figure is the median of the cycles, reported with their range.
    assert len(d["cycles"]) == DEPLOYMENT_CYCLES
    for key in ("beyondPodsInternalBytes", "rolloutInternalBytes"):
        values = sorted(c[key] for c in d["cycles"])
        assert d[key.replace("Bytes", "RangeBytes")] == [values[0], values[-1]]
        assert values[0] <= d[key] <= values[-1]
    # Its readings leave out the watch history and the Events kept, both full (at their budget
    # within an entry): the node gave both with every reading.
    b = load_board(BOARD).budgets
    for c in d["cycles"]:
        assert all(b["watch_history"]["bytes"] // 2 < h <= b["watch_history"]["bytes"] for h in c["historyBytes"]), c
        assert all(b["events_kept"]["bytes"] // 2 < e <= b["events_kept"]["bytes"] for e in c["eventsBytes"]), c
    assert r["metricsApi"]["requests"] > 0
    # The metrics API's records: a pod's (its containers' samples) and a node's both cost heap.
    ms = r["metricsStore"]
    assert ms["nodes"] > 0 and ms["pods"] > 0
    assert ms["perNodeInternalBytes"] > 0 and ms["perPodInternalBytes"] > 0
    assert r["verdicts"]["metrics_pod"]["measured"] == ms["perPodInternalBytes"]

    rows = r["stacks"]
    assert rows and all({"name", "budget", "peak", "threads"} <= row.keys() for row in rows)
    assert any(row["name"] == "api" and row["peak"] > 0 for row in rows), rows
    # The controllers' thread and the metrics' threads ran, and their share is what was judged.
    sched = [row for row in rows if row["name"] in CONTROLLER_THREADS]
    assert sched and all(row["peak"] > 0 for row in sched), rows
    share = max(row["peak"] / row["budget"] for row in sched)
    assert r["verdicts"]["controllers_stack"]["measured"] == round(share, 4)
    assert any(row["name"] == "heartbeat" and row["peak"] > 0 for row in rows), rows

    v = r["verdicts"]
    assert set(v) == set(TARGETS)
    assert all(isinstance(x["ok"], bool) for x in v.values())
    # The exit status is the verdicts' sum, no more and no less.
    assert p.returncode == (0 if all(x["ok"] for x in v.values()) else 1)
