"""Details where Kube32 followed Kubernetes less closely than kubectl users notice: the QoS
class of a pod, which pod spec fields an update may change, duplicate Service port names,
and how long ConfigMap and Secret names may be."""

import json

import pytest
from api_helpers import kubectl, namespace

from k32.testing.poll import wait_until

NS = "e2e-details"


@pytest.fixture(scope="module")
def ns(sim_cluster):
    namespace(sim_cluster, NS)
    return sim_cluster


def pod(name, resources=None, env=None, image="wasm://embedded/hello"):
    c = {"name": "c", "image": image, "env": env or [{"name": "A", "value": "1"}]}
    if resources:
        c["resources"] = resources
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"restartPolicy": "Never", "containers": [c]},
        }
    )


def get_pod(cluster, name):
    return json.loads(kubectl(cluster, "get", "pod", name, "-n", NS, "-o", "json"))


@pytest.mark.slow
def test_qos_class_follows_resources_and_survives_the_kubelet(ns):
    kubectl(ns, "apply", "-f", "-", input=pod("qos-none", image="wasm://embedded/grower"))
    kubectl(ns, "apply", "-f", "-", input=pod("qos-burst", {"requests": {"memory": "64Ki"}}))
    # grower grows its memory: its request is its limit. (hello never grows: the API server
    # defaults its request to the little it can reach, and a pod with only limits is Burstable.)
    guaranteed = pod("qos-guar", {"limits": {"memory": "64Ki", "cpu": "100m"}}, image="wasm://embedded/grower")
    kubectl(ns, "apply", "-f", "-", input=guaranteed)
    kubectl(ns, "apply", "-f", "-", input=pod("qos-small", {"limits": {"memory": "64Ki", "cpu": "100m"}}))
    # The kubelet writes status once it has the pod; the class must stay what the API set.
    wait_until(lambda: get_pod(ns, "qos-none")["status"].get("containerStatuses"), 60, 0.5)
    assert get_pod(ns, "qos-none")["status"].get("containerStatuses"), get_pod(ns, "qos-none")
    assert get_pod(ns, "qos-none")["status"]["qosClass"] == "BestEffort"
    assert get_pod(ns, "qos-burst")["status"]["qosClass"] == "Burstable"
    assert get_pod(ns, "qos-guar")["status"]["qosClass"] == "Guaranteed"
    small = get_pod(ns, "qos-small")
    assert small["status"]["qosClass"] == "Burstable", small
    assert small["spec"]["containers"][0]["resources"]["requests"]["memory"].endswith("Ki"), small["spec"]


def test_pod_spec_fields_are_immutable_but_image(ns):
    kubectl(ns, "apply", "-f", "-", input=pod("frozen"))
    proc = ns.kubectl(
        "patch",
        "pod",
        "frozen",
        "-n",
        NS,
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/spec/containers/0/env/0/value","value":"2"}]',
    )
    assert proc.returncode != 0
    assert "pod updates may not change fields other than" in proc.stderr, proc.stderr
    # The image is one of the fields an update may change.
    kubectl(
        ns,
        "patch",
        "pod",
        "frozen",
        "-n",
        NS,
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/spec/containers/0/image","value":"wasm://embedded/printenv"}]',
    )
    assert get_pod(ns, "frozen")["spec"]["containers"][0]["image"] == "wasm://embedded/printenv"


def test_duplicate_service_port_names_are_invalid(ns):
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "dup", "namespace": NS},
        "spec": {"selector": {"app": "x"}, "ports": [{"name": "web", "port": 80}, {"name": "web", "port": 81}]},
    }
    proc = ns.kubectl("apply", "-f", "-", input=json.dumps(svc))
    assert proc.returncode != 0
    assert 'spec.ports[1].name: Duplicate value: "web"' in proc.stderr, proc.stderr


def test_configmap_and_secret_names_up_to_253_characters(ns):
    long_name = "c" * 200
    kubectl(ns, "create", "configmap", long_name, "-n", NS, "--from-literal=a=1")
    kubectl(ns, "create", "secret", "generic", "s" * 253, "-n", NS, "--from-literal=a=1")
    proc = ns.kubectl("create", "configmap", "c" * 254, "-n", NS)
    assert proc.returncode != 0 and "RFC 1123 subdomain" in proc.stderr, proc.stderr


def test_network_policy_selector_keys_are_validated(ns):
    pol = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "badkey", "namespace": NS},
        "spec": {
            "podSelector": {"matchLabels": {"bad key!": "x"}},
            "egress": [{"to": [{"podSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}]}],
        },
    }
    proc = ns.kubectl("apply", "-f", "-", input=json.dumps(pol))
    assert proc.returncode != 0
    assert "spec.podSelector.matchLabels" in proc.stderr and "bad key!" in proc.stderr, proc.stderr
    assert "spec.egress[0].to[0].podSelector.matchExpressions[0].values: Required value" in proc.stderr, proc.stderr
