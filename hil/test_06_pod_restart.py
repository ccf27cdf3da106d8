"""A pod whose Wasm module traps is restarted (restartPolicy: Always) and counts it."""
import json
import time

from hil_examples import example


def _pod(cluster, name):
    code, _, body = cluster.request("GET", f"/api/v1/namespaces/default/pods/{name}")
    return json.loads(body) if code == 200 else None


def test_trap_restarts_the_pod(cluster):
    manifest = example("trap.yaml")          # a pod named "trap" whose handler traps
    assert cluster.kubectl("apply", "-f", str(manifest)).returncode == 0
    try:
        deadline = time.monotonic() + 90
        restarts = 0
        while time.monotonic() < deadline and restarts < 1:
            pod = _pod(cluster, "trap") or {}
            statuses = (pod.get("status") or {}).get("containerStatuses") or [{}]
            restarts = statuses[0].get("restartCount", 0)
            time.sleep(1)
        assert restarts >= 1
        assert statuses[0].get("lastState", {}).get("terminated"), statuses[0]
        logs = cluster.kubectl("logs", "trap", "--previous")
        assert "about to fail" in logs.stdout, logs.stdout + logs.stderr
    finally:
        cluster.kubectl("delete", "-f", str(manifest), "--ignore-not-found", "--timeout=60s")
