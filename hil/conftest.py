"""The hardware-in-the-loop suite. `pytest hil/` starts a simulated cluster (one control
plane, one worker) and tears it down; `--target board` runs the same scenarios against
attached boards (see docs/boards.md)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from targets import BoardTarget, SimTarget  # noqa: E402


def pytest_addoption(parser):
    g = parser.getgroup("kube32 hil")
    g.addoption("--target", choices=["sim", "board"], default="sim")
    g.addoption("--cp-port", help="control plane's serial port (board target)")
    g.addoption("--cp-ip", help="control plane's IP (board target), e.g. 192.168.4.1")
    g.addoption("--worker-port", action="append", default=[], help="a worker's serial port (repeat)")
    g.addoption("--api-url", help="API server URL [https://<cp-ip>:6443]")
    g.addoption("--ingress-port", type=int, default=80)
    g.addoption("--token", help="the cluster's bearer token, if one is set")
    g.addoption("--sim-workers", type=int, default=1)
    g.addoption(
        "--host-ip",
        default="127.0.0.1",
        help="this machine's address as the nodes reach it (board target: on the uplink network)",
    )
    g.addoption("--https-url", help="board target: an https:// URL with a publicly trusted certificate")


@pytest.fixture(scope="session")
def target(request, tmp_path_factory):
    opt = request.config.getoption
    if opt("--target") == "board":
        if not opt("--cp-port") or not opt("--cp-ip"):
            raise pytest.UsageError("--target board needs --cp-port and --cp-ip")
        t = BoardTarget(
            tmp_path_factory.mktemp("board"),
            opt("--cp-port"),
            opt("--cp-ip"),
            opt("--worker-port"),
            opt("--api-url"),
            opt("--ingress-port"),
            opt("--token"),
        )
    else:
        from k32.testing.clusters import make_test_pki

        pki = make_test_pki(tmp_path_factory.mktemp("hil-pki"))
        t = SimTarget(tmp_path_factory.mktemp("hil-sim"), opt("--sim-workers"), egress_ca=pki["ca"])
        t.pki = pki
    t.up()
    yield t
    t.down()


@pytest.fixture
def cluster(target):
    """The API side of the target (a new object after a simulated control-plane reboot)."""
    return target.cluster


@pytest.fixture
def dut(target):
    """The control plane's console, pytest-embedded style: dut.expect(), dut.command()."""
    return target.cp
