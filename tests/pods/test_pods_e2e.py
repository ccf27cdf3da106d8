"""Pods on a simulated cluster through real kubectl: the echo example on the control plane,
pods on workers, deletion, CrashLoopBackOff with growing back-off and --previous logs,
memory limits, unschedulable pods, image pins and env injection."""

import json
import threading

import pytest
from pods_helpers import (
    ECHO_EXAMPLE,
    apply,
    container_status,
    delete,
    get_pod,
    nodes,
    pod_request,
    wait_until,
    worker_name,
)

from k32.testing.poll import poll_until


def test_echo_example_runs_on_the_control_plane(sim_cluster):
    # How fast a pod starts is measured by `k32 bench pods` (pod start latency), not here.
    p = sim_cluster.kubectl("apply", "-f", str(ECHO_EXAMPLE))
    assert p.returncode == 0, p.stderr
    pod = wait_until(lambda: (q := get_pod(sim_cluster, "echo")) and q["status"].get("phase") == "Running" and q)
    assert pod, f"echo not Running: {get_pod(sim_cluster, 'echo')}"
    cp = next(n for n, v in nodes(sim_cluster).items() if v["role"] == "control-plane")
    assert pod["spec"]["nodeName"] == cp
    assert pod["status"]["podIP"] == nodes(sim_cluster)[cp]["ip"] == pod["status"]["hostIP"]
    conds = {c["type"]: c["status"] for c in pod["status"]["conditions"]}
    assert conds["Ready"] == conds["ContainersReady"] == conds["PodScheduled"] == conds["Initialized"] == "True"
    wide = sim_cluster.kubectl("get", "pods", "-o", "wide").stdout
    line = next(ln for ln in wide.splitlines() if ln.startswith("echo "))
    assert cp in line and pod["status"]["podIP"] in line and "Running" in line

    status, headers, body = pod_request(sim_cluster, cp, "default/echo", "POST", "/echo/hello", b"ping")
    assert status == 200
    assert body == b"hello from echo\nPOST /echo/hello\nping"
    assert headers["content-type"] == "text/plain"
    # echo published its path on echo.events, which its kube32.io/event-topics annotation
    # subscribes it to: k32_event logged it.
    logs = wait_until(
        lambda: "event echo.events: /echo/hello" in (out := sim_cluster.kubectl("logs", "echo").stdout) and out
    )
    assert logs, sim_cluster.kubectl("logs", "echo").stdout


def test_pod_server_errors(sim_cluster):
    cp = next(n for n, v in nodes(sim_cluster).items() if v["role"] == "control-plane")
    status, headers, body = pod_request(sim_cluster, cp, "default/no-such-pod")
    assert status == 404 and headers["x-kube32-result"] == "-2"
    assert b"does not run on this node" in body


@pytest.mark.slow
def test_worker_pod_runs_there_and_stops_on_delete(sim_cluster):
    w = worker_name(sim_cluster)
    apply(
        sim_cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: echo-worker, labels: {{app: echo-worker}}}}
spec:
  nodeSelector: {{kubernetes.io/hostname: {w}}}
  containers:
  - name: echo
    image: wasm://embedded/echo
    env: [{{name: GREETING, value: from-the-worker}}]
    resources: {{limits: {{memory: 64Ki}}}}
""",
    )
    pod = wait_until(lambda: (q := get_pod(sim_cluster, "echo-worker")) and q["status"].get("phase") == "Running" and q)
    assert pod and pod["spec"]["nodeName"] == w
    assert pod["status"]["podIP"] == nodes(sim_cluster)[w]["ip"]
    status, _, body = pod_request(sim_cluster, w, "default/echo-worker", "POST", "/hi", b"x")
    assert status == 200 and body == b"from-the-worker\nPOST /hi\nx"
    # Its log lives on the worker; the control plane proxies kubectl logs (echo logged the
    # refused publish: no CHANNEL_IPC grant).
    logs = sim_cluster.kubectl("logs", "echo-worker")
    assert logs.returncode == 0 and "publish failed: -1" in logs.stdout, logs.stderr
    # --wait=false: kubectl 1.37's wait uses a watch-list (sendInitialEvents) stream that
    # the API server does not end with the initial-events bookmark yet; poll instead.
    p = sim_cluster.kubectl("delete", "pod", "echo-worker", "--wait=false")
    assert p.returncode == 0, p.stderr
    assert wait_until(lambda: get_pod(sim_cluster, "echo-worker") is None), "the kubelet did not finish the deletion"
    status, _, _ = pod_request(sim_cluster, w, "default/echo-worker")
    assert status == 404


@pytest.mark.slow
def test_run_to_completion_on_a_worker(sim_cluster):
    w = worker_name(sim_cluster)
    apply(
        sim_cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: hello-once}}
spec:
  nodeSelector: {{kubernetes.io/hostname: {w}}}
  restartPolicy: Never
  containers: [{{name: hello, image: wasm://embedded/hello}}]
""",
    )
    pod = wait_until(
        lambda: (q := get_pod(sim_cluster, "hello-once")) and q["status"].get("phase") == "Succeeded" and q
    )
    assert pod, get_pod(sim_cluster, "hello-once")
    term = container_status(pod)["state"]["terminated"]
    assert term["exitCode"] == 0 and term["reason"] == "Completed"
    logs = sim_cluster.kubectl("logs", "hello-once", "--tail", "1").stdout
    assert logs == "hello on stdout from hello-once\n"
    delete(sim_cluster, "hello-once")


