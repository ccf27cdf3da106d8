"""Ingress Service backends with real pods (needs the kubelet and the echo image):
examples/echo.yaml through the ingress and its event stream, Endpoints/EndpointSlices that
match the pods, round-robin across two worker pods, and failover when a worker stops
answering (SIGSTOP: its sockets stay open, the worst case for a relay)."""

import http.client
import json
import os
import re
import signal
import time
from pathlib import Path

import pytest
import yaml
from ingress_helpers import apply, ingress_address, post, wait_until

from k32.boards import load_common
from k32.testing.clusters import make_test_cluster

REPO = Path(__file__).resolve().parents[2]
ECHO_EXAMPLE = REPO / "examples" / "echo.yaml"
POD_START_TIMEOUT_S = 60.0
# A silent node is NotReady within K32_NODE_NOT_READY_MS (40 s); the rest is the test's own polling slack.
NOT_READY_TIMEOUT_S = 60.0
# After NotReady the controller must not keep picking the stopped pod: a request sent to it
# waits out the relay's read timeout (UPSTREAM_READ_MS, 30 s; a stopped node's kernel still
# accepts the connection), so anything well short of that was answered by the live pod. The
# margin is for a loaded machine, where one relayed request can take seconds.
FAST_ANSWER_S = load_common()["UPSTREAM_READ_MS"] / 1000 / 3
RR_PODS = ("echo-rr-1", "echo-rr-2")
RR_NODES = ("kube32-worker-1", "kube32-worker-2")


# pytest sets a failed module fixture up again for every test; pods that never start would
# cost the full timeout each time, so the first failure is remembered and repeated.
_fixture_failures: dict[str, str] = {}


def _once(name: str):
    if name in _fixture_failures:
        pytest.fail(f"{name} did not come up (first attempt): {_fixture_failures[name]}")


def echo_docs() -> list[dict]:
    if not ECHO_EXAMPLE.exists():
        pytest.fail(f"{ECHO_EXAMPLE} does not exist (the echo pod example)")
    return [d for d in yaml.safe_load_all(ECHO_EXAMPLE.read_text()) if d]


