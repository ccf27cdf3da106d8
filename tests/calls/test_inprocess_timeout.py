"""A k32_http_call's timeout covers all of the call: a control-plane pod calling a Service
whose backend is another control-plane pod (run on the caller's thread) gets
K32_ERR_TIMEOUT once its timeout passes, not the answer of a handler that worked longer (the
slow pod is stopped in that request only and keeps serving); a worker's Service lookup
through an API server that does not answer ends at the same timeout."""

import http.client
import json
import os
import signal
import time

import pytest
import yaml

from k32.testing.poll import wait_until

SLOW_MS = 8000
DEFAULT_TIMEOUT_MS = 5000  # the probe passes timeout_ms 0
API_CLIENT_TIMEOUT_MS = 10000  # a node's own API client (kubelet/api_client.h, kDefaultTimeoutMs)


def pods():
    cp = {"node-role.kubernetes.io/control-plane": ""}
    probe = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "probe", "namespace": "default", "labels": {"app": "probe"}},
        "spec": {
            "nodeSelector": cp,
            "containers": [
                {
                    "name": "probe",
                    "image": "wasm://embedded/egress-probe",
                    "ports": [{"containerPort": 7000, "name": "http"}],
                    "env": [{"name": "PROBE_URL", "value": "http://slow/"}],
                    "resources": {"limits": {"memory": "64Ki"}},
                    "securityContext": {"capabilities": {"add": ["SERVICE_CALL"]}},
                }
            ],
        },
    }
    slow = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "slow", "namespace": "default", "labels": {"app": "slow"}},
        "spec": {
            "nodeSelector": cp,
            "containers": [
                {
                    "name": "slow",
                    "image": "wasm://embedded/slow",
                    "ports": [{"containerPort": 7000, "name": "http"}],
                    "env": [{"name": "SLOW_MS", "value": str(SLOW_MS)}],
                    "resources": {"limits": {"memory": "64Ki"}},
                }
            ],
        },
    }
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "slow", "namespace": "default"},
        "spec": {"selector": {"app": "slow"}, "ports": [{"port": 80, "targetPort": "http"}]},
    }
    return yaml.safe_dump_all([probe, slow, svc])


def ask(cluster, pod: str, timeout: float = 30) -> str:
    cp = next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")
    conn = http.client.HTTPConnection(cp["ip"], cp["podPort"], timeout=timeout)
    conn.request("GET", "/", headers={"X-Kube32-Pod": f"default/{pod}"})
    r = conn.getresponse()
    body = r.read().decode(errors="replace")
    conn.close()
    return f"{r.status} {body}"


@pytest.fixture
def cluster(sim_factory):
    c = sim_factory(workers=0)
    c.up()
    proc = c.kubectl("apply", "-f", "-", input=pods())
    assert proc.returncode == 0, proc.stderr

    def all_running():
        out = c.kubectl("get", "pods", "-o", "json")
        items = json.loads(out.stdout)["items"] if out.returncode == 0 else []
        return len(items) == 2 and all(p.get("status", {}).get("phase") == "Running" for p in items)

    wait_until(all_running, 60, 0.5)
    return c


def restarts(cluster, pod):
    out = cluster.kubectl("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].restartCount}")
    return out.stdout.strip()


@pytest.mark.slow
def test_in_process_call_stops_at_the_callers_timeout(cluster):
    start = time.monotonic()
    answer = ask(cluster, "probe")
    took = time.monotonic() - start
    assert answer.startswith("200 rc=-110 "), answer
    # Not before the timeout, and before slow's answer would have come (the upper bound is the
    # order of two events, so a loaded machine's slower request does not move it).
    assert DEFAULT_TIMEOUT_MS / 1000 - 0.5 <= took < SLOW_MS / 1000, took
    # The slow pod was stopped in that request only: it is not restarted and still answers.
    assert restarts(cluster, "slow") == "0"
    start = time.monotonic()
    assert ask(cluster, "slow") == "200 done\n"
    assert time.monotonic() - start >= SLOW_MS / 1000 - 0.5


@pytest.mark.slow
def test_worker_service_lookup_stops_at_the_callers_timeout(sim_factory):
    """A worker resolves Services through the API; with the control plane not answering, the
    lookup ends at the call's timeout (TIMEOUT), not after the API client's own 10 s."""
    c = sim_factory(workers=1)
    c.up()
    probe = next(yaml.safe_load_all(pods()))
    probe["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "kube32-worker-1"}
    proc = c.kubectl("apply", "-f", "-", input=yaml.safe_dump(probe))
    assert proc.returncode == 0, proc.stderr
    worker = next(n for n in c.status()["nodes"] if n["name"] == "kube32-worker-1")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        out = c.kubectl("get", "pod", "probe", "-o", "jsonpath={.status.phase}")
        if out.stdout == "Running":
            break
        time.sleep(0.5)
    cp = next(n for n in c.status()["nodes"] if n["role"] == "control-plane")
    os.kill(int(cp["pid"]), signal.SIGSTOP)
    try:
        conn = http.client.HTTPConnection(worker["ip"], worker["podPort"], timeout=30)
        start = time.monotonic()
        conn.request("GET", "/", headers={"X-Kube32-Pod": "default/probe"})
        body = conn.getresponse().read().decode(errors="replace")
        took = time.monotonic() - start
        conn.close()
    finally:
        os.kill(int(cp["pid"]), signal.SIGCONT)
    assert body.startswith("rc=-110 "), body
    # Before the API client's own timeout would have ended it (the margin is for a loaded machine).
    assert took < API_CLIENT_TIMEOUT_MS / 1000 - 0.5, took
