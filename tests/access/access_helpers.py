"""Helpers for the access-control tests: pods pinned to a node, raw HTTP to a node's pod
server (optionally from a chosen loopback source address), polling, and a one-worker cluster
serving a test's objects."""

import contextlib
import http.client
import json
import socket

from k32.testing import poll

CP = "kube32-control-plane"
W1 = "kube32-worker-1"
POD_START_S = 60


def nodes(cluster) -> dict:
    return {n["name"]: n for n in cluster.status()["nodes"]}


def echo_pod(name: str, node: str, greeting: str, labels: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": name}},
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "echo",
                    "image": "wasm://embedded/echo",
                    "ports": [{"containerPort": 7000, "name": "http"}],
                    "env": [{"name": "GREETING", "value": greeting}],
                    "resources": {"limits": {"memory": "64Ki"}},
                }
            ],
        },
    }


def probe_pod(name: str, node: str, labels: dict, ns: str = "default", url: str | None = None) -> dict:
    env = [{"name": "PROBE_URL", "value": url}] if url else []
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "probe",
                    "image": "wasm://embedded/egress-probe",
                    "ports": [{"containerPort": 7000, "name": "http"}],
                    "env": env,
                    "resources": {"limits": {"memory": "64Ki"}},
                    "securityContext": {"capabilities": {"add": ["SERVICE_CALL"]}},
                }
            ],
        },
    }


def service(name: str, selector: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": selector, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
    }


def ingress(name: str, path: str, svc: str) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "rules": [
                {
                    "http": {
                        "paths": [
                            {
                                "path": path,
                                "pathType": "Prefix",
                                "backend": {"service": {"name": svc, "port": {"number": 80}}},
                            }
                        ]
                    }
                }
            ]
        },
    }


def apply(cluster, *objs):
    p = cluster.kubectl("apply", "-f", "-", input="\n---\n".join(json.dumps(o) for o in objs))
    assert p.returncode == 0, p.stderr


def http_get(
    ip: str, port: int, path: str = "/", headers: dict | None = None, source: str | None = None, timeout: float = 10.0
):
    """(status, headers, body) of one GET; `source` binds the client to that address."""
    conn = http.client.HTTPConnection(ip, port, timeout=timeout, source_address=(source, 0) if source else None)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode(errors="replace")
    finally:
        conn.close()


def pod_server(cluster, node: str, path: str = "/", headers: dict | None = None, source: str | None = None):
    n = nodes(cluster)[node]
    return http_get(n["ip"], n["podPort"], path, headers, source)


def ingress_get(cluster, path: str, headers: dict | None = None):
    cp = next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")
    return http_get(cp["ip"], cp["ingressPort"], path, headers)


def wait_until(fn, timeout: float, interval: float = 0.2):
    return poll.wait_until(fn, timeout, interval)


def loopback_alias_usable(addr: str) -> bool:
    """Linux routes all of 127/8 to lo; elsewhere only 127.0.0.1 exists without aliases."""
    try:
        with socket.socket() as s:
            s.bind((addr, 0))
        return True
    except OSError:
        return False


@contextlib.contextmanager
def serving_cluster(tmp_path_factory, name: str, objs, ready_paths, **options):
    """A control plane and one worker (W1) running objs, handed over once the ingress answers
    200 on each of ready_paths; brought down afterwards. options go to make_test_cluster."""
    from k32.testing.clusters import make_test_cluster

    cluster = make_test_cluster(tmp_path_factory.mktemp(name), workers=1, **options)
    cluster.up()
    try:
        apply(cluster, *objs)
        for path in ready_paths:
            assert wait_until(lambda p=path: ingress_get(cluster, p)[0] == 200, POD_START_S), ingress_get(cluster, path)
        yield cluster
    finally:
        cluster.down()
