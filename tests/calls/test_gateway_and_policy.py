"""NetworkPolicy on the call path ([NETPOL] lines) and the egress gateway: a worker's
https:// calls through `k32-call gateway`, its authorisation with and without a token,
limit+1 streaming, BUSY as 503, and K32_ERR_NOTSUP from a server without the gateway."""

import json
import subprocess

import pytest
from calls_helpers import free_port, run_call

PERM, TOOBIG, BUSY, NOTSUP, CERT = -1, -7, -16, -95, -129


def example_policy(port=8000):
    """The examples/egress-policy.yaml policy (with the allowed port as given)."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "egress-probe", "namespace": "default"},
        "spec": {
            "podSelector": {"matchLabels": {"app": "egress-probe"}},
            "policyTypes": ["Egress"],
            "egress": [
                {
                    "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["192.168.4.0/24"]}}],
                    "ports": [{"protocol": "TCP", "port": port}],
                }
            ],
        },
    }


def probe_pod(node="w1"):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "egress-probe", "namespace": "default", "labels": {"app": "egress-probe"}},
        "spec": {"nodeName": node, "containers": [{"name": "probe", "image": "wasm://embedded/egress-probe"}]},
    }


def node(name="w1", ip="127.0.0.1"):
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"addresses": [{"type": "InternalIP", "address": ip}]},
    }


def write_objects(tmp_path, objs):
    p = tmp_path / "objects.json"
    p.write_text(json.dumps(objs))
    return str(p)


def test_policy_allows_the_port_and_denies_others(k32_call, http_server, tmp_path):
    objs = write_objects(tmp_path, [probe_pod(), example_policy(port=http_server.port)])
    [r], err = run_call(
        k32_call, f"http://127.0.0.1:{http_server.port}/ok", "--objects", objs, "--pod", "default/egress-probe"
    )
    assert r.rc == 200, err
    other = free_port()
    [r], err = run_call(k32_call, f"http://127.0.0.1:{other}/ok", "--objects", objs, "--pod", "default/egress-probe")
    assert r.rc == PERM
    assert f"[NETPOL] default/egress-probe -> http://127.0.0.1:{other} denied: " in err
    # Pods the policy does not select are not restricted (CONNREFUSED: the connection was tried).
    [r], _ = run_call(k32_call, f"http://127.0.0.1:{other}/ok", "--objects", objs, "--pod", "default/someone-else")
    assert r.rc == -111


def test_netpol_log_is_rate_limited(k32_call, tmp_path):
    objs = write_objects(tmp_path, [probe_pod(), example_policy()])
    rs, err = run_call(
        k32_call, "http://127.0.0.1:9/", "--objects", objs, "--pod", "default/egress-probe", "--repeat", "5"
    )
    assert [r.rc for r in rs] == [PERM] * 5
    assert err.count("[NETPOL]") == 1


class Gateway:
    def __init__(self, binary, objects, pki, token=None):
        self.port = free_port()
        args = [str(binary), "gateway", "--port", str(self.port), "--objects", objects, "--ca", str(pki.ca_pem)]
        if token:
            args += ["--token", token]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("ready"), self.proc.stderr.read()

    def stop(self) -> str:
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=10)
        return err


@pytest.fixture
def gateway_factory(k32_call, pki):
    made = []

    def make(objects, token=None):
        g = Gateway(k32_call, objects, pki, token)
        made.append(g)
        return g

    yield make
    for g in made:
        if g.proc.poll() is None:
            g.stop()


def worker_call(k32_call, gw, url, *args):
    return run_call(
        k32_call, url, "--worker", "--gateway", f"127.0.0.1:{gw.port}", "--pod", "default/egress-probe", *args
    )


def test_gateway_without_token_accepts_the_pods_node(k32_call, https_servers, gateway_factory, tmp_path):
    s = https_servers["good"]
    gw = gateway_factory(write_objects(tmp_path, [probe_pod(), node()]))
    [r], err = worker_call(k32_call, gw, f"https://localhost:{s.port}/ok")
    assert (r.rc, r.status, r.body) == (200, 200, "hello"), err
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/big", "--cap", "100")
    assert (r.rc, r.status, r.len) == (TOOBIG, 200, 100)
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/chunked")
    assert (r.rc, r.body) == (200, "hello world")
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{https_servers['expired'].port}/ok")
    assert r.rc == CERT
    assert "certificate rejected" in gw.stop()


def test_gateway_refusals_without_token(k32_call, https_servers, gateway_factory, tmp_path):
    s = https_servers["good"]
    gw = gateway_factory(write_objects(tmp_path, [probe_pod(node="w2"), node("w2", "10.9.9.9")]))
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/ok")
    assert r.rc == PERM
    [r], _ = run_call(
        k32_call,
        f"https://localhost:{s.port}/ok",
        "--worker",
        "--gateway",
        f"127.0.0.1:{gw.port}",
        "--pod",
        "default/ghost",
    )
    assert r.rc == PERM
    err = gw.stop()
    assert "[EGRESS] gateway refused 127.0.0.1 (pod default/egress-probe): not the InternalIP of node w2" in err
    unbound = probe_pod(node="")
    gw2 = gateway_factory(write_objects(tmp_path, [unbound, node()]))
    [r], _ = worker_call(k32_call, gw2, f"https://localhost:{s.port}/ok")
    assert r.rc == PERM
    assert "pod is not bound to a node" in gw2.stop()


def test_gateway_with_token(k32_call, https_servers, gateway_factory, tmp_path):
    s = https_servers["good"]
    # With a token, any holder may name any pod: the node's address does not matter.
    gw = gateway_factory(write_objects(tmp_path, [probe_pod(node="w2"), node("w2", "10.9.9.9")]), token="s3cret")
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/ok", "--token", "s3cret")
    assert r.rc == 200
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/ok", "--token", "wrong")
    assert r.rc == PERM
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/ok")
    assert r.rc == PERM
    # The gateway judges the token itself, so its refusal is logged like the others.
    assert "[EGRESS] gateway refused 127.0.0.1 (pod default/egress-probe): missing or wrong bearer token" in gw.stop()


def test_gateway_checks_network_policy(k32_call, https_servers, gateway_factory, tmp_path):
    s = https_servers["good"]
    gw = gateway_factory(write_objects(tmp_path, [probe_pod(), node(), example_policy()]))
    [r], _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/ok")
    assert r.rc == PERM
    assert f"[NETPOL] default/egress-probe -> https://localhost:{s.port} denied: " in gw.stop()


@pytest.mark.slow
def test_gateway_busy_is_503(k32_call, https_servers, gateway_factory, tmp_path):
    s = https_servers["good"]
    gw = gateway_factory(write_objects(tmp_path, [probe_pod(), node()]))
    rs, _ = worker_call(k32_call, gw, f"https://localhost:{s.port}/slow", "--parallel", "3", "--timeout", "10000")
    assert sorted(r.rc for r in rs) == [BUSY, 200, 200]


def test_server_without_gateway_is_notsup(k32_call, http_server):
    # The plain test server answers 404 on the egress path, as an API server without it does.
    [r], _ = run_call(
        k32_call,
        "https://localhost/x",
        "--worker",
        "--gateway",
        f"127.0.0.1:{http_server.port}",
        "--pod",
        "default/egress-probe",
    )
    assert r.rc == NOTSUP


def test_worker_without_gateway_is_notsup(k32_call):
    [r], _ = run_call(k32_call, "https://localhost/x", "--worker")
    assert r.rc == NOTSUP


def test_unreachable_control_plane_is_io(k32_call):
    [r], _ = run_call(k32_call, "https://localhost/x", "--worker", "--gateway", f"127.0.0.1:{free_port()}")
    assert r.rc == -5
