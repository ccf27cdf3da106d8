"""What the board-mode node tests share: a cluster of an ESP32-S3 control plane and one classic
ESP32 worker (no PSRAM), each under its board profile's budgets, and the API read as JSON."""

from contextlib import contextmanager

from k32.testing.clusters import api_json as api
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
