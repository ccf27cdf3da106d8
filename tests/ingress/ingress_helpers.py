"""Helpers for driving the simulator's Ingress controller over real HTTP."""

import http.client
import json

from k32.testing import poll


def ingress_address(cluster) -> tuple[str, int]:
    cp = next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")
    return cp["ip"], cp["ingressPort"]


def post(cluster, path: str, body: bytes = b"ping", timeout: float = 10.0):
    """(status, body) of one POST through the ingress; (None, the error) when the connection fails,
    so a test can poll until a backend answers."""
    ip, port = ingress_address(cluster)
    conn = http.client.HTTPConnection(ip, port, timeout=timeout)
    try:
        conn.request("POST", path, body=body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    except (OSError, http.client.HTTPException) as e:
        return None, str(e).encode()
    finally:
        conn.close()


def get(cluster, path: str, host: str | None = None, headers: dict | None = None, method: str = "GET"):
    ip, port = ingress_address(cluster)
    conn = http.client.HTTPConnection(ip, port, timeout=10)
    h = dict(headers or {})
    if host:
        h["Host"] = host
    conn.request(method, path, headers=h)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def apply(cluster, manifest: str):
    proc = cluster.kubectl("apply", "-f", "-", input=manifest)
    assert proc.returncode == 0, proc.stderr


def wait_until(fn, timeout=30.0, interval=0.1):
    """Polls fn until it returns a truthy value; the controller rebuilds its table at most
    every 250 ms on the request path and on a 1 s tick, so changes land within ~1 s. The
    deadline is for a loaded machine, where a condition that runs kubectl takes seconds a try."""
    return poll.wait_until(fn, timeout, interval)


def json_body(body: bytes) -> dict:
    return json.loads(body.decode())
