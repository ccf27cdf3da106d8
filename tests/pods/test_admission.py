"""Admission: a pod's memory is charged as the larger of its request and its limit (a Wasm
container's linear memory grows to its limit), by the scheduler and by the kubelet, and a
pod bound with spec.nodeName (no scheduler) is checked by the kubelet: it fails with the
kubelet's OutOfmemory reason instead of running past the node's budget. The pods run the
grower image, whose memory grows (echo's never does, so it is charged only what it can
reach: tests/nodes/test_board_echo_pods.py)."""

import pytest
from pods_helpers import apply, get_pod, nodes, wait_until


def cp_of(c):
    return next(n for n, v in nodes(c).items() if v["role"] == "control-plane")


def pod(name, limit, node=None, request="64Ki"):
    bind = f"  nodeName: {node}\n" if node else ""
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
{bind}  containers:
  - name: c
    image: wasm://embedded/grower
    resources: {{requests: {{memory: {request}}}, limits: {{memory: {limit}}}}}
"""


def test_scheduler_counts_limits(sim_cluster):
    apply(sim_cluster, pod("big-limit", "1Gi"))
    try:
        p = wait_until(
            lambda: (
                (q := get_pod(sim_cluster, "big-limit"))
                and any(
                    c.get("type") == "PodScheduled" and c.get("status") == "False"
                    for c in q["status"].get("conditions") or []
                )
                and q
            ),
        )
        assert p, f"1Gi limit on 4Mi nodes was not refused by the scheduler: {get_pod(sim_cluster, 'big-limit')}"
        assert not p["spec"].get("nodeName")
        cond = next(c for c in p["status"]["conditions"] if c["type"] == "PodScheduled")
        assert "Insufficient memory" in cond["message"]
    finally:
        sim_cluster.kubectl("delete", "pod", "big-limit", "--wait=false", "--ignore-not-found")


@pytest.mark.slow
def test_kubelet_rejects_bound_pod_over_its_budget(sim_factory):
    c = sim_factory(workers=0)
    c.up()
    cp = cp_of(c)
    allocatable = c.kubectl("get", "node", cp, "-o", "jsonpath={.status.allocatable.memory}").stdout
    assert allocatable == "4Mi"
    apply(c, pod("too-big", "1Gi", node=cp))
    p = wait_until(lambda: (q := get_pod(c, "too-big")) and q["status"].get("phase") == "Failed" and q)
    assert p, f"bound pod with a 1Gi limit was not rejected: {get_pod(c, 'too-big')}"
    assert p["status"]["reason"] == "OutOfmemory"
    assert "memory" in p["status"]["message"] and "4194304" in p["status"]["message"]
    table = c.kubectl("get", "pod", "too-big").stdout
    assert "OutOfmemory" in table

    # The kubelet writes the pod's status first and its Event after it: the Event may not be
    # there yet when the status is.
    def rejected_event():
        return "OutOfmemory" in c.kubectl("get", "events", "--field-selector", "involvedObject.name=too-big").stdout

    assert wait_until(rejected_event), c.kubectl("get", "events").stdout

    # Bound pods add up: two 3Mi limits do not fit in 4Mi; the first runs, the second fails.
    apply(c, pod("half-a", "3Mi", node=cp))
    a = wait_until(lambda: (q := get_pod(c, "half-a")) and q["status"].get("phase") == "Running" and q)
    assert a, get_pod(c, "half-a")
    apply(c, pod("half-b", "3Mi", node=cp))
    b = wait_until(lambda: (q := get_pod(c, "half-b")) and q["status"].get("phase") == "Failed" and q)
    assert b and b["status"]["reason"] == "OutOfmemory", get_pod(c, "half-b")


def test_refused_pods_do_not_hold_up_the_next_ones(sim_cluster):
    # The kubelet takes up a few new pods a sync pass. Pods it refused stay listed (Failed,
    # until deleted) and come first here; they are not new pods any more, and a pod after
    # them must still start.
    ns = "e2e-adm-order"
    sim_cluster.kubectl("create", "namespace", ns)
    cp = cp_of(sim_cluster)
    refused = [f"p{i}-refused" for i in range(4)]
    try:
        for name in refused:
            apply(sim_cluster, pod(name, "1Gi", node=cp).replace("metadata: {", f"metadata: {{namespace: {ns}, "))
        for name in refused:
            p = wait_until(
                lambda n=name: (q := get_pod(sim_cluster, n, ns)) and q["status"].get("phase") == "Failed" and q
            )
            assert p and p["status"]["reason"] == "OutOfmemory", get_pod(sim_cluster, name, ns)
        apply(
            sim_cluster,
            f"""
apiVersion: v1
kind: Pod
metadata: {{name: p9-runs, namespace: {ns}}}
spec:
  nodeName: {cp}
  containers:
  - {{name: c, image: wasm://embedded/echo, resources: {{limits: {{memory: 64Ki}}}}}}
""",
        )
        p = wait_until(
            lambda: (q := get_pod(sim_cluster, "p9-runs", ns)) and q["status"].get("phase") == "Running" and q
        )
        assert p, get_pod(sim_cluster, "p9-runs", ns)
    finally:
        sim_cluster.kubectl("delete", "namespace", ns, "--wait=false")
