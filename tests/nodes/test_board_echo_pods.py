"""Board mode: a classic ESP32 worker (no PSRAM) runs as many echo apps (Pod with a 64Ki memory
limit, Service, Ingress path) as its pod slots allow, each answering through the Ingress on
the control plane; the next pod stays Pending with kube-scheduler's FailedScheduling reason,
the worker keeps running inside its heap, and when one app's pod goes the waiting one runs.
echo never grows its linear memory, so each pod is charged what its image can reach (a
request the API server defaults from the image) plus the node's per-pod overhead."""

import sys
from pathlib import Path

import pytest

from k32.boards import load_board
from k32.sim.console import command
from k32.testing.poll import wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ingress"))
from board_cluster import WORKER, WORKER_BOARD, api, assert_refused_by_scheduler, s3_with_esp32_worker  # noqa: E402
from ingress_helpers import post  # noqa: E402

pytestmark = pytest.mark.slow

PODS_WANTED = 4  # echo pods one ESP32 worker must hold
POD_START_TIMEOUT_S = 90.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with s3_with_esp32_worker(tmp_path_factory, "echopods") as c:
        yield c


def app(name: str) -> list[dict]:
    """An echo app pinned to the worker: its Pod (64Ki limit, no request), Service and Ingress."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": WORKER},
            "containers": [
                {
                    "name": "echo",
                    "image": "wasm://embedded/echo",
                    "ports": [{"containerPort": 7000, "name": "http"}],
                    "env": [{"name": "GREETING", "value": f"hello from {name}"}],
                    "resources": {"limits": {"memory": "64Ki"}},
                }
            ],
        },
    }
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 80, "targetPort": 7000}]},
    }
    backend = {"service": {"name": name, "port": {"number": 80}}}
    ing = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"rules": [{"http": {"paths": [{"path": f"/{name}", "pathType": "Prefix", "backend": backend}]}}]},
    }
    return [pod, svc, ing]


def create_app(c, name):
    for obj, path in zip(
        app(name),
        (
            "/api/v1/namespaces/default/pods",
            "/api/v1/namespaces/default/services",
            "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
        ),
    ):
        status, body = api(c, "POST", path, obj)
        assert status == 201, (path, status, body)


def answers(c, name) -> bool:
    status, body = post(c, f"/{name}/hi", f"payload-{name}".encode())
    return (
        status == 200 and body.startswith(f"hello from {name}\n".encode()) and body.endswith(f"payload-{name}".encode())
    )


def pod(c, name) -> dict:
    status, p = api(c, "GET", f"/api/v1/namespaces/default/pods/{name}")
    assert status == 200, (status, p)
    return p


def unschedulable(c, name):
    for cond in pod(c, name).get("status", {}).get("conditions") or []:
        if cond["type"] == "PodScheduled" and cond["status"] == "False":
            return cond
    return None


def worker_alive(c) -> bool:
    return len(c.running_nodes()) == len(c.nodes)


def test_four_echo_pods_on_one_esp32_worker_then_the_fifth_waits(cluster):
    b = load_board(WORKER_BOARD).budgets
    assert b["pods_max"]["count"] >= PODS_WANTED
    spec = next(s for s in cluster.nodes if s.name == WORKER)
    console = f"{spec.ip}:{spec.console_port}"
    conn = b["pod_conn_stack"]["bytes"] + b["inproc_call_stack"]["bytes"]  # a pod-server connection's thread

    def at_rest():
        """The worker's heap once only its own threads run (no pod-server connection open,
        no container runner), as STATUS gives it: the figures in boards/esp32.yaml."""
        st = command(console, "STATUS")
        busy = any(
            r["running"] for r in st["stacks"] if r["name"] == "pod" or (r["name"], r["budget"]) == ("pods", conn)
        )
        return None if busy else st

    idle = wait_until(at_rest, POD_START_TIMEOUT_S, 0.5)
    print(f"idle worker: {idle['heapInternalBytes']} bytes, {idle['heapStackBytes']} of them thread stacks")
    names = [f"echo-{i}" for i in range(PODS_WANTED)]
    for n in names:
        create_app(cluster, n)
        ok = wait_until(lambda: answers(cluster, n) or not worker_alive(cluster), POD_START_TIMEOUT_S, 0.5)
        assert worker_alive(cluster), cluster.log_path(WORKER).read_text(errors="replace")[-800:]
        assert ok and answers(cluster, n), (n, pod(cluster, n).get("status"))
        p = pod(cluster, n)
        assert p["spec"]["nodeName"] == WORKER
        res = p["spec"]["containers"][0]["resources"]
        # Charged what echo can reach, shown as its request; the limit stays the cap, and the
        # pod is Burstable (its request below its limit), as with a LimitRange's default request.
        assert res["limits"]["memory"] == "64Ki" and res["requests"]["memory"].endswith("Ki"), res
        assert int(res["requests"]["memory"][:-2]) < 64, res
        assert p["status"]["qosClass"] == "Burstable", p["status"]
        print(f"with {n}: {wait_until(at_rest, POD_START_TIMEOUT_S, 0.5)['heapInternalBytes']} bytes at rest")
    # Every app still answers with all four running.
    assert all(answers(cluster, n) for n in names)
    # At rest (the Ingress's kept-alive connection to the pod server closes after
    # POD_KEEPALIVE_IDLE_MS) the worker holds the four pods inside its heap and leaves its reserve.
    bound = b["heap_internal"]["bytes"] - b["heap_reserve"]["bytes"]
    rest = wait_until(at_rest, POD_START_TIMEOUT_S, 0.5)
    assert rest, "a pod-server connection or a runner never ended"
    heap = rest["heapInternalBytes"]
    print(f"worker heap with {PODS_WANTED} echo pods: {heap} bytes at rest, {rest['heapPeakBytes']} at the most")
    assert heap <= bound, (heap, bound)

    # The fifth is refused by the scheduler, in kube-scheduler's words, before it reaches the node.
    create_app(cluster, "echo-late")
    cond = wait_until(lambda: unschedulable(cluster, "echo-late"), POD_START_TIMEOUT_S, 0.5)
    assert cond, pod(cluster, "echo-late").get("status")
    assert_refused_by_scheduler(cluster, "echo-late", cond, POD_START_TIMEOUT_S)
    assert pod(cluster, "echo-late")["status"]["phase"] == "Pending"
    assert not pod(cluster, "echo-late")["spec"].get("nodeName")
    assert worker_alive(cluster)

    # One app's pod goes: the waiting one is placed on the worker and answers.
    assert api(cluster, "DELETE", "/api/v1/namespaces/default/pods/echo-0")[0] == 200
    ran = wait_until(lambda: answers(cluster, "echo-late"), POD_START_TIMEOUT_S, 0.5)
    assert ran, pod(cluster, "echo-late").get("status")
    assert pod(cluster, "echo-late")["spec"]["nodeName"] == WORKER
    assert all(answers(cluster, n) for n in names[1:])
    assert worker_alive(cluster)
