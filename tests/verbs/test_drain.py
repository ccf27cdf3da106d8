"""`kubectl drain` and `uncordon` on a simulated worker running Deployment pods: the node is
cordoned, its pods are deleted (no eviction API is served, so kubectl falls back to DELETE,
which current kubectl sends with a protobuf DeleteOptions body) and their ReplicaSet starts
replacements on the other nodes. Every kubectl version found is driven."""

import json

import pytest
from verbs_helpers import kubectl_binaries, run_kubectl

from k32.testing.poll import wait_until

IMAGE = "kube32.io/embedded/echo"
BINARIES = kubectl_binaries()

pytestmark = pytest.mark.slow


def get_json(cluster, *args):
    p = cluster.kubectl("get", *args, "-o", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("label", sorted(BINARIES))
def test_drain_moves_deployment_pods_off_a_worker(sim_cluster, label):
    binary = BINARIES[label]
    ns = "drain-" + label.replace(".", "")
    if sim_cluster.kubectl("get", "namespace", ns).returncode != 0:
        assert sim_cluster.kubectl("create", "namespace", ns).returncode == 0
    p = run_kubectl(sim_cluster, binary, "create", "deployment", "d", "--image", IMAGE, "--replicas=3", "-n", ns)
    assert p.returncode == 0, p.stderr
    workers = [
        n["metadata"]["name"] for n in get_json(sim_cluster, "nodes")["items"] if "worker" in n["metadata"]["name"]
    ]

    def placed():
        pods = get_json(sim_cluster, "pods", "-n", ns, "-l", "app=d")["items"]
        live = [p for p in pods if not p["metadata"].get("deletionTimestamp") and p["status"].get("phase") == "Running"]
        return live if len(live) == 3 else None

    pods = wait_until(placed, 30.0, 0.3)
    assert pods
    node = next((p["spec"]["nodeName"] for p in pods if p["spec"]["nodeName"] in workers), None)
    assert node, [p["spec"]["nodeName"] for p in pods]
    bare = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bare", "labels": {"app": "bare"}},
        "spec": {"nodeName": node, "containers": [{"name": "echo", "image": IMAGE}]},
    }
    assert sim_cluster.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(bare)).returncode == 0
    try:
        # Only this test's pods: the shared cluster's other tests leave bare pods on the
        # workers, which kubectl refuses to drain without --force.
        p = run_kubectl(
            sim_cluster,
            binary,
            "drain",
            node,
            "--ignore-daemonsets",
            "--pod-selector=app=d",
            "--timeout=60s",
            timeout=90.0,
        )
        assert p.returncode == 0, p.stderr
        assert get_json(sim_cluster, "node", node)["spec"].get("unschedulable") is True

        def moved():
            live = placed()
            return live if live and all(p["spec"]["nodeName"] != node for p in live) else None

        assert wait_until(moved, 30.0, 0.3), get_json(sim_cluster, "pods", "-n", ns, "-o", "wide")
    finally:
        p = run_kubectl(sim_cluster, binary, "uncordon", node)
    assert p.returncode == 0, p.stderr
    assert not get_json(sim_cluster, "node", node)["spec"].get("unschedulable")
    assert get_json(sim_cluster, "pod", "bare", "-n", ns)["spec"]["nodeName"] == node  # not selected: left alone
    assert sim_cluster.kubectl("delete", "namespace", ns, "--wait=false").returncode == 0
