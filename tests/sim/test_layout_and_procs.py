"""Port layout, free-port search and process identity (pid + start time)."""

import socket
import subprocess
import sys
import time

import pytest

from k32.sim import cluster as sc
from k32.sim import procs


def test_default_layout_matches_the_documented_ports():
    cp, w1, w2 = sc.layout(2, sc.DEFAULT_BASE_PORT)
    assert (cp.role, cp.api_port, cp.ingress_port, cp.pod_port, cp.console_port) == (
        "control-plane",
        6443,
        8080,
        7000,
        7100,
    )
    assert (w1.role, w1.pod_port, w1.console_port) == ("worker", 7001, 7101)
    assert (w2.pod_port, w2.console_port) == (7002, 7102)
    if sys.platform.startswith("linux"):
        assert [n.ip for n in (cp, w1, w2)] == ["127.0.0.1", "127.0.0.2", "127.0.0.3"]


def test_base_port_shifts_everything():
    base = sc.layout(3, sc.DEFAULT_BASE_PORT)
    moved = sc.layout(3, 30000)
    shift = 30000 - sc.DEFAULT_BASE_PORT
    for a, b in zip(base, moved):
        assert b.ports() == [p + shift for p in a.ports()]
    ports = [(n.ip, p) for n in moved for p in n.ports()]
    assert len(ports) == len(set(ports))


@pytest.mark.parametrize("workers, base", [(-1, 6443), (51, 6443), (2, 64000), (2, 0)])
def test_bad_layouts_are_rejected(workers, base):
    with pytest.raises(sc.SimError):
        sc.layout(workers, base)


def test_busy_port_is_detected():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert not sc.port_free("127.0.0.1", port)
    assert sc.port_free("127.0.0.1", port)


def test_find_free_base_port_gives_a_free_layout():
    base = sc.find_free_base_port(2)
    assert sc.layout_free(sc.layout(2, base))


@pytest.mark.parametrize("workers", [0, 2, sc.MAX_WORKERS])
def test_free_layouts_stay_below_the_ports_of_outgoing_connections(workers):
    """A layout is chosen free, then bound a build or a reboot later: a port in the range the
    kernel draws outgoing connections' ports from could be a client's by then."""
    for _ in range(50):
        top = max(p for n in sc.layout(workers, sc.find_free_base_port(workers)) for p in n.ports())
        assert top < sc.ephemeral_port_low()


def test_stop_kills_only_the_recorded_process():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = procs.start_time(proc.pid)
        assert started and procs.alive(proc.pid, started)
        # A different start time means the pid was recycled: never touch it.
        assert not procs.alive(proc.pid, started + "0")
        assert procs.stop(proc.pid, started + "0") is False
        assert proc.poll() is None
        assert procs.stop(proc.pid, started) is True
        assert proc.wait(timeout=5) is not None
        assert not procs.alive(proc.pid, started)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_stop_escalates_to_sigkill(tmp_path):
    code = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ignoring', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    # Its SIGTERM handler is in place once it says so (a fixed wait lost to a slow start-up on a
    # loaded machine: SIGTERM then ended it at once).
    assert proc.stdout.readline() == "ignoring\n"
    started = procs.start_time(proc.pid)
    t0 = time.monotonic()
    assert procs.stop(proc.pid, started, timeout=0.5)
    took = time.monotonic() - t0
    proc.wait(timeout=5)  # stop() may already have reaped it; then the status is lost
    assert not procs.alive(proc.pid, started)
    assert 0.5 <= took < 5, f"SIGTERM was ignored, so only SIGKILL after 0.5 s stops it ({took})"


def test_a_worker_board_cannot_be_the_control_plane(tmp_path):
    # The node itself refuses too (K32_BOARD_CONTROL_PLANE); the CLI says so before building.
    with pytest.raises(sc.SimError, match="esp32 is a worker board"):
        sc.SimCluster(tmp_path, workers=1, board="esp32")
    cluster = sc.SimCluster(tmp_path, workers=1, board="s3", worker_board="esp32")
    assert (cluster.board, cluster.worker_board) == ("s3", "esp32")
