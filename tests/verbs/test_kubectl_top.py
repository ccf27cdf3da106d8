"""kubectl top nodes / top pods against the simulator: the metrics.k8s.io API is discoverable
as metrics-server's is, and its figures are the nodes' real heap and the pods' real linear
memory and interpreter time (a pod that served requests shows CPU, an idle one none)."""

import http.client
import json
import re

import pytest
from verbs_helpers import (
    ECHO_LIMIT_BYTES,
    apply,
    delete_pods,
    echo_pod,
    ensure_namespace,
    kubectl_binaries,
    nodes,
    run_kubectl,
    wait_running,
    wait_until,
    worker_name,
)

NS = "verbs-top"
KUBECTLS = kubectl_binaries()


@pytest.fixture(scope="module")
def pods(sim_cluster):
    """A busy and an idle echo pod on a worker; the busy one has served requests."""
    ensure_namespace(sim_cluster, NS)
    w = worker_name(sim_cluster)
    try:
        for name in ("busy", "idle"):
            apply(sim_cluster, echo_pod(name, NS, w))
        for name in ("busy", "idle"):
            wait_running(sim_cluster, name, NS)
        node = nodes(sim_cluster)[w]
        for i in range(200):
            conn = http.client.HTTPConnection(node["ip"], node["podPort"], timeout=10)
            conn.request("POST", f"/work/{i}", body=b"x" * 512, headers={"X-Kube32-Pod": f"{NS}/busy"})
            resp = conn.getresponse()
            assert resp.status == 200, resp.read()
            resp.read()
            conn.close()
        yield w
    finally:  # also when they did not start: the next file's pods need the worker's memory
        delete_pods(sim_cluster, NS)


def raw(cluster, path: str) -> dict:
    p = cluster.kubectl("get", "--raw", path)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def pod_metrics(cluster) -> dict:
    """name -> PodMetrics of NS once both pods have a reading taken after the requests."""

    def both():
        items = {
            i["metadata"]["name"]: i
            for i in raw(cluster, f"/apis/metrics.k8s.io/v1beta1/namespaces/{NS}/pods")["items"]
        }
        busy = items.get("busy")
        if not busy or "idle" not in items or busy["containers"][0]["usage"]["cpu"] == "0n":
            return None
        return items

    found = wait_until(both, timeout=40)
    assert found, "no pod metrics with the busy pod's CPU within 40 s (reports ride on 10 s heartbeats)"
    return found


def test_metrics_api_is_discoverable_like_metrics_server(sim_cluster):
    groups = raw(sim_cluster, "/apis")["groups"]
    metrics = [g for g in groups if g["name"] == "metrics.k8s.io"]
    assert metrics and metrics[0]["preferredVersion"]["groupVersion"] == "metrics.k8s.io/v1beta1"
    group = raw(sim_cluster, "/apis/metrics.k8s.io")
    assert group["kind"] == "APIGroup" and group["versions"][0]["version"] == "v1beta1"
    res = {r["name"]: r for r in raw(sim_cluster, "/apis/metrics.k8s.io/v1beta1")["resources"]}
    assert res["nodes"]["kind"] == "NodeMetrics" and not res["nodes"]["namespaced"]
    assert res["pods"]["kind"] == "PodMetrics" and res["pods"]["namespaced"]
    assert sorted(res["pods"]["verbs"]) == ["get", "list"]
    p = sim_cluster.kubectl("api-resources", "--api-group=metrics.k8s.io")
    assert p.returncode == 0 and "PodMetrics" in p.stdout and "NodeMetrics" in p.stdout, p.stderr


