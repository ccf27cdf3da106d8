"""Issue 2: a worker that stops heartbeating turns NotReady within 40 s (slow: ~40 s)."""

import os
import signal
import time

import pytest

from k32.testing.poll import wait_until

NOT_READY_WITHIN = 40.0


@pytest.mark.slow
def test_stopped_worker_turns_not_ready(sim_factory):
    cluster = sim_factory(workers=1)
    cluster.up()
    worker = next(n for n in cluster.status()["nodes"] if n["role"] == "worker")
    assert cluster.nodes_ready()[worker["name"]] is True
    os.kill(worker["pid"], signal.SIGSTOP)
    try:
        start = time.monotonic()
        wait_until(lambda: cluster.nodes_ready().get(worker["name"]) is False, NOT_READY_WITHIN + 2, 0.5)
        took = time.monotonic() - start
        assert cluster.nodes_ready().get(worker["name"]) is False, (
            f"{worker['name']} still Ready {took:.0f}s after SIGSTOP"
        )
        assert took <= NOT_READY_WITHIN, f"NotReady only after {took:.0f}s"
        out = cluster.kubectl("get", "nodes").stdout
        row = next(line.split() for line in out.splitlines() if line.startswith(worker["name"]))
        assert row[1] == "NotReady", out
        cp = next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")
        assert cluster.nodes_ready()[cp["name"]] is True
    finally:
        os.kill(worker["pid"], signal.SIGCONT)
