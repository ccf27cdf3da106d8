"""What the board-mode node tests share: a cluster of an ESP32-S3 control plane and one classic
ESP32 worker (no PSRAM), each under its board profile's budgets, and the API read as JSON."""

import json
from contextlib import contextmanager

from k32.testing.clusters import make_test_cluster
from k32.testing.poll import wait_until

CP_BOARD, WORKER_BOARD = "s3", "esp32"
WORKER = "kube32-worker-1"


@contextmanager
def s3_with_esp32_worker(tmp_path_factory, name: str):
    c = make_test_cluster(tmp_path_factory.mktemp(name), workers=1, board=CP_BOARD, worker_board=WORKER_BOARD)
    c.up()
    try:
        yield c
    finally:
        c.down()


def api(c, method: str, path: str, body=None) -> tuple[int, dict]:
    """(status, JSON body or {}) of one API request, the body sent as JSON."""
    data = json.dumps(body).encode() if body is not None else None
    status, _, raw = c.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else None)
    return status, (json.loads(raw) if raw.strip() else {})


def quantity(q: str) -> int:
    """A Kubernetes memory quantity (`64Ki`, `1Mi`, `512`) in bytes."""
    units = {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}
    return int(q[:-2]) * units[q[-2:]] if q[-2:] in units else int(q)


def failed_scheduling(c, name: str) -> list:
    """The FailedScheduling Events of one pod in the default namespace."""
    events = api(c, "GET", "/api/v1/namespaces/default/events")[1]["items"]
    return [e for e in events if e["involvedObject"]["name"] == name and e["reason"] == "FailedScheduling"]


def assert_refused_by_scheduler(c, name: str, cond: dict, timeout_s: float) -> str:
    """The pod's PodScheduled=False condition is kube-scheduler's refusal for want of room on the
    one worker, and its FailedScheduling Event carries the same message. The scheduler writes
    the condition first and the Event after it, so the Event is waited for. Returns the message."""
    assert cond["reason"] == "Unschedulable", cond
    msg = cond["message"]
    assert msg.startswith("0/2 nodes are available: "), msg
    assert "Insufficient memory" in msg or "Too many pods" in msg, msg
    failed = wait_until(lambda: failed_scheduling(c, name), timeout_s, 0.5)
    assert failed and failed[0]["message"] == msg, api(c, "GET", "/api/v1/namespaces/default/events")[1]
    return msg
