"""The node lifecycle as kube-controller-manager runs it: a worker that stops answering turns
NotReady, gets the unreachable taints next to the taints a user set, and its pods turn
Ready=False and move to the Service's notReadyAddresses; once it answers again the
unreachable taints come off (the user's stay) and its pods are Ready again."""

import json
import os
import signal
from pathlib import Path

import pytest
import yaml

from k32.testing import poll

REPO = Path(__file__).resolve().parents[2]
WORKER = "kube32-worker-1"
UNREACHABLE = "node.kubernetes.io/unreachable"
USER_TAINT = {"key": "dedicated", "value": "ml", "effect": "PreferNoSchedule"}
# A silent node is NotReady within 40 s; the rest is polling slack.
NOT_READY_TIMEOUT_S = 60.0
RECOVER_TIMEOUT_S = 30.0


def wait_until(fn, timeout, interval=0.5):
    return poll.wait_until(fn, timeout, interval)


def get(cluster, path):
    status, _, body = cluster.request("GET", path)
    assert status == 200, (path, status, body[:300])
    return json.loads(body)


def node(cluster):
    return get(cluster, f"/api/v1/nodes/{WORKER}")


def ready_of(obj):
    return next((c["status"] for c in obj.get("status", {}).get("conditions", []) if c["type"] == "Ready"), None)


def manifest():
    docs = [d for d in yaml.safe_load_all((REPO / "examples" / "echo.yaml").read_text()) if d]
    pod = next(d for d in docs if d["kind"] == "Pod")
    pod["metadata"].update(name="lc-echo", labels={"app": "lc-echo"})
    pod["metadata"].pop("annotations", None)
    pod["spec"].pop("nodeSelector", None)
    pod["spec"]["nodeName"] = WORKER
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "lc-echo", "namespace": "default"},
        "spec": {"selector": {"app": "lc-echo"}, "ports": [{"name": "http", "port": 80, "targetPort": 7000}]},
    }
    return yaml.safe_dump_all([pod, svc])


@pytest.fixture
def cluster(sim_factory):
    c = sim_factory(workers=1)
    c.up()
    stopped = []
    c.stopped = stopped
    yield c
    for pid in stopped:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


@pytest.mark.slow
def test_notready_node_marks_pods_and_recovers(cluster):
    proc = cluster.kubectl("apply", "-f", "-", input=manifest())
    assert proc.returncode == 0, proc.stderr
    pod_path = "/api/v1/namespaces/default/pods/lc-echo"
    assert wait_until(lambda: ready_of(get(cluster, pod_path)) == "True", 60), get(cluster, pod_path)
    proc = cluster.kubectl("taint", "node", WORKER, "dedicated=ml:PreferNoSchedule")
    assert proc.returncode == 0, proc.stderr

    victim = next(n for n in cluster.status()["nodes"] if n["name"] == WORKER)
    os.kill(int(victim["pid"]), signal.SIGSTOP)
    cluster.stopped.append(int(victim["pid"]))
    assert wait_until(lambda: ready_of(node(cluster)) in ("False", "Unknown"), NOT_READY_TIMEOUT_S)
    taints = node(cluster)["spec"]["taints"]
    assert USER_TAINT in taints, taints
    assert {(t["key"], t["effect"]) for t in taints if t["key"] == UNREACHABLE} == {
        (UNREACHABLE, "NoSchedule"),
        (UNREACHABLE, "NoExecute"),
    }, taints
    # Its pod is no longer Ready, and the Service lists it as not ready.
    assert wait_until(lambda: ready_of(get(cluster, pod_path)) == "False", 10), get(cluster, pod_path)
    ep = get(cluster, "/api/v1/namespaces/default/endpoints/lc-echo")
    subset = ep["subsets"][0]
    assert not subset.get("addresses"), ep
    assert [a["targetRef"]["name"] for a in subset["notReadyAddresses"]] == ["lc-echo"], ep

    os.kill(int(victim["pid"]), signal.SIGCONT)
    cluster.stopped.remove(int(victim["pid"]))

    def recovered():
        n = node(cluster)
        return ready_of(n) == "True" and n["spec"].get("taints") == [USER_TAINT]

    assert wait_until(recovered, RECOVER_TIMEOUT_S), node(cluster)
    assert wait_until(lambda: ready_of(get(cluster, pod_path)) == "True", RECOVER_TIMEOUT_S), get(cluster, pod_path)
    ep = get(cluster, "/api/v1/namespaces/default/endpoints/lc-echo")
    assert [a["targetRef"]["name"] for a in ep["subsets"][0]["addresses"]] == ["lc-echo"], ep
