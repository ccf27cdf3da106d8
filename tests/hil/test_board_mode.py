"""`pytest hil/ --target board …` plumbing, driven at a simulated cluster as if it were
boards: consoles over socket://, the API and ingress by address. Left out: the reboot
scenario (a simulator node has no reset circuit to bring it back), and the Wi-Fi and
NetworkPolicy-probe ones (they expect [NET] / [NETPOL] log lines on the console, which a
board prints on its UART but a simulator writes to its log file instead)."""

import subprocess
import sys

import pytest

from k32 import REPO_ROOT


@pytest.mark.slow
def test_hil_board_mode_against_sim_consoles(sim_factory):
    cluster = sim_factory(workers=1)
    cluster.up()
    nodes = cluster.status()["nodes"]
    cp, worker = nodes[0], nodes[1]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(REPO_ROOT / "hil"),
            "--target",
            "board",
            "--cp-port",
            f"socket://{cp['console']}",
            "--cp-ip",
            cp["ip"],
            "--worker-port",
            f"socket://{worker['console']}",
            "--api-url",
            cluster.api_url,
            "--ingress-port",
            str(cp["ingressPort"]),
            "-k",
            "not reboot and not wifi and not probe_allowed",
            "-rs",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout


@pytest.mark.slow
def test_hil_board_mode_needs_ports():
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(REPO_ROOT / "hil"), "--target", "board"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert proc.returncode != 0
    assert "--target board needs --cp-port and --cp-ip" in proc.stdout + proc.stderr
