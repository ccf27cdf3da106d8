"""The garbage collector on kinds any client can own: a foreground deletion waits for the
dependents whose owner reference sets blockOwnerDeletion, and only for those (the others are
deleted too, but may outlive their owner), as kube-controller-manager's collector does.
Driven with kubectl 1.37 against the simulator."""

import json

import pytest
from api_helpers import kubectl, namespace

from k32.testing.poll import wait_until

HOLD = "example.com/hold"  # a finalizer nobody removes but the test: keeps a dependent deleting


@pytest.fixture
def ns(sim_cluster):
    name = "gc-foreground"
    namespace(sim_cluster, name)
    return name


def config_map(name, owner=None, block=None, finalizers=None):
    md = {"name": name}
    if owner:
        ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": owner["name"], "uid": owner["uid"]}
        if block is not None:
            ref["blockOwnerDeletion"] = block
        md["ownerReferences"] = [ref]
    if finalizers:
        md["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": {"k": "v"}}


def create(cluster, ns, obj):
    return json.loads(kubectl(cluster, "create", "-n", ns, "-o", "json", "-f", "-", input=json.dumps(obj)))["metadata"]


def exists(cluster, ns, name):
    return cluster.kubectl("get", "configmap", name, "-n", ns).returncode == 0


def release(cluster, ns, name):
    kubectl(cluster, "patch", "configmap", name, "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}')


@pytest.mark.slow
@pytest.mark.parametrize("block", [True, False])
def test_foreground_deletion_waits_only_for_blocking_dependents(sim_cluster, ns, block):
    owner = create(sim_cluster, ns, config_map(f"owner-{block}".lower()))
    held = create(sim_cluster, ns, config_map(f"held-{block}".lower(), owner, block=block, finalizers=[HOLD]))
    plain = create(sim_cluster, ns, config_map(f"plain-{block}".lower(), owner))  # no blockOwnerDeletion

    kubectl(sim_cluster, "delete", "configmap", owner["name"], "-n", ns, "--cascade=foreground", "--wait=false")
    # Both dependents are deleted; the held one stays (deleting) until its finalizer goes.
    assert wait_until(lambda: not exists(sim_cluster, ns, plain["name"]), 60.0, 0.2)

    def held_deleting():
        p = sim_cluster.kubectl("get", "configmap", held["name"], "-n", ns, "-o", "json")
        return p.returncode == 0 and json.loads(p.stdout)["metadata"].get("deletionTimestamp")

    assert wait_until(held_deleting, 60.0, 0.2)
    if block:
        # The owner waits, marked as deleting, with the finalizer the collector removes.
        md = json.loads(kubectl(sim_cluster, "get", "configmap", owner["name"], "-n", ns, "-o", "json"))["metadata"]
        assert md.get("deletionTimestamp") and md["finalizers"] == ["foregroundDeletion"], md
        release(sim_cluster, ns, held["name"])
        assert wait_until(lambda: not exists(sim_cluster, ns, owner["name"]), 60.0, 0.2)
    else:
        # Nothing blocks it: the owner goes while the held dependent is still there.
        assert wait_until(lambda: not exists(sim_cluster, ns, owner["name"]), 60.0, 0.2)
        assert exists(sim_cluster, ns, held["name"])
        release(sim_cluster, ns, held["name"])
    assert wait_until(lambda: not exists(sim_cluster, ns, held["name"]), 60.0, 0.2)


def test_delete_options_are_checked_for_one_object_and_for_a_collection(sim_cluster, ns, tmp_path):
    create(sim_cluster, ns, config_map("kept"))
    bad_body = tmp_path / "options.json"
    bad_body.write_text("{not json")
    for path in (f"/api/v1/namespaces/{ns}/configmaps/kept", f"/api/v1/namespaces/{ns}/configmaps"):
        p = sim_cluster.kubectl("delete", "--raw", path + "?propagationPolicy=Sometimes")
        assert p.returncode != 0 and 'Unsupported value: "Sometimes"' in p.stderr, p.stderr
        p = sim_cluster.kubectl("delete", "--raw", path, "-f", str(bad_body))
        assert p.returncode != 0 and "BadRequest" in p.stderr, p.stderr
    assert exists(sim_cluster, ns, "kept")
