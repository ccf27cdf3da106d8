"""The control plane's workload controllers and metrics API in `k32 bench memory`: what one
Deployment costs beyond its pods, what a rollout leaves behind (the old ReplicaSet kept as
revision history; each the median of a few cycles with the Events kept and the watch history
full), what the metrics API keeps per node and per pod (the records `kubectl top`
reads) and what reading it leaves. Each is the heap at rest after the step less the heap at
rest before it (memory_probe.settle)."""

from __future__ import annotations

import statistics

from k32.testing import poll

from . import memory_objects as obj
from .memory_probe import BenchError, settle
from .memory_targets import (
    DEPLOYMENT_CYCLES,
    DEPLOYMENT_REPLICAS,
    METRICS_NODES,
    METRICS_PODS_PER_NODE,
    METRICS_REQUESTS,
    ROLLOUT_IMAGE,
)

ROLLOUT_TIMEOUT_S = 120.0
CONFLICT_RETRIES = 10
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


def _json(bench, path: str) -> dict | None:
    r = bench._request("GET", path)
    return r.json() if r.status == 200 else None


def _rollout_done(bench, name: str, replicas: int, revisions: int) -> list[str] | None:
    """The names of the Deployment's pods once it has `revisions` ReplicaSets, the newest with
    every replica available and the older ones scaled to nothing, and only the newest's pods
    are left (Running and ready); None until then."""
    d = _json(bench, f"{obj.APPS}/deployments/{name}")
    if d is None:
        return None
    st = d.get("status", {})
    if st.get("observedGeneration") != d["metadata"].get("generation"):
        return None
    if not (st.get("updatedReplicas") == st.get("availableReplicas") == st.get("replicas") == replicas):
        return None
    rss = (_json(bench, f"{obj.APPS}/replicasets?labelSelector=app%3D{name}") or {}).get("items", [])
    if len(rss) != revisions or sum(1 for rs in rss if rs["spec"].get("replicas", 1) > 0) != 1:
        return None
    if any(rs.get("status", {}).get("replicas", 0) != rs["spec"].get("replicas", 1) for rs in rss):
        return None
    return _pods(bench, name, replicas)


def _pods(bench, name: str, want: int) -> list[str] | None:
    """The Deployment's pods once there are `want`, every one Running and ready; else None."""
    items = (_json(bench, f"{obj.CORE}/pods?labelSelector=app%3D{name}") or {}).get("items", [])
    running = [p["metadata"]["name"] for p in items if bench._running(p["metadata"]["name"])]
    return running if len(running) == want and len(items) == want else None


def _set_image(bench, name: str, image: str) -> None:
    path = f"{obj.APPS}/deployments/{name}"
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "echo", "image": image}]}}}}
    # A merge patch replaces the containers list whole: the container as the bench made it, new image.
    patch["spec"]["template"]["spec"]["containers"][0] = {**obj.container(), "image": image}
    for _ in range(CONFLICT_RETRIES):
        r = bench._request("PATCH", path, patch, MERGE_PATCH)
        if r.status == 200:
            return
        if r.status != 409:
            break
    raise BenchError(f"PATCH {path}: {r.status} {r.body[:300]!r}")


def _cycle(bench) -> dict:
    """The bare pods' cost, then one Deployment made, rolled out and deleted, each read at rest
    after each step, all in the same steady state (a bare pod's Events displace older ones as
    the Deployment's pods' do, so the bare pods subtracted hold no more than those). Every
    reading leaves out the watch history and the Events kept (Reading.internal_steady): both
    are full, and where each sits below its budget moved with the heartbeats between two
    readings by up to a few KiB, which the bare pods' figure, subtracted three times, carried
    into the Deployment's."""
    pod_cost = bench.marginal("pod", 0, steady=True)
    before = settle(bench.console, steady=True)
    name = f"{obj.PREFIX}-deploy"
    collection, body = obj.deployment(name, DEPLOYMENT_REPLICAS)
    bench.create(collection, body)
    pods = poll.poll_until(
        lambda: _rollout_done(bench, name, DEPLOYMENT_REPLICAS, 1), ROLLOUT_TIMEOUT_S, f"{name}'s pods Running"
    )
    with_it = settle(bench.console, steady=True)
    _set_image(bench, name, ROLLOUT_IMAGE)
    rolled_pods = poll.poll_until(
        lambda: _rollout_done(bench, name, DEPLOYMENT_REPLICAS, 2), ROLLOUT_TIMEOUT_S, f"{name} rolled out"
    )
    rolled = settle(bench.console, steady=True)
    bench.delete(collection, body)
    bench.wait_gone(
        [obj.object_path(collection, body)] + [f"{obj.CORE}/pods/{p}" for p in set(pods) | set(rolled_pods)]
    )
    poll.poll_until(
        lambda: not (_json(bench, f"{obj.APPS}/replicasets?labelSelector=app%3D{name}") or {"items": [1]})["items"],
        ROLLOUT_TIMEOUT_S,
        f"{name}'s ReplicaSets collected",
        interval=0.2,
    )
    after = settle(bench.console, steady=True)
    total = with_it.internal_steady - before.internal_steady
    raw_total = with_it.internal_without_linear - before.internal_without_linear
    return {
        "podInternalBytes": pod_cost["steadyBytes"],
        "internalBytes": total,
        "psramBytes": with_it.psram - before.psram,
        "beyondPodsInternalBytes": total - DEPLOYMENT_REPLICAS * pod_cost["steadyBytes"],
        # One rollout: the same pods (replaced), a second ReplicaSet, the first kept at 0 replicas.
        "rolloutInternalBytes": rolled.internal_steady - with_it.internal_steady,
        "afterDeleteInternalBytes": after.internal_steady - before.internal_steady,
        # The figure as read before the history and Events were left out, for comparison.
        "withHistoryBeyondPodsInternalBytes": raw_total - DEPLOYMENT_REPLICAS * pod_cost["internalBytes"],
        "historyBytes": [r.history for r in (before, with_it, rolled, after)],
        "eventsBytes": [r.events for r in (before, with_it, rolled, after)],
        "quiet": before.quiet and with_it.quiet and rolled.quiet and after.quiet and pod_cost["quiet"],
    }


