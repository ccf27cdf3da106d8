"""A simulated node's threads and pods, seen from outside it, for tests of which threads a
node holds: on a board every thread's stack is heap, so a thread too many costs memory.

The node names its threads (pthread_setname_np), so Linux's /proc shows how many of one kind
are alive now; its console's STATUS says how many were ever started."""

from __future__ import annotations

from pathlib import Path


def node_of(cluster, role: str) -> dict:
    """The status entry (name, pid, ip, ports) of the cluster's first node in `role`
    ("control-plane" or "worker")."""
    return next(n for n in cluster.status()["nodes"] if n["role"] == role)


def live_threads(node: dict, name: str) -> int:
    """The node's threads named `name`, alive now (Linux: /proc/PID/task/*/comm)."""
    count = 0
    for task in Path(f"/proc/{node['pid']}/task").iterdir():
        try:
            count += (task / "comm").read_text().strip() == name
        except OSError:
            pass  # the thread ended while we looked
    return count


def started_threads(cluster, node: dict, name: str) -> int:
    """How many threads named `name` the node ever started (its console's STATUS)."""
    stacks = cluster.console(node["name"], "STATUS")["stacks"]
    return sum(row["threads"] for row in stacks if row["name"] == name)


def pod_on(node: str, name: str, container: dict, annotations: dict | None = None) -> dict:
    """A one-container pod in default, bound to `node`, with the 64Ki memory limit the example
    pods carry."""
    metadata = {"name": name, "namespace": "default"}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": node},
            "containers": [{**container, "resources": {"limits": {"memory": "64Ki"}}}],
        },
    }
