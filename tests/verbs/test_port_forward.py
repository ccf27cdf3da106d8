"""kubectl port-forward pod/NAME and svc/NAME against the simulator: a request sent to the
forwarded local port is answered by the pod's k32_handle, over the WebSocket tunnel current
kubectl uses and over plain SPDY (older kubectl, or KUBECTL_PORT_FORWARD_WEBSOCKETS=false),
with the API's bearer token like every other call."""

import contextlib
import json
import os
import re
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from verbs_helpers import apply, delete_pods, echo_pod, ensure_namespace, kubectl_binaries, wait_running, worker_name

from k32.boards import load_common
from k32.testing.sockets import recv_until

NS = "verbs-pf"
LIMITS = load_common()
KUBECTLS = kubectl_binaries()
# (kubectl label, environment): the tunnel each kubectl takes by default, and SPDY forced.
VARIANTS = [(v, {}) for v in sorted(KUBECTLS)] + [
    (v, {"KUBECTL_PORT_FORWARD_WEBSOCKETS": "false"}) for v in ("1.37", "system") if v in KUBECTLS
]


@pytest.fixture(scope="module")
def pod(sim_cluster):
    ensure_namespace(sim_cluster, NS)
    w = worker_name(sim_cluster)
    try:
        apply(sim_cluster, echo_pod("web", NS, w, labels={"app": "web"}))
        apply(
            sim_cluster,
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": "web", "namespace": NS},
                    "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]},
                }
            ),
        )
        wait_running(sim_cluster, "web", NS)
        yield "web"
    finally:  # also when it did not start: the next file's pods need the worker's memory
        delete_pods(sim_cluster, NS)


@contextlib.contextmanager
def forward(cluster, version, env, target, remote):
    """Runs kubectl port-forward TARGET :REMOTE; yields the local port kubectl chose."""
    argv = [
        str(KUBECTLS[version]),
        "--kubeconfig",
        str(cluster.kubeconfig),
        "--context",
        cluster.context,
        "port-forward",
        "-n",
        NS,
        target,
        f":{remote}",
    ]
    full_env = dict(os.environ)
    full_env.pop("KUBECONFIG", None)
    full_env.update(env)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env)
    try:
        line = proc.stdout.readline()
        m = re.search(r"127\.0\.0\.1:(\d+) ->", line)
        if not m:
            proc.kill()
            raise AssertionError(f"kubectl port-forward printed {line!r}: {proc.stderr.read()}")
        yield int(m.group(1)), proc
    finally:
        proc.kill()
        proc.wait(timeout=10)


def get(port, path, body=None, timeout=20):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method="POST" if body else "GET")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, resp.read()


@pytest.mark.parametrize("version,env", VARIANTS, ids=[v + ("-spdy" if e else "") for v, e in VARIANTS])
def test_port_forward_pod_answers_through_the_forward(sim_cluster, pod, version, env):
    with forward(sim_cluster, version, env, f"pod/{pod}", 8080) as (port, _):
        status, body = get(port, "/hello")
        assert status == 200 and body == b"hello from web\nGET /hello\n", body
        # A second local connection on the same session, with a body.
        status, body = get(port, "/echo", body=b"payload-" + version.encode())
        assert status == 200 and body == b"hello from web\nPOST /echo\npayload-" + version.encode(), body


@pytest.mark.parametrize("version", [v for v in ("1.37", "1.20") if v in KUBECTLS])
def test_port_forward_service_picks_its_pod(sim_cluster, pod, version):
    with forward(sim_cluster, version, {}, "svc/web", 80) as (port, _):
        status, body = get(port, "/via-service")
        assert status == 200 and body == b"hello from web\nGET /via-service\n", body


