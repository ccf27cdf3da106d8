"""Board mode, filled up: a classic ESP32 worker (no PSRAM) takes echo pods until the
scheduler refuses the next one with kube-scheduler's words, the control plane takes API
objects until it answers 507, and after the deletes both accept work again, the worker's
heap back near where it started. Every bound comes from the board profiles; nothing may
crash on the way."""

import time

import pytest
from board_cluster import (
    CP_BOARD,
    WORKER,
    WORKER_BOARD,
    api,
    assert_refused_by_scheduler,
    s3_with_esp32_worker,
)

from k32.boards import load_board
from k32.sim.console import command
from k32.testing.clusters import memory_quantity as quantity
from k32.testing.poll import wait_until

pytestmark = pytest.mark.slow

ECHO_LIMIT = 64 * 1024  # each pod's limits.memory: one Wasm page
POD_START_TIMEOUT_S = 60.0
HEAP_SAMPLES = 5


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with s3_with_esp32_worker(tmp_path_factory, "heapfill") as c:
        yield c


def worker_heap(c) -> int:
    """The worker's internal heap in use, the least of a few samples: its sync and heartbeat
    hold short-lived buffers, which a single sample may catch."""
    spec = next(s for s in c.nodes if s.name == WORKER)
    samples = []
    for _ in range(HEAP_SAMPLES):
        samples.append(command(f"{spec.ip}:{spec.console_port}", "STATUS")["heapInternalBytes"])
        time.sleep(0.3)
    return min(samples)


def echo_pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": WORKER},
            "containers": [
                {"name": "echo", "image": "wasm://embedded/echo", "resources": {"limits": {"memory": "64Ki"}}}
            ],
        },
    }


def pod_outcome(c, name):
    """'running', 'refused' (PodScheduled=False), or None while undecided."""
    status, pod = api(c, "GET", f"/api/v1/namespaces/default/pods/{name}")
    assert status == 200, (status, pod)
    st = pod.get("status") or {}
    for cond in st.get("conditions") or []:
        if cond["type"] == "PodScheduled" and cond["status"] == "False":
            return "refused", cond
    ready = [cs.get("ready") for cs in st.get("containerStatuses") or []]
    if st.get("phase") == "Running" and ready and all(ready):
        return "running", pod
    assert st.get("phase") != "Failed", f"{name} failed on the node instead of being refused: {st}"
    return None


def delete_pods(c, names):
    for n in names:
        api(c, "DELETE", f"/api/v1/namespaces/default/pods/{n}")
    gone = wait_until(
        lambda: all(api(c, "GET", f"/api/v1/namespaces/default/pods/{n}")[0] == 404 for n in names), 60.0, 0.5
    )
    assert gone, "pods were not removed"


def echo_module(c) -> int:
    """The heap of echo's compiled module as the worker reports it (Node status.images), once it
    does: it compiles it with its first echo pod and reports it with its next heartbeat."""

    def size():
        images = api(c, "GET", f"/api/v1/nodes/{WORKER}")[1]["status"].get("images") or []
        return next((i["sizeBytes"] for i in images if "wasm://embedded/echo" in i["names"]), None)

    got = wait_until(size, POD_START_TIMEOUT_S, 0.5)
    assert got, api(c, "GET", f"/api/v1/nodes/{WORKER}")[1]["status"]
    return got


