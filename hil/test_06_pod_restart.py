"""A pod whose Wasm module traps is restarted (restartPolicy: Always) and counts it."""

import json

import pytest

from hil_examples import example
from k32.testing.poll import wait_until


def _pod(cluster, name):
    code, _, body = cluster.request("GET", f"/api/v1/namespaces/default/pods/{name}")
    return json.loads(body) if code == 200 else None


@pytest.mark.slow
def test_trap_restarts_the_pod(cluster):
    manifest = example("trap.yaml")  # a pod named "trap" whose handler traps
    assert cluster.kubectl("apply", "-f", str(manifest)).returncode == 0
    try:

        def container_statuses():
            pod = _pod(cluster, "trap") or {}
            return (pod.get("status") or {}).get("containerStatuses") or [{}]

        wait_until(lambda: container_statuses()[0].get("restartCount", 0) >= 1, 90, interval=1)
        statuses = container_statuses()
        assert statuses[0].get("restartCount", 0) >= 1, statuses
        assert statuses[0].get("lastState", {}).get("terminated"), statuses[0]
        logs = cluster.kubectl("logs", "trap", "--previous")
        assert "about to fail" in logs.stdout, logs.stdout + logs.stderr
    finally:
        cluster.kubectl("delete", "-f", str(manifest), "--ignore-not-found", "--timeout=60s")
