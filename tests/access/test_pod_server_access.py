"""Who may route a request to a pod: the ingress drops every client-sent X-Kube32-* header
(a client could pick any control-plane pod with X-Kube32-Pod, or fake a call chain), and a
node's pod server (X-Kube32-Pod routing, /kube32/logs) serves nodes of the cluster only:
with a token the request must carry it, without one it must come from a Node's InternalIP.
Over real sockets against simulated clusters, kubectl for the logs a user reads."""

import pytest
from access_helpers import (
    CP,
    POD_START_S,
    W1,
    echo_pod,
    ingress,
    ingress_get,
    loopback_alias_usable,
    pod_server,
    probe_pod,
    service,
    serving_cluster,
    wait_until,
)

TOKEN = "node-Access_tok3n"
STRANGER = "127.0.0.99"  # a loopback address no node of the cluster has


@pytest.fixture(scope="module")
def open_cluster(tmp_path_factory):
    objs = (
        echo_pod("exposed", CP, "greeting-exposed"),
        echo_pod("hidden", CP, "greeting-hidden"),
        echo_pod("hidden-w", W1, "greeting-hidden-worker"),
        probe_pod("prober", CP, {"app": "prober"}),
        service("exposed", {"app": "exposed"}),
        service("prober", {"app": "prober"}),
        ingress("exposed", "/exposed", "exposed"),
        ingress("prober", "/prober", "prober"),
    )
    with serving_cluster(tmp_path_factory, "access-open", objs, ["/exposed", "/prober?url=http://127.0.0.1:9/"]) as c:
        assert wait_until(
            lambda: pod_server(c, W1, headers={"X-Kube32-Pod": "default/hidden-w"})[0] == 200, POD_START_S
        )
        yield c


@pytest.mark.parametrize("name", ["X-Kube32-Pod", "x-kube32-pod", "X-KUBE32-POD"])
def test_ingress_client_cannot_pick_a_pod(open_cluster, name):
    status, _, body = ingress_get(open_cluster, "/exposed", {name: "default/hidden"})
    assert status == 200
    assert "greeting-exposed" in body and "greeting-hidden" not in body, body


def test_ingress_client_cannot_fake_a_call_chain(open_cluster):
    # The prober calls Service "exposed"; a chain naming default/exposed would make that a
    # loop (K32_ERR_LOOP, rc=-40) if the ingress passed the client's header on.
    fake = {"X-Kube32-Call-Chain": "default/exposed,default/prober"}
    status, _, body = ingress_get(open_cluster, "/prober?url=http://exposed/", fake)
    assert status == 200 and body.startswith("rc=200 status=200"), body
    assert "greeting-exposed" in body


@pytest.mark.skipif(not loopback_alias_usable(STRANGER), reason="needs 127/8 loopback aliases (Linux)")
def test_without_token_only_node_addresses_reach_a_pod_server(open_cluster):
    for node, pod in ((W1, "default/hidden-w"), (CP, "default/hidden")):
        status, hdrs, body = pod_server(open_cluster, node, headers={"X-Kube32-Pod": pod}, source=STRANGER)
        assert status == 403, (node, status, body)
        assert "not the InternalIP of a Node" in body and hdrs.get("x-kube32-result") == "-1"
        status, _, body = pod_server(open_cluster, node, f"/kube32/logs?pod={pod}", source=STRANGER)
        assert status == 403 and "greeting" not in body, body
    # The control plane's address is a Node's InternalIP: it is let in.
    cp_ip = next(n["ip"] for n in open_cluster.status()["nodes"] if n["name"] == CP)
    status, _, body = pod_server(open_cluster, W1, headers={"X-Kube32-Pod": "default/hidden-w"}, source=cp_ip)
    assert status == 200 and "greeting-hidden-worker" in body


@pytest.fixture(scope="module")
def token_cluster(tmp_path_factory):
    objs = (
        echo_pod("echo-w", W1, "greeting-worker"),
        echo_pod("echo-cp", CP, "greeting-cp"),
        probe_pod("prober", CP, {"app": "prober"}),
        probe_pod("prober-w", W1, {"app": "prober-w"}),
        service("echo-w", {"app": "echo-w"}),
        service("echo-cp", {"app": "echo-cp"}),
        ingress("echo-w", "/echo-w", "echo-w"),
    )
    with serving_cluster(tmp_path_factory, "access-token", objs, ["/echo-w"], token=TOKEN) as c:
        for node, pod in ((CP, "default/prober"), (W1, "default/prober-w")):
            assert wait_until(
                lambda n=node, p=pod: (
                    pod_server(c, n, "/?url=http://127.0.0.1:9/", headers={"X-Kube32-Pod": p, "X-Kube32-Token": TOKEN})[
                        0
                    ]
                    == 200
                ),
                POD_START_S,
            )
        yield c


def test_token_mode_logs_need_the_token(token_cluster):
    logs = "/kube32/logs?pod=default/echo-w"
    # The API refuses the same logs without the token; the worker must too.
    assert token_cluster.request("GET", "/api/v1/namespaces/default/pods/echo-w/log", token=None)[0] == 401
    for headers in ({}, {"X-Kube32-Token": "wrong"}, {"Authorization": f"Bearer {TOKEN}"}):
        status, hdrs, body = pod_server(token_cluster, W1, logs, headers)
        assert status == 401, (headers, status, body)
        assert "X-Kube32-Token" in body and hdrs.get("x-kube32-result") == "-1"
    assert pod_server(token_cluster, W1, logs, {"X-Kube32-Token": TOKEN})[0] == 200
    # kubectl logs: the control plane proxies to the worker with the token.
    p = token_cluster.kubectl("logs", "echo-w")
    assert p.returncode == 0, p.stderr


def test_token_mode_pod_routing_needs_the_token(token_cluster):
    for node, pod in ((W1, "default/echo-w"), (CP, "default/echo-cp")):
        status, _, body = pod_server(token_cluster, node, headers={"X-Kube32-Pod": pod})
        assert status == 401 and "greeting" not in body, (node, body)
        status, _, body = pod_server(token_cluster, node, headers={"X-Kube32-Pod": pod, "X-Kube32-Token": TOKEN})
        assert status == 200 and "greeting" in body, (node, body)


def test_token_mode_nodes_still_reach_each_other(token_cluster):
    # ingress -> worker pod (relay), control plane pod -> worker pod and worker pod ->
    # control plane pod (service calls): each hop carries the token.
    status, _, body = ingress_get(token_cluster, "/echo-w", {"X-Kube32-Token": "client-made-up"})
    assert status == 200 and "greeting-worker" in body, body
    auth = {"X-Kube32-Token": TOKEN}
    status, _, body = pod_server(token_cluster, CP, "/?url=http://echo-w/", {"X-Kube32-Pod": "default/prober", **auth})
    assert status == 200 and body.startswith("rc=200 status=200") and "greeting-worker" in body, body
    status, _, body = pod_server(
        token_cluster, W1, "/?url=http://echo-cp/", {"X-Kube32-Pod": "default/prober-w", **auth}
    )
    assert status == 200 and body.startswith("rc=200 status=200") and "greeting-cp" in body, body