@pytest.mark.slow
def test_node_metrics_are_the_nodes_heap(sim_cluster):
    names = set(nodes(sim_cluster))
    items = wait_until(
        lambda: (
            (got := raw(sim_cluster, "/apis/metrics.k8s.io/v1beta1/nodes")["items"])
            and {i["metadata"]["name"] for i in got} == names
            and got
        ),
        timeout=30,
    )
    assert items, "every node reports within 30 s"
    for item in items:
        usage = item["usage"]
        internal, psram = int(usage["kube32.io/heap-internal"]), int(usage["kube32.io/heap-psram"])
        assert int(usage["memory"]) == internal + psram > 0
        assert re.fullmatch(r"\d+n", usage["cpu"]), usage
        assert re.fullmatch(r"\d+ms", item["window"]), item
        # The same heap the node's console reports (it moves a little between the two readings,
        # and a lot when an earlier test's pods were just deleted: the next report, on the next
        # heartbeat, shows that too).
        name = item["metadata"]["name"]

        def close_to_status(name=name):
            node = raw(sim_cluster, f"/apis/metrics.k8s.io/v1beta1/nodes/{name}")
            status = sim_cluster.console(name, "STATUS")
            ok = 0.5 * status["heapBytes"] < int(node["usage"]["memory"]) < 2 * status["heapBytes"]
            return ok, node["usage"], status["heapBytes"]

        assert wait_until(lambda: close_to_status()[0], timeout=30), close_to_status()
    one = raw(sim_cluster, f"/apis/metrics.k8s.io/v1beta1/nodes/{items[0]['metadata']['name']}")
    assert one["kind"] == "NodeMetrics"
    missing = sim_cluster.kubectl("get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes/no-such-node")
    assert missing.returncode != 0 and "NotFound" in missing.stderr + missing.stdout


@pytest.mark.slow
def test_pod_metrics_are_linear_memory_and_interpreter_time(sim_cluster, pods):
    items = pod_metrics(sim_cluster)
    busy, idle = items["busy"]["containers"][0], items["idle"]["containers"][0]
    assert busy["name"] == idle["name"] == "echo"
    for c in (busy, idle):
        mem = int(c["usage"]["memory"])
        assert mem > 0 and mem % 65536 == 0, c  # whole Wasm pages
        assert mem <= ECHO_LIMIT_BYTES  # limits.memory
    assert int(busy["usage"]["cpu"][:-1]) > 0
    assert idle["usage"]["cpu"] == "0n"  # a request pod that served nothing ran no code
    one = raw(sim_cluster, f"/apis/metrics.k8s.io/v1beta1/namespaces/{NS}/pods/busy")
    assert one["kind"] == "PodMetrics" and one["metadata"]["namespace"] == NS
    sel = raw(sim_cluster, f"/apis/metrics.k8s.io/v1beta1/namespaces/{NS}/pods?labelSelector=app%3Didle")
    assert [i["metadata"]["name"] for i in sel["items"]] == ["idle"]


@pytest.mark.slow
@pytest.mark.parametrize("version", sorted(KUBECTLS))
def test_kubectl_top_nodes(sim_cluster, version):
    names = set(nodes(sim_cluster))

    def table():
        p = run_kubectl(sim_cluster, KUBECTLS[version], "top", "nodes")
        if p.returncode != 0:
            return None
        rows = [line.split() for line in p.stdout.strip().splitlines()]
        return rows if {r[0] for r in rows[1:]} == names else None

    rows = wait_until(table, timeout=30)
    assert rows, run_kubectl(sim_cluster, KUBECTLS[version], "top", "nodes").stderr
    # kubectl 1.34 renamed CPU% / MEMORY% to CPU(%) / MEMORY(%).
    assert [c.replace("(%)", "%") for c in rows[0][:5]] == ["NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"]
    for r in rows[1:]:
        assert re.fullmatch(r"\d+m", r[1]) and re.fullmatch(r"\d+Mi", r[3]), r


@pytest.mark.slow
@pytest.mark.parametrize("version", sorted(KUBECTLS))
def test_kubectl_top_pods(sim_cluster, pods, version):
    pod_metrics(sim_cluster)
    p = run_kubectl(sim_cluster, KUBECTLS[version], "top", "pods", "-n", NS)
    assert p.returncode == 0, p.stderr
    rows = {line.split()[0]: line.split() for line in p.stdout.strip().splitlines()[1:]}
    header = p.stdout.splitlines()[0].split()
    assert header[:3] == ["NAME", "CPU(cores)", "MEMORY(bytes)"], p.stdout
    assert set(rows) == {"busy", "idle"}, p.stdout
    assert rows["idle"][1] == "0m"
    for r in rows.values():
        assert re.fullmatch(r"\d+(Ki|Mi)", r[2]), r
    p = run_kubectl(sim_cluster, KUBECTLS[version], "top", "pod", "busy", "-n", NS, "--containers")
    assert p.returncode == 0 and "echo" in p.stdout, p.stderr