def test_keep_alive_connection_carries_several_requests(sim_cluster, pod):
    with forward(sim_cluster, "1.37", {}, f"pod/{pod}", 8080) as (port, _):
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            for i in range(3):
                s.sendall(f"GET /n{i} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                data = b""
                while b"\r\n\r\n" not in data or not data.endswith(f"GET /n{i}\n".encode()):
                    chunk = s.recv(4096)
                    assert chunk, data
                    data += chunk
                assert data.startswith(b"HTTP/1.1 200"), data


def test_bytes_that_are_not_http_get_a_400(sim_cluster, pod):
    with forward(sim_cluster, "1.37", {}, f"pod/{pod}", 8080) as (port, _):
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")
            data = b""
            while chunk := s.recv(4096):
                data += chunk
        assert data.startswith(b"HTTP/1.1 400") and b"not an HTTP/1.x request" in data, data


def test_undeclared_port_is_refused_on_the_error_stream(sim_cluster, pod):
    with forward(sim_cluster, "1.37", {}, f"pod/{pod}", 9999) as (port, proc):
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(20)
            assert read_until_closed(s) == b""  # closed without an answer
        deadline = time.monotonic() + 10
        err = ""
        while time.monotonic() < deadline and "does not declare container port 9999" not in err:
            time.sleep(0.2)
            if proc.poll() is not None:
                err += proc.stderr.read()
                break
        if "does not declare" not in err:
            proc.kill()
            err += proc.stderr.read()
        assert "does not declare container port 9999" in err, err


@pytest.mark.slow
def test_port_forward_needs_the_token(sim_factory):
    """With a token set, the upgrade is refused without it and works with it."""
    cluster = sim_factory(workers=0, token="pf-secret-token")
    cluster.up()
    ensure_namespace(cluster, NS)
    cp = next(n for n in cluster.status()["nodes"])
    apply(cluster, echo_pod("web", NS, cp["name"]))
    wait_running(cluster, "web", NS)
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    path = f"/api/v1/namespaces/{NS}/pods/web/portforward"
    headers = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "X-Stream-Protocol-Version": "portforward.k8s.io"}
    req = urllib.request.Request(cluster.api_url + path, method="POST", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10, context=ctx)
    assert e.value.code == 401
    with forward(cluster, "1.37", {}, "pod/web", 8080) as (port, _):
        status, body = get(port, "/t")
        assert status == 200 and body.endswith(b"GET /t\n")


def upgrade(cluster, headers: dict, method="GET") -> tuple[socket.socket, bytes]:
    """Opens a plain-HTTP connection to the API port and sends an upgrade request for the
    test pod; returns the socket and the response head."""
    cp = next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")
    s = socket.create_connection((cp["ip"], cp["apiPort"]), timeout=10)
    lines = [f"{method} /api/v1/namespaces/{NS}/pods/web/portforward HTTP/1.1", "Host: k"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return s, recv_until(s, b"\r\n\r\n")


WS = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Protocol": "SPDY/3.1+portforward.k8s.io",
}
SPDY = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "X-Stream-Protocol-Version": "portforward.k8s.io"}


def whole_response(s: socket.socket, head: bytes) -> bytes:
    """head plus the rest of its Content-Length body (the connection stays open)."""
    m = re.search(rb"Content-Length: (\d+)", head)
    want = head.index(b"\r\n\r\n") + 4 + (int(m.group(1)) if m else 0)
    s.settimeout(15)
    while len(head) < want:
        chunk = s.recv(4096)
        assert chunk, head
        head += chunk
    s.close()
    return head


def read_until_closed(s: socket.socket) -> bytes:
    """What arrives before the peer closes. kubectl closes its local connection once the pod's
    side ended, whether or not it read what was sent on it yet: with the bytes still unread,
    the kernel ends the connection with a reset instead of a FIN. Both are a close."""
    data = b""
    try:
        while chunk := s.recv(4096):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def read_to_close(s: socket.socket) -> bytes:
    data = b""
    s.settimeout(15)
    while chunk := s.recv(4096):
        data += chunk
    return data


def test_upgrade_handshakes_and_refusals(sim_cluster, pod):
    s, head = upgrade(sim_cluster, WS)
    assert head.startswith(b"HTTP/1.1 101"), head
    assert b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head
    assert b"Sec-WebSocket-Protocol: SPDY/3.1+portforward.k8s.io" in head
    s.close()
    s, head = upgrade(sim_cluster, {**WS, "Sec-WebSocket-Protocol": "v5.channel.k8s.io"})
    assert head.startswith(b"HTTP/1.1 400") and b"speaks SPDY/3.1+portforward.k8s.io" in whole_response(s, head)
    s, head = upgrade(sim_cluster, {"Connection": "keep-alive"})
    assert head.startswith(b"HTTP/1.1 400") and b"Upgrade request required" in whole_response(s, head)
    s, head = upgrade(sim_cluster, {**SPDY, "X-Stream-Protocol-Version": "v9.example"}, method="POST")
    assert head.startswith(b"HTTP/1.1 400"), head