def test_worker_takes_pods_until_the_scheduler_refuses_then_recovers(cluster):
    b = load_board(WORKER_BOARD).budgets
    _, node = api(cluster, "GET", f"/api/v1/nodes/{WORKER}")
    allocatable = quantity(node["status"]["allocatable"]["memory"])
    overhead = quantity(node["metadata"]["annotations"]["kube32.io/pod-overhead"])
    # The Node offers what the board's heap can hold: never more than pod_memory, nor more
    # than the heap beside the node's reserve; and it tells the scheduler what a pod costs.
    assert allocatable <= b["pod_memory"]["bytes"]
    assert allocatable <= b["heap_internal"]["bytes"] - b["heap_reserve"]["bytes"]
    assert overhead == b["pod_overhead"]["bytes"]

    start_heap = worker_heap(cluster)
    names, running, refusal, fits = [], [], None, None
    for i in range(b["pods_max"]["count"] + 1):
        name = f"fill-{i}"
        status, body = api(cluster, "POST", "/api/v1/namespaces/default/pods", echo_pod(name))
        assert status == 201, (status, body)
        names.append(name)
        # echo never grows its linear memory: the API defaults its request to what the image
        # can reach, below the limit, and the scheduler charges that plus the overhead.
        request = quantity(body["spec"]["containers"][0]["resources"]["requests"]["memory"])
        assert 0 < request < ECHO_LIMIT, body["spec"]["containers"][0]["resources"]
        if fits is None:
            # echo's compiled module is charged once beside the pods (the worker's status.images).
            fits = min(b["pods_max"]["count"], (allocatable - echo_module(cluster)) // (request + overhead))
            assert fits >= 1, (allocatable, request, overhead)
        outcome = wait_until(lambda: pod_outcome(cluster, name), POD_START_TIMEOUT_S, 0.5)
        assert outcome, (
            f"{name} neither ran nor was refused: {api(cluster, 'GET', f'/api/v1/namespaces/default/pods/{name}')}"
        )
        assert len(cluster.running_nodes()) == len(cluster.nodes), cluster.log_path(WORKER).read_text()[-800:]
        if outcome[0] == "refused":
            refusal = (name, outcome[1])
            break
        running.append(name)
    assert refusal, f"every pod ran: {running}"
    assert len(running) == fits, (running, allocatable, overhead)
    name, cond = refusal
    assert_refused_by_scheduler(cluster, name, cond, POD_START_TIMEOUT_S)
    # Full: the worker still answers and stays inside its heap.
    full_heap = worker_heap(cluster)
    assert full_heap <= b["heap_internal"]["bytes"]
    print(f"worker heap: start {start_heap}, {len(running)} echo pod(s) {full_heap}")

    delete_pods(cluster, names)
    back = wait_until(lambda: worker_heap(cluster) <= start_heap + b["pod_overhead"]["bytes"], 30.0, 1.0)
    after = worker_heap(cluster)
    print(f"worker heap after the deletes: {after}")
    assert back, f"heap {after} after the deletes, {start_heap} at the start"

    # Recovered: the same number of pods runs again.
    again = [f"again-{i}" for i in range(fits)]
    for n in again:
        assert api(cluster, "POST", "/api/v1/namespaces/default/pods", echo_pod(n))[0] == 201
        outcome = wait_until(lambda: pod_outcome(cluster, n), POD_START_TIMEOUT_S, 0.5)
        assert outcome and outcome[0] == "running", outcome
    delete_pods(cluster, again)


def test_worker_refuses_pods_without_limits_past_what_it_holds(cluster):
    """A grower pod names no memory: it is charged only the node's overhead, its container
    takes a whole page of linear memory, and the kubelet, which charges each pod what it
    really holds when that is more, refuses the ones that would not fit (OutOfmemory), or
    their linear memory is refused at start (CreateContainerError), instead of the node
    running out of heap. The pods are bound by hand (spec.nodeName): the scheduler, which
    counts the worker's capacity, would keep most of them Pending before the kubelet sees them."""
    b = load_board(WORKER_BOARD).budgets
    names = [f"nolimit-{i}" for i in range(b["pods_max"]["count"])]
    for n in names:
        pod = echo_pod(n)
        del pod["spec"]["nodeSelector"]
        pod["spec"]["nodeName"] = WORKER
        pod["spec"]["containers"] = [{"name": "grow", "image": "wasm://embedded/grower"}]
        assert api(cluster, "POST", "/api/v1/namespaces/default/pods", pod)[0] == 201

    def outcome(st):
        if st.get("phase") == "Failed":
            return st.get("reason")
        for cs in st.get("containerStatuses") or []:
            # Refused at start: its linear memory (the last run's end), or its runner's thread
            # (waiting to be tried again); either way the node said why and kept going.
            last = (cs.get("lastState") or {}).get("terminated") or {}
            waiting = (cs.get("state") or {}).get("waiting") or {}
            for refused in (last, waiting):
                message = refused.get("message", "")
                if refused.get("reason") == "CreateContainerError" and "not enough memory" in message:
                    return "CreateContainerError"
            if cs.get("ready"):
                return "Running"
        return st.get("phase")

    def settled():
        phases = {}
        for n in names:
            phases[n] = outcome(api(cluster, "GET", f"/api/v1/namespaces/default/pods/{n}")[1].get("status") or {})
        return phases if all(v in ("Running", "OutOfmemory", "CreateContainerError") for v in phases.values()) else None

    phases = wait_until(settled, POD_START_TIMEOUT_S, 0.5)
    assert phases, {n: api(cluster, "GET", f"/api/v1/namespaces/default/pods/{n}")[1].get("status") for n in names}
    # Charged only the overhead, they are all admitted; what runs is at most what the heap holds
    # whole pages (64 KiB each) for beside the node's reserve, never all of them. Whether one
    # runs depends on how their starts overlap: each start holds a runner's stack while it
    # asks for its page, and a start that finds the heap short is refused.
    running = list(phases.values()).count("Running")
    assert running <= (b["heap_internal"]["bytes"] - b["heap_reserve"]["bytes"]) // ECHO_LIMIT, phases
    assert running < len(names), phases
    assert len(cluster.running_nodes()) == len(cluster.nodes), cluster.log_path(WORKER).read_text()[-800:]
    assert worker_heap(cluster) <= b["heap_internal"]["bytes"] - b["heap_reserve"]["bytes"]
    delete_pods(cluster, names)


def test_control_plane_takes_objects_until_507_then_recovers(cluster):
    b = load_board(CP_BOARD).budgets
    # Objects a quarter of the largest one allowed: the store's total is reached in a few dozen.
    size = b["store_object_max"]["bytes"] // 4
    most = b["store_total_max"]["bytes"] // size + 2
    names, refused = [], None
    for i in range(most):
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"fill-{i}"}, "data": {"x": "x" * size}}
        status, body = api(cluster, "POST", "/api/v1/namespaces/default/configmaps", cm)
        if status == 507:
            refused = body
            break
        assert status == 201, (status, body)
        names.append(f"fill-{i}")
    assert refused, f"{len(names)} objects of {size} bytes and no 507"
    assert refused["kind"] == "Status" and refused["reason"] == "InsufficientStorage", refused
    assert len(cluster.running_nodes()) == len(cluster.nodes)
    for n in names:
        assert api(cluster, "DELETE", f"/api/v1/namespaces/default/configmaps/{n}")[0] == 200
    # Accepted again, as many as before.
    for n in names:
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n}, "data": {"x": "x" * size}}
        assert api(cluster, "POST", "/api/v1/namespaces/default/configmaps", cm)[0] == 201
    for n in names:
        assert api(cluster, "DELETE", f"/api/v1/namespaces/default/configmaps/{n}")[0] == 200
