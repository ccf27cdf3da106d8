"""The patch engines behind the simulated API server, driven by kubectl 1.37: server-side
apply (ownership, pruning, conflicts, --force-conflicts), client-side apply's strategic
merge patches, and server-side strict field validation."""

import json
import uuid

import pytest
import yaml


def ok(proc):
    assert proc.returncode == 0, f"kubectl failed ({proc.returncode}): {proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def kc(sim_cluster):
    ns = "e2e-patch-" + uuid.uuid4().hex[:6]

    def run(*args, input=None):
        return sim_cluster.kubectl(*args, input=input)

    # `kubectl create` sends protobuf, which Kube32 does not decode; apply sends JSON.
    ok(
        run(
            "apply",
            "-f",
            "-",
            input=yaml.safe_dump({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        )
    )
    run.ns = ns
    yield run
    run("delete", "namespace", ns, "--wait=false")


def cm(kc, name, data, labels=None):
    md = {"name": name, "namespace": kc.ns}
    if labels:
        md["labels"] = labels
    return yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data})


def get(kc, kind, name):
    return json.loads(ok(kc("get", kind, name, "-n", kc.ns, "-o", "json", "--show-managed-fields")))


def test_server_side_apply_owns_and_prunes(kc):
    ok(kc("apply", "--server-side", "-f", "-", input=cm(kc, "ssa", {"a": "1", "b": "2"}, {"team": "blue"})))
    obj = get(kc, "configmap", "ssa")
    entry = [e for e in obj["metadata"]["managedFields"] if e["operation"] == "Apply"]
    assert entry and entry[0]["manager"] == "kubectl"
    assert entry[0]["fieldsV1"] == {"f:data": {"f:a": {}, "f:b": {}}, "f:metadata": {"f:labels": {"f:team": {}}}}
    ok(kc("apply", "--server-side", "-f", "-", input=cm(kc, "ssa", {"a": "1"})))
    obj = get(kc, "configmap", "ssa")
    assert obj["data"] == {"a": "1"}
    assert "team" not in (obj["metadata"].get("labels") or {})


@pytest.mark.slow
def test_server_side_apply_conflicts(kc):
    ok(kc("apply", "--server-side", "-f", "-", input=cm(kc, "conf", {"k": "v"})))
    # Another applier takes the same field with another value (shared ownership is only
    # possible for equal values).
    ok(
        kc(
            "apply",
            "--server-side",
            "--force-conflicts",
            "--field-manager=editor",
            "-f",
            "-",
            input=cm(kc, "conf", {"k": "edited"}),
        )
    )
    r = kc("apply", "--server-side", "-f", "-", input=cm(kc, "conf", {"k": "mine"}))
    assert r.returncode != 0
    assert "conflict" in r.stderr.lower() and "editor" in r.stderr and ".data.k" in r.stderr
    ok(kc("apply", "--server-side", "--force-conflicts", "-f", "-", input=cm(kc, "conf", {"k": "mine"})))
    assert get(kc, "configmap", "conf")["data"] == {"k": "mine"}


def test_client_side_apply_three_way_pod(kc):
    # A Pod's spec is immutable but for its images (as in Kubernetes): the three-way patch
    # changes the image and nothing else.
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": kc.ns},
        "spec": {
            "containers": [
                {
                    "name": "web",
                    "image": "echo:1",
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "ports": [{"containerPort": 80}],
                }
            ]
        },
    }
    ok(kc("apply", "-f", "-", input=yaml.safe_dump(pod)))
    pod["spec"]["containers"][0]["image"] = "echo:2"
    ok(kc("apply", "-f", "-", input=yaml.safe_dump(pod)))
    live = get(kc, "pod", "web")["spec"]["containers"][0]
    assert live["image"] == "echo:2"
    assert [e["name"] for e in live["env"]] == ["A", "B"]


def test_client_side_apply_three_way_service(kc):
    # Deleting a map key, changing a list element by its merge key and adding one, all from
    # the last-applied annotation, as kubectl computes it.
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": kc.ns},
        "spec": {"selector": {"app": "web", "tier": "a"}, "ports": [{"name": "http", "port": 80, "targetPort": 7000}]},
    }
    ok(kc("apply", "-f", "-", input=yaml.safe_dump(svc)))
    svc["spec"]["selector"] = {"app": "web"}
    svc["spec"]["ports"][0]["targetPort"] = 7001
    svc["spec"]["ports"].append({"name": "metrics", "port": 9090, "targetPort": 9090})
    ok(kc("apply", "-f", "-", input=yaml.safe_dump(svc)))
    live = get(kc, "service", "web")["spec"]
    assert live["selector"] == {"app": "web"}
    ports = {p["port"]: p for p in live["ports"]}
    assert sorted(ports) == [80, 9090]
    assert ports[80]["targetPort"] == 7001


def test_strict_field_validation(kc):
    doc = yaml.safe_load(cm(kc, "strict", {"a": "1"}))
    doc["dataa"] = {"z": "1"}
    bad = yaml.safe_dump(doc)
    r = kc("apply", "--validate=strict", "-f", "-", input=bad)
    assert r.returncode != 0
    assert 'unknown field "dataa"' in r.stderr