def deployment(bench) -> dict:
    """A Deployment of DEPLOYMENT_REPLICAS echo pods: its heap beyond what that many bare pods
    cost, measured beside it (the Deployment, its ReplicaSet, their owner-index entries and the
    bigger objects of owned pods); then a rollout to another image (the same module under its other name), whose
    cost is the old ReplicaSet kept as revision history; then deleted, which should leave
    nothing. Taken in a steady state, the Events kept and the watch history both full (as on a
    node that has run a while), so the Events and history entries the Deployment writes displace
    older ones and only what stays is counted; DEPLOYMENT_CYCLES times, each figure the median
    with its range."""
    bench.fill_events()
    bench.fill_history()
    cycles = [_cycle(bench) for _ in range(DEPLOYMENT_CYCLES)]
    out: dict = {"replicas": DEPLOYMENT_REPLICAS, "cycles": cycles}
    for key in (
        "podInternalBytes",
        "internalBytes",
        "psramBytes",
        "beyondPodsInternalBytes",
        "rolloutInternalBytes",
        "withHistoryBeyondPodsInternalBytes",
    ):
        values = [c[key] for c in cycles]
        out[key] = round(statistics.median(values))
        out[key.replace("Bytes", "RangeBytes")] = [min(values), max(values)]
    out["afterDeleteInternalBytes"] = round(statistics.median(c["afterDeleteInternalBytes"] for c in cycles))
    out["quiet"] = all(c["quiet"] for c in cycles)
    return out


def metrics_api(bench) -> dict:
    """Heap the metrics API keeps after METRICS_REQUESTS reads of its node and pod lists."""
    before = settle(bench.console)
    for _ in range(METRICS_REQUESTS):
        for path in ("/apis/metrics.k8s.io/v1beta1/nodes", "/apis/metrics.k8s.io/v1beta1/pods"):
            r = bench._request("GET", path)
            if r.status != 200:
                raise BenchError(f"GET {path}: {r.status} {r.body[:300]!r}")
    after = settle(bench.console)
    return {
        "requests": 2 * METRICS_REQUESTS,
        "retainedInternalBytes": after.internal_without_linear - before.internal_without_linear,
    }


def _report(bench, index: int, node: str, pods: int, t_us: int) -> None:
    """A usage report as a node's heartbeat sends it (kubelet/usage_report), for `pods` pods."""
    body = {
        "timeUs": t_us,
        "cpuUs": t_us // 100,
        "heapInternal": 1 << 16,
        "heapPsram": 1 << 20,
        "pods": [
            {
                # A UID's full length, as the API server makes them.
                "uid": f"{index:08x}-{j:04x}-4000-8000-000000000000",
                "containers": [{"cpuUs": t_us // 1000, "memory": 13 << 10, "startedUs": 1}],
            }
            for j in range(pods)
        ],
    }
    path = f"/apis/kube32.io/v1/nodes/{node}/usage"
    r = bench._request("POST", path, body)
    if r.status != 204:
        raise BenchError(f"POST {path}: {r.status} {r.body[:300]!r}")


def metrics_store(bench) -> dict:
    """The metrics API's records per node and per pod, taken on the idle node (no pod has a
    record yet, so every record is a new one): METRICS_NODES Nodes (objects made for it,
    whose reports the bench sends as a node's heartbeat does) report first no pods, then
    METRICS_PODS_PER_NODE pods each; the slope of each step. Deleting the Nodes frees their
    records and their pods' again."""
    nodes = [f"{obj.PREFIX}-node-{i:02d}" for i in range(METRICS_NODES)]
    for n in nodes:
        bench.create("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}})
    try:
        before = settle(bench.console)
        for i, n in enumerate(nodes):
            _report(bench, i, n, 0, 10_000_000)
        with_nodes = settle(bench.console)
        for i, n in enumerate(nodes):
            _report(bench, i, n, METRICS_PODS_PER_NODE, 20_000_000)
        with_pods = settle(bench.console)
        # Read once, as kubectl top does: every record is served.
        served = (_json(bench, "/apis/metrics.k8s.io/v1beta1/nodes") or {}).get("items", [])
        if not set(nodes) <= {i["metadata"]["name"] for i in served}:
            raise BenchError("the metrics API does not serve the nodes that reported")
    finally:
        for n in nodes:
            bench.delete("/api/v1/nodes", {"metadata": {"name": n}})
    pods = METRICS_NODES * METRICS_PODS_PER_NODE
    return {
        "nodes": METRICS_NODES,
        "pods": pods,
        "perNodeInternalBytes": round(
            (with_nodes.internal_without_linear - before.internal_without_linear) / METRICS_NODES
        ),
        "perPodInternalBytes": round((with_pods.internal_without_linear - with_nodes.internal_without_linear) / pods),
        "quiet": before.quiet and with_nodes.quiet and with_pods.quiet,
    }
