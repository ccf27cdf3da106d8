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
from verbs_helpers import apply, echo_pod, ensure_namespace, kubectl_binaries, wait_running, worker_name

NS = "verbs-pf"
KUBECTLS = kubectl_binaries()
# (kubectl label, environment): the tunnel each kubectl takes by default, and SPDY forced.
VARIANTS = [(v, {}) for v in sorted(KUBECTLS)] + [
    (v, {"KUBECTL_PORT_FORWARD_WEBSOCKETS": "false"}) for v in ("1.37", "system") if v in KUBECTLS]


@pytest.fixture(scope="module")
def pod(sim_cluster):
    ensure_namespace(sim_cluster, NS)
    w = worker_name(sim_cluster)
    apply(sim_cluster, echo_pod("web", NS, w, labels={"app": "web"}))
    apply(sim_cluster, json.dumps({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": NS},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}))
    wait_running(sim_cluster, "web", NS)
    return "web"


@contextlib.contextmanager
def forward(cluster, version, env, target, remote):
    """Runs kubectl port-forward TARGET :REMOTE; yields the local port kubectl chose."""
    argv = [str(KUBECTLS[version]), "--kubeconfig", str(cluster.kubeconfig), "--context", cluster.context,
            "port-forward", "-n", NS, target, f":{remote}"]
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
            assert s.recv(4096) == b""  # closed without an answer
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
