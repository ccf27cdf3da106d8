"""What the board-mode node tests share: a cluster of an ESP32-S3 control plane and one classic
ESP32 worker (no PSRAM), each under its board profile's budgets, and the API read as JSON."""

import json
from contextlib import contextmanager

from k32.testing.clusters import make_test_cluster

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
