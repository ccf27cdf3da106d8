"""Helpers for the pod e2e tests: the pod server over real HTTP, kubectl JSON, polling."""

import http.client
import json

from k32 import REPO_ROOT
from k32.testing import poll

ECHO_EXAMPLE = REPO_ROOT / "examples" / "echo.yaml"


def nodes(cluster) -> dict:
    """name -> status entry (ip, podPort, role) of every node."""
    return {n["name"]: n for n in cluster.status()["nodes"]}


def worker_name(cluster) -> str:
    return next(n for n, v in nodes(cluster).items() if v["role"] == "worker")


def pod_request(cluster, node: str, pod: str, method="GET", path="/", body=b"", headers=None):
    n = nodes(cluster)[node]
    conn = http.client.HTTPConnection(n["ip"], n["podPort"], timeout=10)
    h = {"X-Kube32-Pod": pod, **(headers or {})}
    conn.request(method, path, body=body, headers=h)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data


def get_pod(cluster, name: str, ns="default") -> dict | None:
    p = cluster.kubectl("get", "pod", name, "-n", ns, "-o", "json")
    return json.loads(p.stdout) if p.returncode == 0 else None


def apply(cluster, manifest: str):
    p = cluster.kubectl("apply", "-f", "-", input=manifest)
    assert p.returncode == 0, p.stderr


def delete(cluster, *names, ns="default"):
    cluster.kubectl("delete", "pod", "-n", ns, "--ignore-not-found", "--wait=false", *names)


def wait_until(fn, timeout=60.0, interval=0.2):
    """fn polled until truthy. The default deadline is for a loaded 2-core machine, where a
    pod start and each kubectl call polling it can take seconds; it costs only when failing."""
    return poll.wait_until(fn, timeout, interval)


def container_status(pod: dict) -> dict:
    return (pod.get("status", {}).get("containerStatuses") or [{}])[0]
