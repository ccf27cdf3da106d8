"""Issue 2: the official Python `kubernetes` client lists, creates, patches (strategic, merge,
json), watches and deletes the kinds kubectl uses, against the simulated control plane."""

import threading

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

NS = "e2e-python"
STRATEGIC = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"


@pytest.fixture(scope="module")
def core(k8s_client):
    api = client.CoreV1Api(k8s_client)
    try:
        api.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
    except ApiException as e:
        if e.status != 409:
            raise
    return api


@pytest.fixture(scope="module")
def net(k8s_client, core):
    return client.NetworkingV1Api(k8s_client)


def cm(name, data, labels=None):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels), data=data)


def test_list_nodes(core):
    nodes = core.list_node().items
    assert len(nodes) == 3
    for node in nodes:
        ready = [c for c in node.status.conditions if c.type == "Ready"]
        assert ready and ready[0].status == "True", node.metadata.name


def test_create_get_list_delete_configmap(core):
    created = core.create_namespaced_config_map(NS, cm("one", {"k": "v"}, {"app": "py"}))
    assert created.metadata.uid and created.metadata.resource_version
    got = core.read_namespaced_config_map("one", NS)
    assert got.data == {"k": "v"} and got.metadata.uid == created.metadata.uid
    listed = core.list_namespaced_config_map(NS, label_selector="app=py")
    assert [i.metadata.name for i in listed.items] == ["one"]
    assert listed.metadata.resource_version
    with pytest.raises(ApiException) as err:
        core.create_namespaced_config_map(NS, cm("one", {"k": "v"}))
    assert err.value.status == 409
    core.delete_namespaced_config_map("one", NS)
    with pytest.raises(ApiException) as err:
        core.read_namespaced_config_map("one", NS)
    assert err.value.status == 404


def test_patches(core):
    core.create_namespaced_config_map(NS, cm("patched", {"a": "1", "b": "2"}, {"x": "1"}))
    rv0 = core.read_namespaced_config_map("patched", NS).metadata.resource_version

    out = core.patch_namespaced_config_map("patched", NS, {"data": {"c": "3"}}, _content_type=STRATEGIC)
    assert out.data == {"a": "1", "b": "2", "c": "3"}
    assert out.metadata.resource_version != rv0

    out = core.patch_namespaced_config_map("patched", NS, {"data": {"a": None}}, _content_type=MERGE)
    assert out.data == {"b": "2", "c": "3"}

    out = core.patch_namespaced_config_map(
        "patched",
        NS,
        [
            {"op": "replace", "path": "/data/b", "value": "20"},
            {"op": "add", "path": "/metadata/labels/y", "value": "2"},
        ],
        _content_type=JSON_PATCH,
    )
    assert out.data == {"b": "20", "c": "3"}
    assert out.metadata.labels == {"x": "1", "y": "2"}

    with pytest.raises(ApiException) as err:
        core.patch_namespaced_config_map(
            "patched", NS, [{"op": "test", "path": "/data/b", "value": "nope"}], _content_type=JSON_PATCH
        )
    assert err.value.status == 422  # kube-apiserver: a failed `test` op is Unprocessable
    core.delete_namespaced_config_map("patched", NS)


def test_strategic_patch_merges_lists_by_key(core):
    svc = client.V1Service(
        metadata=client.V1ObjectMeta(name="svc"),
        spec=client.V1ServiceSpec(
            selector={"app": "svc"}, ports=[client.V1ServicePort(name="http", port=80, target_port=7000)]
        ),
    )
    core.create_namespaced_service(NS, svc)
    out = core.patch_namespaced_service(
        "svc", NS, {"spec": {"ports": [{"name": "admin", "port": 81, "targetPort": 7001}]}}, _content_type=STRATEGIC
    )
    assert sorted(p.name for p in out.spec.ports) == ["admin", "http"]
    out = core.patch_namespaced_service(
        "svc", NS, {"spec": {"ports": [{"name": "only", "port": 82}]}}, _content_type=MERGE
    )
    assert [p.name for p in out.spec.ports] == ["only"]
    core.delete_namespaced_service("svc", NS)


def test_watch_sees_added_modified_deleted(core):
    rv = core.list_namespaced_config_map(NS).metadata.resource_version
    events = []
    w = watch.Watch()

    def consume():
        for ev in w.stream(core.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=20):
            if ev["object"].metadata.name == "watched":
                events.append(ev["type"])
            if ev["type"] == "DELETED":
                w.stop()

    t = threading.Thread(target=consume, daemon=True)
    t.start()
    core.create_namespaced_config_map(NS, cm("watched", {"k": "v"}))
    core.patch_namespaced_config_map("watched", NS, {"data": {"k": "w"}}, _content_type=MERGE)
    core.delete_namespaced_config_map("watched", NS)
    t.join(timeout=25)
    assert events == ["ADDED", "MODIFIED", "DELETED"]


def test_networking_kinds(net):
    ing = client.V1Ingress(
        metadata=client.V1ObjectMeta(name="py-ing"),
        spec=client.V1IngressSpec(
            rules=[
                client.V1IngressRule(
                    host="py.kube32.local",
                    http=client.V1HTTPIngressRuleValue(
                        paths=[
                            client.V1HTTPIngressPath(
                                path="/",
                                path_type="Prefix",
                                backend=client.V1IngressBackend(
                                    service=client.V1IngressServiceBackend(
                                        name="web", port=client.V1ServiceBackendPort(number=80)
                                    )
                                ),
                            )
                        ]
                    ),
                )
            ]
        ),
    )
    net.create_namespaced_ingress(NS, ing)
    out = net.patch_namespaced_ingress("py-ing", NS, {"metadata": {"labels": {"p": "1"}}}, _content_type=MERGE)
    assert out.metadata.labels == {"p": "1"}
    assert [i.metadata.name for i in net.list_namespaced_ingress(NS).items] == ["py-ing"]
    net.delete_namespaced_ingress("py-ing", NS)

    pol = client.V1NetworkPolicy(
        metadata=client.V1ObjectMeta(name="py-pol"),
        spec=client.V1NetworkPolicySpec(
            pod_selector=client.V1LabelSelector(match_labels={"app": "web"}),
            egress=[client.V1NetworkPolicyEgressRule(ports=[client.V1NetworkPolicyPort(port=8000)])],
        ),
    )
    created = net.create_namespaced_network_policy(NS, pol)
    # Defaults as kube-apiserver applies them (policyTypes from the rules present, protocol TCP).
    assert sorted(created.spec.policy_types) == ["Egress", "Ingress"]
    assert created.spec.egress[0].ports[0].protocol == "TCP"
    out = net.patch_namespaced_network_policy(
        "py-pol", NS, [{"op": "add", "path": "/metadata/annotations", "value": {"n": "1"}}], _content_type=JSON_PATCH
    )
    assert out.metadata.annotations == {"n": "1"}
    net.delete_namespaced_network_policy("py-pol", NS)
    assert net.list_namespaced_network_policy(NS).items == []
