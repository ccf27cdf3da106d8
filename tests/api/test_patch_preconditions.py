"""Optimistic concurrency on PATCH: a resourceVersion the patch itself sets is a precondition
(409 Conflict when stale, as kube-apiserver answers), one it leaves alone is not."""

import json

import pytest
from api_helpers import kubectl, namespace

NS = "patch-preconditions"


@pytest.fixture
def ns(sim_cluster):
    namespace(sim_cluster, NS)
    return NS


def create_config_map(cluster, ns, name):
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    return json.loads(kubectl(cluster, "create", "-n", ns, "-o", "json", "-f", "-", input=json.dumps(obj)))["metadata"]


@pytest.mark.parametrize(
    "content_type, patch",
    [
        ("application/merge-patch+json", lambda rv: {"metadata": {"resourceVersion": rv}, "data": {"k": "w"}}),
        (
            "application/strategic-merge-patch+json",
            lambda rv: {"metadata": {"resourceVersion": rv}, "data": {"k": "w"}},
        ),
        (
            "application/json-patch+json",
            lambda rv: [
                {"op": "replace", "path": "/metadata/resourceVersion", "value": rv},
                {"op": "replace", "path": "/data/k", "value": "w"},
            ],
        ),
    ],
)
def test_patch_with_resource_version_is_a_precondition(sim_cluster, ns, content_type, patch):
    """A patch that sets metadata.resourceVersion applies to that version only: a stale one
    gets 409 Conflict and changes nothing, the current one applies (kube-apiserver; what
    `kubectl label --resource-version` and an apply of a file holding one rely on)."""
    name = "pinned-" + content_type.split("/")[1].split("+")[0]
    md = create_config_map(sim_cluster, ns, name)
    path = f"/api/v1/namespaces/{ns}/configmaps/{name}"
    stale = md["resourceVersion"]
    kubectl(sim_cluster, "label", "configmap", name, "-n", ns, "moved=yes")  # a newer version
    headers = {"Content-Type": content_type}
    status, _, body = sim_cluster.request("PATCH", path, json.dumps(patch(stale)), headers=headers)
    assert status == 409 and b"the object has been modified" in body, (status, body)
    current = json.loads(kubectl(sim_cluster, "get", "configmap", name, "-n", ns, "-o", "json"))
    assert current["data"] == {"k": "v"}
    status, _, body = sim_cluster.request(
        "PATCH", path, json.dumps(patch(current["metadata"]["resourceVersion"])), headers=headers
    )
    assert status == 200 and json.loads(body)["data"] == {"k": "w"}, (status, body)
    p = sim_cluster.kubectl("label", "configmap", name, "-n", ns, "again=yes", f"--resource-version={stale}")
    assert p.returncode != 0 and "the object has been modified" in p.stderr, p.stderr
