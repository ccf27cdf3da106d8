"""Connection exhaustion: idle, trickling or busy connections must not take a port down.

Against each of the control plane's ports (API with TLS, Ingress, pod server) 200 idle TCP
connections are held open; real kubectl must still succeed within 2 s of what it takes with
nothing held, an Ingress request within 2 s (the server closes the longest-waiting
connections to make room). A request head that
trickles in is cut at its deadline, and a TLS client refused because every connection is
busy gets a TLS alert, not HTTP text it would read as a broken handshake."""

import concurrent.futures
import http.client
import socket
import ssl
import subprocess
import time

import pytest

from k32.boards import load_board, load_common

KUBECTL = "/usr/bin/kubectl"
HOLD = 200
HEAD_DEADLINE_S = load_common()["HTTP_HEAD_MS"] / 1000
BODY_DEADLINE_S = load_common()["HTTP_BODY_MS"] / 1000


def client_cap(cluster) -> int:
    """Every test client is 127.0.0.1, so one address's cap (the control plane board's) is
    what fills the API port."""
    return load_board(cluster.board).budgets["client_connections"]["count"]


ECHO = """
apiVersion: v1
kind: Pod
metadata: {name: echo, labels: {app: echo}}
spec:
  containers:
  - name: echo
    image: wasm://embedded/echo
    env: [{name: GREETING, value: still-here}]
    resources: {limits: {memory: 64Ki}}
---
apiVersion: v1
kind: Service
metadata: {name: echo}
spec:
  selector: {app: echo}
  ports: [{name: http, port: 80, targetPort: 7000}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: echo}
spec:
  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: echo, port: {number: 80}}}}
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from k32.testing.clusters import make_test_cluster

    c = make_test_cluster(tmp_path_factory.mktemp("conns"), workers=0)
    c.up()
    p = c.kubectl("apply", "-f", "-", input=ECHO)
    assert p.returncode == 0, p.stderr
    cp = c.status()["nodes"][0]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if ingress_get(cp)[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.2)
    else:
        pytest.fail("the echo Ingress never answered 200")
    yield c
    c.down()


def ingress_get(cp, timeout=2.0):
    conn = http.client.HTTPConnection(cp["ip"], cp["ingressPort"], timeout=timeout)
    try:
        conn.request("GET", "/hello")
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def pod_get(cp, timeout=2.0):
    conn = http.client.HTTPConnection(cp["ip"], cp["podPort"], timeout=timeout)
    try:
        conn.request("GET", "/x", headers={"X-Kube32-Pod": "default/echo"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def kubectl_get_nodes(c):
    start = time.monotonic()
    p = subprocess.run(
        [KUBECTL, "--kubeconfig", str(c.kubeconfig), "--context", c.context, "--request-timeout", "5s", "get", "nodes"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return p, time.monotonic() - start


def hold_idle(ip, port, n):
    socks = []
    for _ in range(n):
        s = socket.create_connection((ip, port), timeout=5)
        socks.append(s)
    return socks


@pytest.mark.slow
def test_200_idle_connections_per_port_do_not_lock_anyone_out(cluster):
    cp = cluster.status()["nodes"][0]
    p, _ = kubectl_get_nodes(cluster)  # warms kubectl's discovery cache, as a user's would be
    assert p.returncode == 0, p.stderr
    # What kubectl takes here with nothing held: its own start-up, slower on a loaded machine.
    p, alone = kubectl_get_nodes(cluster)
    assert p.returncode == 0, p.stderr
    held = []
    try:
        for port in (cp["apiPort"], cp["ingressPort"], cp["podPort"]):
            held += hold_idle(cp["ip"], port, HOLD)
        time.sleep(0.5)  # every connection accepted and waiting
        p, took = kubectl_get_nodes(cluster)
        assert p.returncode == 0, p.stderr
        assert cp["name"] in p.stdout
        assert took < alone + 2.0, (
            f"kubectl get nodes took {took:.2f} s with {HOLD} idle connections held, {alone:.2f} s without"
        )
        start = time.monotonic()
        status, body = ingress_get(cp)
        assert status == 200 and b"still-here" in body
        status, body = pod_get(cp)
        assert status == 200 and b"still-here" in body
        assert time.monotonic() - start < 2.0
    finally:
        for s in held:
            s.close()


@pytest.mark.slow
def test_trickled_request_head_is_cut_at_its_deadline(cluster):
    cp = cluster.status()["nodes"][0]
    for port in (cp["apiPort"], cp["ingressPort"], cp["podPort"]):
        s = socket.create_connection((cp["ip"], port), timeout=2)
        start = time.monotonic()
        s.sendall(b"GET /healthz HTTP/1.1\r\n")
        closed_after = None
        try:
            while time.monotonic() - start < HEAD_DEADLINE_S + 5:
                try:
                    s.sendall(b"X")  # one byte a second: each read succeeds, the head never ends
                    if s.recv(1024) == b"":
                        closed_after = time.monotonic() - start
                        break
                except TimeoutError:
                    continue
                except OSError:
                    closed_after = time.monotonic() - start
                    break
        finally:
            s.close()
        assert closed_after is not None, f"port {port}: a head trickling in for {HEAD_DEADLINE_S + 5} s was kept"
        assert closed_after < HEAD_DEADLINE_S + 2.5


def trickle_body(ip, port):
    """Seconds until the server ends a request whose body comes one byte every 2 s (None:
    still open after the body deadline and a margin), and what it answered."""
    s = socket.create_connection((ip, port), timeout=2)
    start = time.monotonic()
    got = b""
    try:
        s.sendall(
            b"POST /x HTTP/1.1\r\nHost: x\r\nX-Kube32-Pod: default/echo\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        while time.monotonic() - start < BODY_DEADLINE_S + 6:
            try:
                s.sendall(b" ")  # each byte well within the stall timeout, the body never ends
                data = s.recv(4096)
                if not data:
                    return time.monotonic() - start, got
                got += data
            except TimeoutError:
                continue
            except OSError:
                return time.monotonic() - start, got
        return None, got
    finally:
        s.close()


@pytest.mark.slow
def test_trickled_request_body_is_cut_at_its_deadline(cluster):
    """A busy connection is never closed to make room, so a body must not hold one forever."""
    cp = cluster.status()["nodes"][0]
    ports = (cp["apiPort"], cp["ingressPort"], cp["podPort"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        results = list(ex.map(lambda p: trickle_body(cp["ip"], p), ports))
    for port, (took, answer) in zip(ports, results):
        assert took is not None, f"port {port}: a body trickling in for {BODY_DEADLINE_S + 6} s was kept"
        assert took < BODY_DEADLINE_S + 4
        assert answer.startswith(b"HTTP/1.1 408"), answer[:80]


def test_refused_tls_client_gets_a_tls_alert(cluster):
    """Every connection busy (bodies announced, never sent): a TLS client that cannot be
    served must fail its handshake with an alert, not with HTTP text."""
    cp = cluster.status()["nodes"][0]
    busy = []
    try:
        for _ in range(client_cap(cluster)):
            s = socket.create_connection((cp["ip"], cp["apiPort"]), timeout=5)
            s.sendall(
                b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            )
            busy.append(s)
        time.sleep(0.5)
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection((cp["ip"], cp["apiPort"]), timeout=5)
        with pytest.raises(ssl.SSLError) as e:
            ctx.wrap_socket(raw, server_hostname=cp["ip"]).close()
        raw.close()
        assert "alert" in str(e.value).lower(), f"expected a TLS alert, got {e.value!r}"
    finally:
        for s in busy:
            s.close()
