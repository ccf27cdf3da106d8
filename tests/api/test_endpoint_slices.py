"""EndpointSlices group endpoints by their resolved port set, as Kubernetes' EndpointSlice
controller does: a pod whose named targetPort resolves differently (or not at all) lands in a
slice of its own, each slice with its own name and uid and the service-name label; Endpoints
subsets are grouped the same way. Pods are bound to a node no kubelet runs, and their status
is written through the API, so the test decides what is ready."""

import json

import pytest
from api_helpers import apply, kubectl, namespace

NS = "e2e-slices"


def pod(name, ip, ports):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "labels": {"app": "multi"}},
        "spec": {"nodeName": "no-such-node", "containers": [{"name": "c", "image": "example/app:1", "ports": ports}]},
        "_ip": ip,
    }


PODS = [
    pod("a-7001", "10.99.0.1", [{"name": "web", "containerPort": 7001}]),
    pod("b-7000", "10.99.0.2", [{"name": "web", "containerPort": 7000}, {"name": "metrics", "containerPort": 9090}]),
    pod("c-7000", "10.99.0.3", [{"name": "web", "containerPort": 7000}, {"name": "metrics", "containerPort": 9090}]),
]


@pytest.fixture(scope="module")
def multi(sim_cluster):
    namespace(sim_cluster, NS)
    for p in PODS:
        doc = {k: v for k, v in p.items() if k != "_ip"}
        apply(sim_cluster, doc)
        status = {
            "status": {"phase": "Running", "podIP": p["_ip"], "conditions": [{"type": "Ready", "status": "True"}]}
        }
        code, _, body = sim_cluster.request(
            "PATCH",
            f"/api/v1/namespaces/{NS}/pods/{p['metadata']['name']}/status",
            body=json.dumps(status),
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert code == 200, body
    apply(
        sim_cluster,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "multi", "namespace": NS},
            "spec": {
                "selector": {"app": "multi"},
                "ports": [
                    {"name": "http", "port": 80, "targetPort": "web"},
                    {"name": "metrics", "port": 9090, "targetPort": "metrics"},
                ],
            },
        },
    )
    return sim_cluster


def test_slices_grouped_by_resolved_ports(multi):
    out = json.loads(
        kubectl(multi, "get", "endpointslices", "-n", NS, "-l", "kubernetes.io/service-name=multi", "-o", "json")
    )
    svc = json.loads(kubectl(multi, "get", "service", "multi", "-n", NS, "-o", "json"))
    by_ports = {}
    for s in out["items"]:
        ports = tuple(sorted((p["name"], p["port"]) for p in s["ports"]))
        by_ports[ports] = sorted(e["targetRef"]["name"] for e in s["endpoints"])
        assert s["metadata"]["labels"]["kubernetes.io/service-name"] == "multi"
        assert s["metadata"]["name"].startswith("multi-")
    assert by_ports == {(("http", 7001),): ["a-7001"], (("http", 7000), ("metrics", 9090)): ["b-7000", "c-7000"]}, out
    uids = [s["metadata"]["uid"] for s in out["items"]]
    names = [s["metadata"]["name"] for s in out["items"]]
    assert len(set(uids)) == 2 and svc["metadata"]["uid"] not in uids
    assert len(set(names)) == 2
    # A computed view, but a stable one: the same names and uids on the next read.
    again = json.loads(
        kubectl(multi, "get", "endpointslices", "-n", NS, "-l", "kubernetes.io/service-name=multi", "-o", "json")
    )
    assert sorted(uids) == sorted(s["metadata"]["uid"] for s in again["items"])
    one = kubectl(multi, "get", "endpointslice", names[0], "-n", NS, "-o", "yaml")
    assert f"name: {names[0]}" in one


def test_endpoints_subsets_grouped_the_same_way(multi):
    ep = json.loads(kubectl(multi, "get", "endpoints", "multi", "-n", NS, "-o", "json"))
    subsets = {
        tuple(sorted((p["name"], p["port"]) for p in s["ports"])): sorted(
            a["targetRef"]["name"] for a in s["addresses"]
        )
        for s in ep["subsets"]
    }
    assert subsets == {(("http", 7001),): ["a-7001"], (("http", 7000), ("metrics", 9090)): ["b-7000", "c-7000"]}, ep