@pytest.mark.slow
def test_crash_loop_backoff_and_previous_logs(sim_cluster):
    w = worker_name(sim_cluster)
    apply(
        sim_cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: crasher}}
spec:
  nodeSelector: {{kubernetes.io/hostname: {w}}}
  containers: [{{name: crasher, image: wasm://embedded/crasher}}]
""",
    )
    messages = []

    def backoff_seen():
        pod = get_pod(sim_cluster, "crasher")
        cs = container_status(pod) if pod else {}
        waiting = cs.get("state", {}).get("waiting", {})
        if waiting.get("reason") == "CrashLoopBackOff" and waiting["message"] not in messages:
            messages.append(waiting["message"])
        return len(messages) >= 2 and cs

    cs = wait_until(backoff_seen, timeout=20)
    assert cs, messages
    delays = [int(m.split("back-off ")[1].split("s ")[0]) for m in messages]
    assert delays[1] > delays[0], messages  # the back-off grows
    assert cs["restartCount"] >= 1
    last = cs["lastState"]["terminated"]
    assert last["exitCode"] == 1 and last["reason"] == "Error" and "unreachable" in last["message"]
    pod = get_pod(sim_cluster, "crasher")
    assert pod["status"]["phase"] == "Running"
    table = sim_cluster.kubectl("get", "pod", "crasher").stdout
    assert "CrashLoopBackOff" in table
    prev = sim_cluster.kubectl("logs", "crasher", "--previous")
    assert prev.returncode == 0, prev.stderr
    assert "crasher starting; about to fail" in prev.stdout and "wasm trap: unreachable" in prev.stdout
    delete(sim_cluster, "crasher")


@pytest.mark.slow
def test_over_limit_pod_fails_with_a_clear_reason(sim_cluster):
    apply(
        sim_cluster,
        """
apiVersion: v1
kind: Pod
metadata: {name: too-small}
spec:
  restartPolicy: Never
  containers:
  - name: echo
    image: wasm://embedded/echo
    resources: {limits: {memory: 32Ki}}
""",
    )
    pod = wait_until(lambda: (q := get_pod(sim_cluster, "too-small")) and q["status"].get("phase") == "Failed" and q)
    assert pod, get_pod(sim_cluster, "too-small")
    assert pod["status"]["reason"] == "CreateContainerError"
    assert "limits.memory" in pod["status"]["message"]
    delete(sim_cluster, "too-small")


@pytest.mark.slow
def test_unschedulable_pod_stays_pending(sim_cluster):
    apply(
        sim_cluster,
        """
apiVersion: v1
kind: Pod
metadata: {name: too-big}
spec:
  containers:
  - name: echo
    image: wasm://embedded/echo
    resources: {requests: {memory: 1Gi}}
""",
    )

    def cond():
        pod = get_pod(sim_cluster, "too-big")
        return pod and next((c for c in pod["status"].get("conditions", []) if c["type"] == "PodScheduled"), None)

    c = wait_until(cond)
    assert c and c["status"] == "False" and c["reason"] == "Unschedulable"
    assert "Insufficient memory" in c["message"]
    pod = get_pod(sim_cluster, "too-big")
    assert pod["status"]["phase"] == "Pending" and not pod["spec"].get("nodeName")

    # The scheduler writes the pod's condition first and its Event after it: the Event may not
    # be there yet when the condition is.
    def failed_scheduling():
        events = json.loads(sim_cluster.kubectl("get", "events", "-o", "json").stdout)["items"]
        return any(e["reason"] == "FailedScheduling" and e["involvedObject"]["name"] == "too-big" for e in events)

    assert wait_until(failed_scheduling), sim_cluster.kubectl("get", "events").stdout
    delete(sim_cluster, "too-big")


@pytest.mark.slow
def test_image_pin_mismatch_refuses_to_start(sim_cluster):
    apply(
        sim_cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: pinned}}
spec:
  restartPolicy: Never
  containers: [{{name: echo, image: "wasm://embedded/echo@sha256:{'0' * 64}"}}]
""",
    )
    pod = wait_until(lambda: (q := get_pod(sim_cluster, "pinned")) and q["status"].get("phase") == "Failed" and q)
    assert pod, get_pod(sim_cluster, "pinned")
    term = container_status(pod)["state"]["terminated"]
    assert term["reason"] == "ImageDigestMismatch" and "0" * 64 in term["message"]

    # Polled like every other Event here: what the kubelet writes is not read back at once.
    def refused_event():
        events = json.loads(sim_cluster.kubectl("get", "events", "-o", "json").stdout)["items"]
        return any(e["involvedObject"]["name"] == "pinned" and "pins sha256" in e["message"] for e in events)

    assert wait_until(refused_event), sim_cluster.kubectl("get", "events").stdout
    delete(sim_cluster, "pinned")


@pytest.mark.slow
def test_env_injection(sim_cluster):
    # A Service of another pod: its variables come from its Endpoints (the peer's address).
    apply(
        sim_cluster,
        """
apiVersion: v1
kind: Service
metadata: {name: env-peer}
spec:
  selector: {app: env-peer}
  ports: [{name: web, port: 81, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: env-peer, labels: {app: env-peer}}
spec:
  containers:
  - {name: echo, image: "wasm://embedded/echo", resources: {limits: {memory: 64Ki}}}
""",
    )
    peer = wait_until(lambda: (q := get_pod(sim_cluster, "env-peer")) and q["status"].get("phase") == "Running" and q)
    assert peer, get_pod(sim_cluster, "env-peer")
    peer_ip = nodes(sim_cluster)[peer["spec"]["nodeName"]]["ip"]

    def peer_ready():
        p = sim_cluster.kubectl("get", "endpoints", "env-peer", "-o", "json")
        subsets = json.loads(p.stdout).get("subsets") or [] if p.returncode == 0 else []
        return any(ss.get("addresses") for ss in subsets)

    assert wait_until(peer_ready, timeout=30.0), "the peer never became an address of its Service"
    apply(
        sim_cluster,
        """
apiVersion: v1
kind: ConfigMap
metadata: {name: envcm}
data: {colour: blue}
---
apiVersion: v1
kind: Secret
metadata: {name: envsec}
data: {token: czNjcmV0}  # base64 of s3cret
---
apiVersion: v1
kind: Service
metadata: {name: env-self}
spec:
  selector: {app: printenv}
  ports: [{name: http, port: 80, targetPort: 7000}]
---
apiVersion: v1
kind: Pod
metadata: {name: printenv, labels: {app: printenv}}
spec:
  containers:
  - name: p
    image: wasm://embedded/printenv
    env:
    - {name: PLAIN, value: "v1"}
    - {name: COLOUR, valueFrom: {configMapKeyRef: {name: envcm, key: colour}}}
    - {name: TOKEN, valueFrom: {secretKeyRef: {name: envsec, key: token}}}
    - {name: MY_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
    - {name: MY_NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
""",
    )
    pod = wait_until(lambda: (q := get_pod(sim_cluster, "printenv")) and q["status"].get("phase") == "Running" and q)
    assert pod, get_pod(sim_cluster, "printenv")
    node = pod["spec"]["nodeName"]
    node_ip = nodes(sim_cluster)[node]["ip"]
    cp = next(v for v in nodes(sim_cluster).values() if v["role"] == "control-plane")

    def env(name):
        status, _, body = pod_request(sim_cluster, node, "default/printenv", path="/" + name)
        return body.decode() if status == 200 else None

    assert env("PLAIN") == "v1"
    assert env("COLOUR") == "blue"
    assert env("TOKEN") == "s3cret"
    assert env("MY_NAME") == "printenv"
    assert env("MY_NODE") == node
    assert env("HOSTNAME") == "printenv"
    assert env("KUBERNETES_SERVICE_HOST") == cp["ip"]
    assert env("KUBERNETES_SERVICE_PORT") == str(cp["apiPort"])
    # The Service selects this pod itself: the host is the local node IP.
    assert env("ENV_SELF_SERVICE_HOST") == node_ip
    assert env("ENV_SELF_SERVICE_PORT") == "7000"
    assert env("ENV_SELF_SERVICE_PORT_HTTP") == "7000"
    assert env("ENV_SELF_PORT") == f"tcp://{node_ip}:7000"
    assert env("ENV_SELF_PORT_7000_TCP_ADDR") == node_ip
    assert env("ENV_SELF_PORT_7000_TCP_PROTO") == "tcp"
    assert env("ENV_PEER_SERVICE_HOST") == peer_ip
    assert env("ENV_PEER_SERVICE_PORT") == "8080"
    assert env("ENV_PEER_PORT_8080_TCP") == f"tcp://{peer_ip}:8080"
    assert env("NOPE") is None
    delete(sim_cluster, "printenv", "env-peer")
    sim_cluster.kubectl("delete", "service", "env-peer", "--ignore-not-found")


@pytest.mark.slow
def test_logs_tail_follow_and_errors(sim_cluster):
    w = worker_name(sim_cluster)
    for name, node in (("echo-logs-cp", None), ("echo-logs-w", w)):
        sel = (
            f"  nodeSelector: {{kubernetes.io/hostname: {node}}}\n"
            if node
            else "  nodeSelector: {node-role.kubernetes.io/control-plane: ''}\n"
        )
        apply(
            sim_cluster,
            f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
{sel}  containers: [{{name: echo, image: wasm://embedded/echo}}]
""",
        )
        pod = wait_until(lambda: (q := get_pod(sim_cluster, name)) and q["status"].get("phase") == "Running" and q)
        assert pod, get_pod(sim_cluster, name)
        node_name = pod["spec"]["nodeName"]
        for i in range(3):
            assert pod_request(sim_cluster, node_name, f"default/{name}", path=f"/r{i}")[0] == 200
        out = wait_until(lambda: (o := sim_cluster.kubectl("logs", name).stdout).count("publish failed") == 3 and o)
        assert out, sim_cluster.kubectl("logs", name).stdout
        assert sim_cluster.kubectl("logs", name, "--tail", "1").stdout == "publish failed: -1\n"
        assert sim_cluster.kubectl("logs", name, "-c", "echo", "--tail", "2").stdout.count("\n") == 2
        bad = sim_cluster.kubectl("logs", name, "-c", "nope")
        assert bad.returncode != 0 and "nope" in bad.stderr
        prev = sim_cluster.kubectl("logs", name, "--previous")
        assert prev.returncode != 0 and "previous terminated container" in prev.stderr
        # -f streams what arrives after it started.
        import subprocess

        from k32.build.tools import kubectl

        follow = subprocess.Popen(
            [
                str(kubectl("1.37")),
                "--kubeconfig",
                str(sim_cluster.kubeconfig),
                "--context",
                sim_cluster.context,
                "logs",
                "-f",
                "--tail",
                "0",
                name,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines = []

        def collect():
            for line in follow.stdout:
                lines.append(line)

        reader = threading.Thread(target=collect, daemon=True)
        reader.start()
        streamed = lambda: sum("publish failed: -1" in line for line in lines)  # noqa: E731
        try:
            # kubectl connects in its own time, and a line logged before that is not streamed
            # (--tail 0): request until one arrives, then once more; exactly those two show up.
            for i in range(20):
                pod_request(sim_cluster, node_name, f"default/{name}", path=f"/f{i}")
                if wait_until(lambda: streamed() >= 1, 1.0, 0.05):
                    break
            pod_request(sim_cluster, node_name, f"default/{name}", path="/last")
            poll_until(lambda: streamed() >= 2, 10, "the second request's log line streamed")
        finally:
            follow.terminate()
            follow.wait(timeout=10)
            reader.join(timeout=10)
        assert streamed() == 2, lines
        delete(sim_cluster, name)


@pytest.mark.slow
def test_on_failure_exit_code_and_bad_limit(sim_cluster):
    w = worker_name(sim_cluster)
    apply(
        sim_cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: exit-three}}
spec:
  nodeName: {w}
  restartPolicy: OnFailure
  containers:
  - name: c
    image: wasm://embedded/crasher
    env: [{{name: CRASH_MODE, value: exit}}]
---
apiVersion: v1
kind: Pod
metadata: {{name: bad-limit}}
spec:
  nodeName: {w}
  restartPolicy: Never
  containers: [{{name: c, image: wasm://embedded/echo, resources: {{limits: {{memory: lots}}}}}}]
""",
    )

    def restarted():
        cs = container_status(get_pod(sim_cluster, "exit-three") or {})
        return cs.get("restartCount", 0) >= 1 and cs.get("lastState", {}).get("terminated") and cs

    cs = wait_until(restarted, timeout=15)
    assert cs, get_pod(sim_cluster, "exit-three")
    assert cs["lastState"]["terminated"]["exitCode"] == 3 and cs["lastState"]["terminated"]["reason"] == "Error"
    pod = wait_until(lambda: (q := get_pod(sim_cluster, "bad-limit")) and q["status"].get("phase") == "Failed" and q)
    assert pod and pod["status"]["reason"] == "CreateContainerConfigError"
    assert '"lots" is not a quantity' in pod["status"]["message"]
    delete(sim_cluster, "exit-three", "bad-limit")
