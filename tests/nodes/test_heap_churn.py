"""The control plane's heap does not grow with churn: ten apps (Pod + Service + Ingress each,
the echo image with a 64Ki limit) applied, then deleted and applied again five times, leave
the node's heap (`K32_CMD:STATUS`, both regions) within 10 % of what it held with the first
ten. What an app leaves behind after it is gone (a cache entry per name, a copy kept past the
object's life, history that is never let go) adds up here round after round."""

import http.client
import statistics
import time

import pytest
import yaml

from k32.testing.poll import wait_until

APPS = 10
ROUNDS = 5
GROWTH_MAX = 0.10  # of the heap with the first ten apps
READY_TIMEOUT_S = 120.0
SAMPLES, SAMPLE_GAP_S = 7, 0.4


def app(i: int) -> list[dict]:
    name = f"churn{i}"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {
            "containers": [
                {
                    "name": "echo",
                    "image": "wasm://embedded/echo",
                    "ports": [{"containerPort": 7000, "name": "http"}],
                    "resources": {"requests": {"memory": "64Ki"}, "limits": {"memory": "64Ki"}},
                }
            ]
        },
    }
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 80, "targetPort": 7000}]},
    }
    path = {"path": f"/{name}", "pathType": "Prefix", "backend": {"service": {"name": name, "port": {"number": 80}}}}
    ing = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"rules": [{"http": {"paths": [path]}}]},
    }
    return [pod, svc, ing]


MANIFEST = yaml.safe_dump_all([doc for i in range(APPS) for doc in app(i)], sort_keys=False)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from k32.testing.clusters import make_test_cluster

    # The control plane alone: every pod runs on it, so all their state is in its heap.
    c = make_test_cluster(tmp_path_factory.mktemp("churn"), workers=0)
    c.up()
    try:
        yield c
    finally:
        c.down()


def answers(cluster, path: str) -> bool:
    cp = next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")
    conn = http.client.HTTPConnection(cp["ip"], cp["ingressPort"], timeout=5)
    try:
        conn.request("POST", path, body=b"ping")
        resp = conn.getresponse()
        resp.read()
        return resp.status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def kubectl(cluster, *args: str):
    p = cluster.kubectl(*args, input=MANIFEST)
    assert p.returncode == 0, p.stderr


def apply_and_wait(cluster) -> None:
    kubectl(cluster, "apply", "-f", "-")
    ok = wait_until(lambda: all(answers(cluster, f"/churn{i}/hello") for i in range(APPS)), READY_TIMEOUT_S, 0.5)
    assert ok, [i for i in range(APPS) if not answers(cluster, f"/churn{i}/hello")]


def delete_and_wait(cluster) -> None:
    kubectl(cluster, "delete", "-f", "-", "--wait=false")

    def gone():
        p = cluster.kubectl("get", "pods", "-o", "name")
        return p.returncode == 0 and not p.stdout.strip()

    assert wait_until(gone, READY_TIMEOUT_S, 0.5), cluster.kubectl("get", "pods").stdout


def heap(cluster) -> int:
    """The control plane's heap, both regions, as the median of a few readings: the kubelet's
    sync and the status writes hold transient buffers for a moment every few seconds."""
    name = next(n["name"] for n in cluster.status()["nodes"] if n["role"] == "control-plane")
    readings = []
    for _ in range(SAMPLES):
        st = cluster.console(name, "STATUS")
        readings.append(st["heapInternalBytes"] + st["heapPsramBytes"])
        time.sleep(SAMPLE_GAP_S)
    return int(statistics.median(readings))


@pytest.mark.slow
def test_heap_returns_after_apps_are_deleted_and_applied_again(cluster):
    apply_and_wait(cluster)
    first = heap(cluster)
    figures = [first]
    for _ in range(ROUNDS):
        delete_and_wait(cluster)
        apply_and_wait(cluster)
        figures.append(heap(cluster))
    print("control-plane heap with the apps, round by round:", figures)
    assert figures[-1] <= first * (1 + GROWTH_MAX), (
        f"after {ROUNDS} rounds the heap is {figures[-1]} bytes, more than {GROWTH_MAX:.0%} over "
        f"the first {first} (rounds: {figures})"
    )