def echo_backends(app: str, pods) -> str:
    """examples/echo.yaml's pod once per (name, node) of pods, pinned to that node and
    greeting with its own name, all labelled app, behind Service and Ingress `app` at /app."""
    docs = {d["kind"]: d for d in echo_docs()}
    out = []
    for name, node in pods:
        pod = json.loads(json.dumps(docs["Pod"]))
        pod["metadata"].update(name=name, labels={"app": app})
        pod["metadata"].pop("annotations", None)
        pod["spec"].pop("nodeSelector", None)
        pod["spec"]["nodeName"] = node
        for c in pod["spec"]["containers"]:
            c["env"] = [{"name": "GREETING", "value": name}]
        out.append(pod)
    svc = json.loads(json.dumps(docs["Service"]))
    svc["metadata"]["name"] = app
    svc["spec"]["selector"] = {"app": app}
    ing = json.loads(json.dumps(docs["Ingress"]))
    ing["metadata"]["name"] = app
    ing["metadata"].pop("annotations", None)
    for rule in ing["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            p["path"] = f"/{app}"
            p["backend"]["service"]["name"] = app
    return yaml.safe_dump_all(out + [svc, ing], sort_keys=False)


def rr_manifest() -> str:
    """The echo pod twice, one on each worker, behind Service and Ingress echo-rr at /echo-rr."""
    return echo_backends("echo-rr", zip(RR_PODS, RR_NODES))


def greeting(body: bytes) -> str:
    return body.decode(errors="replace").split("\n", 1)[0]


def api_json(cluster, path: str) -> dict:
    status, _, body = cluster.request("GET", path)
    assert status == 200, (path, status, body[:300])
    return json.loads(body)


def running_pods(cluster, selector: str) -> dict[str, str]:
    """name -> podIP of the Running pods matching the label selector."""
    pods = api_json(cluster, f"/api/v1/namespaces/default/pods?labelSelector={selector}")["items"]
    return {
        p["metadata"]["name"]: p["status"].get("podIP", "")
        for p in pods
        if p.get("status", {}).get("phase") == "Running"
    }


def pod_phases(cluster) -> dict[str, str]:
    pods = api_json(cluster, "/api/v1/namespaces/default/pods")["items"]
    return {p["metadata"]["name"]: p.get("status", {}).get("phase", "") for p in pods}


def node_ready(cluster, name: str) -> str:
    node = api_json(cluster, f"/api/v1/nodes/{name}")
    return next((c["status"] for c in node.get("status", {}).get("conditions", []) if c["type"] == "Ready"), "")


def pod_ready(cluster, path: str) -> str:
    pod = api_json(cluster, path)
    return next((c["status"] for c in pod.get("status", {}).get("conditions", []) if c["type"] == "Ready"), "")


# ---- examples/echo.yaml on the shared cluster ----------------------------------------------


@pytest.fixture(scope="module")
def echo(sim_cluster):
    _once("echo")
    echo_docs()
    apply(sim_cluster, ECHO_EXAMPLE.read_text())
    if not wait_until(lambda: post(sim_cluster, "/echo/hello")[0] == 200, POD_START_TIMEOUT_S, 0.5):
        _fixture_failures["echo"] = f"POST /echo/hello never answered 200: {post(sim_cluster, '/echo/hello')}"
        pytest.fail(_fixture_failures["echo"])
    yield sim_cluster


def test_echo_example_answers_through_the_ingress(echo):
    status, body = post(echo, "/echo/hello", b"payload-123")
    assert status == 200
    text = body.decode()
    greeting_env = next(
        e["value"]
        for d in echo_docs()
        if d["kind"] == "Pod"
        for c in d["spec"]["containers"]
        for e in c.get("env", [])
        if e["name"] == "GREETING"
    )
    assert text.startswith(greeting_env + "\n"), text
    assert "POST /echo/hello\n" in text and text.endswith("payload-123"), text


def test_echo_event_stream_carries_presence_and_echo_events(echo):
    ip, port = ingress_address(echo)
    conn = http.client.HTTPConnection(ip, port, timeout=10)
    conn.request("GET", "/echo/events")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
    frames, frame, posted = [], {}, False
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            line = resp.readline().decode().rstrip("\r\n")
            if line:
                key, _, value = line.partition(":")
                frame[key] = frame.get(key, "") + value.lstrip(" ")
                continue
            if frame:
                frames.append(frame)
                frame = {}
            if not posted and any(f.get("event") == "presence" for f in frames):
                # The stream is subscribed now; this request's path comes back as an event.
                assert post(echo, "/echo/from-the-stream-test")[0] == 200
                posted = True
            if posted and any("/echo/from-the-stream-test" in f.get("data", "") for f in frames):
                break
    finally:
        conn.close()
    presence = [f for f in frames if f.get("event") == "presence"]
    assert presence and json.loads(presence[0]["data"])["viewers"] >= 1, frames
    assert any("/echo/from-the-stream-test" in f.get("data", "") for f in frames), frames


def test_endpoints_and_endpointslices_match_the_pods(echo):
    pods = running_pods(echo, "app%3Decho")
    assert pods and all(pods.values()), pods
    ep = api_json(echo, "/api/v1/namespaces/default/endpoints/echo")
    addresses = {
        (a["ip"], a.get("targetRef", {}).get("name")) for s in ep.get("subsets", []) for a in s.get("addresses", [])
    }
    assert addresses == {(ip, name) for name, ip in pods.items()}, ep
    target = next(d for d in echo_docs() if d["kind"] == "Service")["spec"]["ports"][0]["targetPort"]
    ports = {p["port"] for s in ep["subsets"] for p in s.get("ports", [])}
    assert ports == {target}, ep
    slices = api_json(
        echo,
        "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Decho",
    )["items"]
    in_slices = {
        (addr, e.get("targetRef", {}).get("name"))
        for s in slices
        for e in s.get("endpoints", [])
        for addr in e["addresses"]
        if e.get("conditions", {}).get("ready")
    }
    assert in_slices == addresses, slices
    out = echo.kubectl("get", "endpoints,endpointslices", "-n", "default")
    assert out.returncode == 0, out.stderr
    for ip in pods.values():
        assert re.search(rf"endpoints/echo\s+\S*{re.escape(ip)}:{target}", out.stdout), out.stdout


# ---- two worker pods on a private cluster (the failover test stops a worker) -----------------


@pytest.fixture(scope="module")
def rr_cluster(tmp_path_factory):
    _once("rr_cluster")
    cluster = make_test_cluster(tmp_path_factory.mktemp("rr"), workers=2)
    stopped: list[int] = []
    try:
        cluster.up()
        apply(cluster, rr_manifest())
        if not wait_until(lambda: len(running_pods(cluster, "app%3Decho-rr")) == 2, POD_START_TIMEOUT_S, 0.5):
            _fixture_failures["rr_cluster"] = f"the two echo-rr pods never ran: {pod_phases(cluster)}"
        elif not wait_until(lambda: post(cluster, "/echo-rr/x")[0] == 200, 10, 0.2):
            _fixture_failures["rr_cluster"] = f"POST /echo-rr/x: {post(cluster, '/echo-rr/x')}"
        if "rr_cluster" in _fixture_failures:
            pytest.fail(_fixture_failures["rr_cluster"])
        cluster.stopped = stopped
        yield cluster
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        cluster.down()


def test_round_robin_alternates_between_worker_pods(rr_cluster):
    seen = []
    for _ in range(8):
        status, body = post(rr_cluster, "/echo-rr/rr")
        assert status == 200, body
        seen.append(greeting(body))
    assert set(seen) == set(RR_PODS), seen
    assert all(a != b for a, b in zip(seen, seen[1:])), f"not alternating: {seen}"


def mix_manifest(cp_node: str) -> str:
    """One echo pod on the control plane and one on a worker behind Service echo-mix."""
    return echo_backends("echo-mix", (("echo-mix-cp", cp_node), ("echo-mix-w", RR_NODES[0])))


@pytest.mark.slow
def test_control_plane_pod_takes_its_turn_with_worker_pods(rr_cluster):
    """A Service backed by a control-plane pod and a worker pod spreads the requests: the
    in-process pod is one backend of the rotation, not the one that takes them all."""
    cp = next(n["name"] for n in rr_cluster.status()["nodes"] if n["role"] == "control-plane")
    apply(rr_cluster, mix_manifest(cp))

    def settled():  # both running, or one refused (Failed is final: no use waiting on)
        phases = [p for n, p in pod_phases(rr_cluster).items() if n.startswith("echo-mix-")]
        return len(phases) == 2 and (all(p == "Running" for p in phases) or "Failed" in phases)

    assert wait_until(settled, POD_START_TIMEOUT_S, 0.5), pod_phases(rr_cluster)
    assert len(running_pods(rr_cluster, "app%3Decho-mix")) == 2, pod_phases(rr_cluster)
    assert wait_until(lambda: post(rr_cluster, "/echo-mix/x")[0] == 200, 10, 0.2)
    seen = []
    for _ in range(8):
        status, body = post(rr_cluster, "/echo-mix/spread")
        assert status == 200, body
        seen.append(greeting(body))
    assert seen.count("echo-mix-cp") == 4 and seen.count("echo-mix-w") == 4, seen


def test_worker_pod_publishes_bytes_that_are_not_json(rr_cluster):
    """k32_channel_publish's payload is bytes on every node: echo publishes the request path
    (not JSON) on echo.events, and a subscriber on the control plane gets it from both
    worker pods (the worker bridge used to JSON-parse it and answer K32_ERR_IO)."""
    from urllib.parse import urlparse

    u = urlparse(rr_cluster.node_api_url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", "/apis/kube32.io/v1/channels?topics=echo.events")
    resp = conn.getresponse()
    # The control plane subscribes before it sends the stream's head: with the 200 read, the
    # publishes below reach this stream.
    assert resp.status == 200
    try:
        for i in range(4):
            assert post(rr_cluster, f"/echo-rr/bytes-{i}")[0] == 200
        got = set()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(got) < 4:
            line = resp.readline().strip()
            if line:
                got.add(json.loads(line)["payload"])
        assert got == {f"/echo-rr/bytes-{i}" for i in range(4)}, got
    finally:
        conn.close()


@pytest.mark.slow
def test_stopped_worker_loses_its_traffic_once_notready(rr_cluster):
    victim = next(n for n in rr_cluster.status()["nodes"] if n["name"] == RR_NODES[1])
    os.kill(int(victim["pid"]), signal.SIGSTOP)
    rr_cluster.stopped.append(int(victim["pid"]))
    became = wait_until(lambda: node_ready(rr_cluster, RR_NODES[1]) in ("False", "Unknown"), NOT_READY_TIMEOUT_S, 1.0)
    assert became, f"{RR_NODES[1]} still Ready {NOT_READY_TIMEOUT_S:.0f} s after SIGSTOP"
    # A Node change makes the controller resolve a Service's backends again on the next
    # request; its listener runs just after the write is readable, so the test waits for
    # what is written after it: the node's pods marked not ready (no fixed wait).
    pod_path = f"/api/v1/namespaces/default/pods/{RR_PODS[1]}"
    assert wait_until(lambda: pod_ready(rr_cluster, pod_path) == "False", 30, 0.5), api_json(rr_cluster, pod_path)
    answers = []
    for _ in range(6):
        t0 = time.monotonic()
        status, body = post(rr_cluster, "/echo-rr/failover", timeout=30)
        answers.append((status, greeting(body), round(time.monotonic() - t0, 2)))
    assert all(s == 200 and g == RR_PODS[0] for s, g, _ in answers), answers
    assert all(dt < FAST_ANSWER_S for _, _, dt in answers), f"requests still wait on the stopped pod: {answers}"
