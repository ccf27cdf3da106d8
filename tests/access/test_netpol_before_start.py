"""NetworkPolicy on a worker is in force before a pod runs: the kubelet records a pod's
labels and loads its namespace's policies before it starts the pod. Victim pods under a
deny-all policy are created in a loop and called the moment they answer: not one call may
leave the node. Pods in brand-new namespaces (no policy) are called the same way: not one
call may be refused because the namespace's policies were "not loaded yet"."""

import time

import pytest
from access_helpers import POD_START_S, W1, apply, pod_server, probe_pod, wait_until

from k32.testing.text_server import text_server

ROUNDS = 5
CALL_WINDOW_S = 2.5  # keep calling this long after the pod first answers (the old gap was ~2 s)

DENY_ALL = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "deny-all-victims", "namespace": "default"},
    "spec": {"podSelector": {"matchLabels": {"app": "victim"}}, "policyTypes": ["Egress"], "egress": []},
}


@pytest.fixture(scope="module")
def outside():
    with text_server(b"reached the outside host") as srv:
        yield srv
    srv.server_close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from k32.testing.clusters import make_test_cluster

    c = make_test_cluster(tmp_path_factory.mktemp("netpol-start"), workers=1)
    c.up()
    yield c
    c.down()


def kicker(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "nodeName": W1,
            "restartPolicy": "Never",
            "containers": [
                {"name": "kicker", "image": "wasm://embedded/kicker", "resources": {"limits": {"memory": "64Ki"}}}
            ],
        },
    }


def kicker_ready(cluster, name: str) -> bool:
    p = cluster.kubectl("get", "pod", name, "-o", "jsonpath={.status.containerStatuses[0].ready}")
    return p.returncode == 0 and p.stdout == "true"


def create_and_wake(cluster, round_no: int, *objs):
    """Applies objs, then makes the worker's kubelet sync at once (kicker-<round> traps)."""
    name = f"kicker-{round_no}"
    apply(cluster, kicker(name))
    assert wait_until(lambda: kicker_ready(cluster, name), POD_START_S), f"{name} never ran"
    apply(cluster, *objs)
    status, _, body = pod_server(cluster, W1, headers={"X-Kube32-Pod": f"default/{name}"})
    assert status == 500 and "trap" in body, (status, body)
    cluster.kubectl("delete", "pod", name, "--wait=false")


def call_until_quiet(cluster, pod: str, ns: str = "default") -> list[str]:
    """Calls the pod through its node's pod server as fast as it answers: from before it
    runs until CALL_WINDOW_S after its first answer. Returns the probe's answers."""
    answers = []
    first = None
    deadline = time.monotonic() + POD_START_S
    while time.monotonic() < deadline:
        status, _, body = pod_server(cluster, W1, headers={"X-Kube32-Pod": f"{ns}/{pod}"})
        if status == 200:
            answers.append(body)
            first = first or time.monotonic()
        if first and time.monotonic() - first > CALL_WINDOW_S:
            break
    return answers


@pytest.mark.slow
def test_deny_all_holds_from_the_first_call(cluster, outside):
    url = f"http://127.0.0.1:{outside.server_address[1]}/"
    apply(cluster, DENY_ALL)
    leaked, answered = [], 0
    for i in range(ROUNDS):
        name = f"victim-{i}"
        create_and_wake(cluster, i, probe_pod(name, W1, {"app": "victim"}, url=url))
        answers = call_until_quiet(cluster, name)
        assert answers, f"{name} never answered"
        answered += len(answers)
        leaked += [a for a in answers if not a.startswith("rc=-1 ")]
        cluster.kubectl("delete", "pod", name, "--wait=false")
    assert leaked == [], f"{len(leaked)} of {answered} calls were not denied, e.g. {leaked[:3]}"
    assert outside.hits == 0, f"the outside host got {outside.hits} calls from deny-all pods"


@pytest.mark.slow
def test_new_namespace_calls_are_not_refused_as_not_loaded(cluster, outside):
    url = f"http://127.0.0.1:{outside.server_address[1]}/"
    refused, answered = [], 0
    for i in range(3):
        ns = f"fresh-{i}-{int(time.time())}"
        p = cluster.kubectl("create", "namespace", ns)
        assert p.returncode == 0, p.stderr
        create_and_wake(cluster, 100 + i, probe_pod("caller", W1, {"app": "caller"}, ns=ns, url=url))
        answers = call_until_quiet(cluster, "caller", ns)
        assert answers, f"{ns}/caller never answered"
        answered += len(answers)
        refused += [a for a in answers if not a.startswith("rc=200 ")]
        cluster.kubectl("delete", "namespace", ns, "--wait=false")
    assert refused == [], f"{len(refused)} of {answered} calls failed, e.g. {refused[:3]}"