def test_invalid_frames_end_the_session(sim_cluster, pod):
    # An unmasked WebSocket frame: the server closes the connection.
    s, head = upgrade(sim_cluster, WS)
    assert head.startswith(b"HTTP/1.1 101"), head
    s.sendall(b"\x82\x04abcd")
    assert read_to_close(s) is not None
    # A SYN_STREAM whose header block is not zlib: GOAWAY (PROTOCOL_ERROR), then close.
    s, head = upgrade(sim_cluster, SPDY, method="POST")
    assert head.startswith(b"HTTP/1.1 101") and b"X-Stream-Protocol-Version: portforward.k8s.io" in head, head
    block = b"not zlib at all"
    payload = (1).to_bytes(4, "big") + (0).to_bytes(4, "big") + b"\0\0" + block
    s.sendall(b"\x80\x03\x00\x01\x00" + len(payload).to_bytes(3, "big") + payload)
    data = read_to_close(s)
    assert data[:4] == b"\x80\x03\x00\x07" and data[12:16] == (1).to_bytes(4, "big"), data
    # A frame longer than the limit: GOAWAY before its bytes are read.
    s, head = upgrade(sim_cluster, SPDY, method="POST")
    s.sendall(b"\x00\x00\x00\x01\x00\xff\xff\xff")
    assert read_to_close(s)[:4] == b"\x80\x03\x00\x07"
    logs = "".join(open(n["log"]).read() for n in sim_cluster.status()["nodes"] if n["role"] == "control-plane")
    assert "websocket frame from the client is not masked" in logs
    assert "SPDY header block does not start a zlib stream" in logs
    assert f"over the {LIMITS['PORTFORWARD_FRAME_MAX']}-byte limit" in logs


def test_sessions_are_capped(sim_cluster, pod):
    held = []
    try:
        for _ in range(LIMITS["PORTFORWARD_SESSIONS_MAX"]):
            # Sessions of the tests before may take a moment to notice their client left (they
            # look every PORTFORWARD_POLL_MS; seconds more on a loaded machine).
            deadline = time.monotonic() + 30
            while True:
                s, head = upgrade(sim_cluster, SPDY, method="POST")
                if head.startswith(b"HTTP/1.1 101") or time.monotonic() > deadline:
                    break
                s.close()
                time.sleep(0.2)
            assert head.startswith(b"HTTP/1.1 101"), head
            held.append(s)
        s, head = upgrade(sim_cluster, SPDY, method="POST")
        assert head.startswith(b"HTTP/1.1 429") and b"port-forward sessions at once" in whole_response(s, head)
    finally:
        for s in held:
            s.close()


def test_python_client_channel_protocol(k8s_client, pod):
    """The official Python client forwards over WebSocket channels (v4.channel.k8s.io)."""
    from kubernetes import client
    from kubernetes.stream import portforward

    api = client.CoreV1Api(k8s_client)
    pf = portforward(api.connect_get_namespaced_pod_portforward, pod, NS, ports="8080,9999")
    s = pf.socket(8080)
    s.setblocking(True)
    s.settimeout(20)
    s.sendall(b"GET /py HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while not data.endswith(b"GET /py\n"):
        chunk = s.recv(4096)
        assert chunk, data
        data += chunk
    assert data.startswith(b"HTTP/1.1 200"), data
    # Keep-alive: a second request on the same forwarded connection, then one that closes it.
    s.sendall(b"POST /again HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
    rest = b""
    while chunk := s.recv(4096):
        rest += chunk
    assert rest.startswith(b"HTTP/1.1 200") and rest.endswith(b"POST /again\nhi"), rest
    s.close()
    assert pf.error(8080) is None
    assert "does not declare container port 9999" in (pf.error(9999) or "")
    pf.close()


def test_channel_protocol_needs_ports(sim_cluster, pod):
    s, head = upgrade(sim_cluster, {**WS, "Sec-WebSocket-Protocol": "v4.channel.k8s.io"})
    assert head.startswith(b"HTTP/1.1 400") and b"needs ?ports=" in whole_response(s, head)
