"""Watch semantics as kube-apiserver's: a label-selector watch sees an object that starts
matching as ADDED and one that stops matching as DELETED; a watch from a resourceVersion the
store has not reached fails with "Too large resource version", one from before what the watch
history still holds (its byte budget, watch_history in the board profile) with 410 Expired;
default/kubernetes exists."""

import json
import os
import subprocess
import time

import pytest
from api_helpers import LineReader, apply, kubectl, namespace

from k32.boards import load_board
from k32.build.tools import kubectl as kubectl_path

NS = "e2e-watch-sel"


@pytest.mark.slow
def test_label_selector_watch_reports_entering_and_leaving(sim_cluster):
    namespace(sim_cluster, NS)
    apply(
        sim_cluster,
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "mover", "namespace": NS, "labels": {"tier": "back"}},
            "data": {"k": "v"},
        },
    )
    # Already matching: its line from kubectl's initial list shows that list is done, so
    # mover's change below can only reach kubectl through the watch.
    apply(
        sim_cluster,
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "marker", "namespace": NS, "labels": {"tier": "web"}},
        },
    )
    argv = [
        str(kubectl_path()),
        "--kubeconfig",
        str(sim_cluster.kubeconfig),
        "--context",
        sim_cluster.context,
        "get",
        "configmaps",
        "-n",
        NS,
        "-l",
        "tier=web",
        "-w",
        "--output-watch-events",
    ]
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        reader = LineReader(proc)
        reader.wait_for(lambda line: " marker " in line, timeout=60)
        kubectl(sim_cluster, "label", "configmap", "mover", "-n", NS, "tier=web", "--overwrite")
        seen = reader.wait_for(lambda line: " mover " in line)
        assert seen[-1].split()[:2] == ["ADDED", "mover"], seen
        kubectl(sim_cluster, "annotate", "configmap", "mover", "-n", NS, "note=x")
        seen = reader.wait_for(lambda line: " mover " in line)
        assert seen[-1].split()[:2] == ["MODIFIED", "mover"], seen
        kubectl(sim_cluster, "label", "configmap", "mover", "-n", NS, "tier=db", "--overwrite")
        seen = reader.wait_for(lambda line: " mover " in line)
        assert seen[-1].split()[:2] == ["DELETED", "mover"], seen
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        sim_cluster.kubectl("delete", "configmap", "mover", "marker", "-n", NS)


@pytest.mark.slow
def test_deleted_event_carries_last_matching_state(sim_cluster):
    namespace(sim_cluster, NS)
    status, _, body = sim_cluster.request("GET", f"/api/v1/namespaces/{NS}/configmaps")
    rv = json.loads(body)["metadata"]["resourceVersion"]
    apply(
        sim_cluster,
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "leaver", "namespace": NS, "labels": {"tier": "web"}},
        },
    )
    kubectl(sim_cluster, "label", "configmap", "leaver", "-n", NS, "tier-")
    status, _, body = sim_cluster.request(
        "GET",
        f"/api/v1/namespaces/{NS}/configmaps?watch=true&labelSelector=tier%3Dweb&resourceVersion={rv}&timeoutSeconds=2",
        timeout=15,
    )
    assert status == 200
    events = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
    leaver = [
        (e["type"], e["object"]["metadata"].get("labels"))
        for e in events
        if e["object"]["metadata"]["name"] == "leaver"
    ]
    assert leaver == [("ADDED", {"tier": "web"}), ("DELETED", {"tier": "web"})], events
    deleted = next(e for e in events if e["type"] == "DELETED")
    assert int(deleted["object"]["metadata"]["resourceVersion"]) > int(
        events[0]["object"]["metadata"]["resourceVersion"]
    )
    sim_cluster.kubectl("delete", "configmap", "leaver", "-n", NS)


@pytest.mark.slow
def test_watch_from_future_version_fails_too_large(sim_cluster):
    status, _, body = sim_cluster.request("GET", "/api/v1/namespaces/default/configmaps")
    current = int(json.loads(body)["metadata"]["resourceVersion"])
    future = current + 100000
    start = time.monotonic()
    status, _, body = sim_cluster.request(
        "GET", f"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={future}", timeout=20
    )
    assert time.monotonic() - start < 10
    assert status == 504, body
    st = json.loads(body)
    assert st["reason"] == "Timeout"
    assert st["message"].startswith(f"Too large resource version: {future}, current: ")
    assert st["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"


def watch_lines(cluster, path: str, rv: int) -> list[dict]:
    status, _, body = cluster.request("GET", f"{path}?watch=true&resourceVersion={rv}&timeoutSeconds=1", timeout=20)
    assert status == 200, body
    return [json.loads(line) for line in body.splitlines() if line.strip()]


@pytest.mark.slow
def test_watch_from_before_the_history_budget_is_expired(sim_cluster):
    """Rewriting one 4 KB ConfigMap until its old versions fill the watch history's byte
    budget: the oldest events go, a watch from before them gets 410 Expired (as kube-apiserver
    answers, so clients relist), and a watch from a recent version still sees every change."""
    namespace(sim_cluster, NS)
    budget = load_board("sim").budgets["watch_history"]["bytes"]
    path = f"/api/v1/namespaces/{NS}/configmaps"
    payload = 4096
    status, _, body = sim_cluster.request(
        "POST", path, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rewritten"}, "data": {"k": "a"}}
    )
    assert status == 201, body
    first_rv = int(json.loads(body)["metadata"]["resourceVersion"])
    # Each update leaves its predecessor (~4 KB) to the history alone: 1.5x the budget's worth.
    rvs = []
    for i in range(budget * 3 // 2 // payload + 1):
        status, _, body = sim_cluster.request(
            "PUT",
            f"{path}/rewritten",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "rewritten"},
                "data": {"k": chr(98 + i % 20) * payload},
            },
        )
        assert status == 200, body
        rvs.append(int(json.loads(body)["metadata"]["resourceVersion"]))
    # The node reports what its history holds: within the budget, and more than half full.
    status, _, body = sim_cluster.request("GET", "/metrics")
    assert status == 200
    metrics = dict(line.split() for line in body.decode().splitlines() if line.startswith("k32_watch_history"))
    assert budget // 2 < int(metrics["k32_watch_history_bytes"]) <= budget, metrics
    events = watch_lines(sim_cluster, path, first_rv)
    assert len(events) == 1, events
    assert events[0]["type"] == "ERROR"
    st = events[0]["object"]
    assert (st["kind"], st["status"], st["reason"], st["code"]) == ("Status", "Failure", "Expired", 410), st
    assert st["message"].startswith(f"too old resource version: {first_rv} ")
    # The last few changes are all there, each with its own data and version.
    events = watch_lines(sim_cluster, path, rvs[-4])
    mine = [e for e in events if e["object"]["metadata"]["name"] == "rewritten"]
    assert [e["type"] for e in mine] == ["MODIFIED"] * 3, events
    for ev, rv in zip(mine, rvs[-3:]):
        assert ev["object"]["metadata"]["resourceVersion"] == str(rv)
        i = rvs.index(rv)
        assert ev["object"]["data"]["k"] == chr(98 + i % 20) * payload
    kubectl(sim_cluster, "delete", "configmap", "rewritten", "-n", NS)


def test_default_kubernetes_service_exists(sim_cluster):
    svc = json.loads(kubectl(sim_cluster, "get", "service", "kubernetes", "-n", "default", "-o", "json"))
    assert svc["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    port = svc["spec"]["ports"][0]
    assert (port["name"], port["port"], port["protocol"]) == ("https", 443, "TCP")
    assert port["targetPort"] == sim_cluster.nodes[0].api_port
