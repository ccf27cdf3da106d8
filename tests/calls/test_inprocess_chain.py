"""A chain of k32_http_calls between control-plane pods runs in-process, each hop on the
thread that started the chain. The call rules let a chain grow to 8 callers and fail the
next call with K32_ERR_LOOP; the thread that starts the chain (a pod-server connection or
an Ingress connection) must have the native stack for all of it, so no hop on the way ends
with K32_ERR_NOMEM.

Pods hop-1 .. hop-8 each call the Service of the next one (PROBE_URL) and answer with the
call's result followed by the answer they got, so one response shows every hop; `end`
answers "done" and is the 9th pod (the target of the 8th hop)."""

import http.client
import json
import time

import pytest
import yaml

from k32.testing.clusters import make_test_cluster
from k32.testing.poll import wait_until

CP = {"node-role.kubernetes.io/control-plane": ""}
HOPS = 8  # callers in the longest chain the call rules allow (boards/common.yaml CALL_CHAIN_MAX)
LOOP = -40  # K32_ERR_LOOP
NOMEM = -12  # K32_ERR_NOMEM


def svc(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": "http"}]},
    }


def objects() -> str:
    docs = []
    for i in range(1, HOPS + 1):
        name = f"hop-{i}"
        nxt = f"hop-{i + 1}" if i < HOPS else "end"
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
                "spec": {
                    "nodeSelector": CP,
                    "containers": [
                        {
                            "name": "relay",
                            "image": "wasm://embedded/egress-probe",
                            "ports": [{"containerPort": 7000, "name": "http"}],
                            "env": [{"name": "PROBE_URL", "value": f"http://{nxt}/"}],
                            "resources": {"limits": {"memory": "64Ki"}},
                            "securityContext": {"capabilities": {"add": ["SERVICE_CALL"]}},
                        }
                    ],
                },
            }
        )
        docs.append(svc(name))
    docs.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "end", "namespace": "default", "labels": {"app": "end"}},
            "spec": {
                "nodeSelector": CP,
                "containers": [
                    {
                        "name": "end",
                        "image": "wasm://embedded/slow",
                        "ports": [{"containerPort": 7000, "name": "http"}],
                        "env": [{"name": "SLOW_MS", "value": "0"}],
                        "resources": {"limits": {"memory": "64Ki"}},
                    }
                ],
            },
        }
    )
    docs.append(svc("end"))
    docs.append(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": "chain", "namespace": "default"},
            "spec": {
                "rules": [
                    {
                        "http": {
                            "paths": [
                                {
                                    "path": "/",
                                    "pathType": "Prefix",
                                    "backend": {"service": {"name": "hop-1", "port": {"number": 80}}},
                                }
                            ]
                        }
                    }
                ]
            },
        }
    )
    return yaml.safe_dump_all(docs)


# The simulator's own profile and the control-plane board's (board mode: the node runs with
# the s3's stack budgets, the in-process call's 16 KiB among them).
@pytest.fixture(scope="module", params=["sim", "s3"])
def cluster(request, tmp_path_factory):
    c = make_test_cluster(tmp_path_factory.mktemp("chain"), workers=0, board=request.param)
    c.up()
    try:
        # One try: `up` returns once the API server answers, and a busy node refuses with 503
        # and Retry-After, which kubectl retries by itself.
        proc = c.kubectl("apply", "-f", "-", input=objects())
        assert proc.returncode == 0, proc.stderr

        def all_running():
            out = c.kubectl("get", "pods", "-o", "json")
            items = json.loads(out.stdout)["items"] if out.returncode == 0 else []
            return len(items) == HOPS + 1 and all(p.get("status", {}).get("phase") == "Running" for p in items)

        wait_until(all_running, 90, 0.5)
        yield c
    finally:
        c.down()


def cp_node(cluster) -> dict:
    return next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")


def pod_call(cluster, pod: str) -> str:
    cp = cp_node(cluster)
    conn = http.client.HTTPConnection(cp["ip"], cp["podPort"], timeout=60)
    conn.request("GET", "/", headers={"X-Kube32-Pod": f"default/{pod}"})
    r = conn.getresponse()
    body = r.read().decode(errors="replace")
    conn.close()
    assert r.status == 200, body
    return body


def ingress_call(cluster) -> str:
    cp = cp_node(cluster)
    deadline = time.monotonic() + 60
    while True:  # the route table is rebuilt on a tick after the Ingress is written
        conn = http.client.HTTPConnection(cp["ip"], cp["ingressPort"], timeout=60)
        conn.request("GET", "/")
        r = conn.getresponse()
        body = r.read().decode(errors="replace")
        conn.close()
        if r.status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert r.status == 200, body
    return body


def results(body: str) -> list[int]:
    """The rc of every hop, first hop first ("rc=200 status=200" lines)."""
    return [int(line.split()[0][3:]) for line in body.splitlines() if line.startswith("rc=")]


@pytest.mark.parametrize("entry", ["pod server", "ingress"])
def test_chain_of_eight_ends_with_loop_not_nomem(cluster, entry):
    body = pod_call(cluster, "hop-1") if entry == "pod server" else ingress_call(cluster)
    rcs = results(body)
    assert NOMEM not in rcs, body
    # hops 1..7 (hop-1 -> hop-2 ... hop-7 -> hop-8) answer; hop-8 -> end is the 8th: LOOP.
    assert rcs == [200] * (HOPS - 1) + [LOOP], body


def test_chain_of_seven_reaches_its_end(cluster):
    # Entered at hop-2, the same pods make a chain of 7 callers: every hop, `end` included, answers.
    body = pod_call(cluster, "hop-2")
    assert results(body) == [200] * (HOPS - 1), body
    assert body.rstrip().endswith("done"), body
