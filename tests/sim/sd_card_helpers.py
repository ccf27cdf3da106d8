"""Helpers for the tests that run a user's own image from a simulated SD card: the k32 CLI as
a user runs it, a one-worker simulator with a card, and `kubectl run` of an image until its
pod runs."""

import json
import subprocess
import time

from k32.sim.cluster import find_free_base_port
from k32.testing.cli import run_k32


def k32(*args, timeout=300):
    """The k32 CLI without the user's token or kubeconfig."""
    return run_k32(*args, timeout=timeout, drop=("K32_TOKEN", "KUBECONFIG"))


def sim_up_with_card(root, card, *options):
    """`k32 sim up` of one worker with `card` as the nodes' SD card, its state and kubeconfig
    under root; returns (state, kubeconfig). options are more `sim up` arguments."""
    state, kubeconfig = root / "sim", root / "kubeconfig"
    up = k32(
        "sim",
        "up",
        "--detach",
        "--workers",
        "1",
        "--state",
        str(state),
        "--kubeconfig",
        str(kubeconfig),
        "--base-port",
        str(find_free_base_port(1)),
        "--sd",
        str(card),
        *options,
    )
    assert up.returncode == 0, up.stderr
    return state, kubeconfig


def run_until_running(kubeconfig, name, image, timeout_s=30):
    """`kubectl run NAME --image=IMAGE --restart=Never`; the pod once Running (the test fails
    if it is not within timeout_s)."""
    kubectl = ["/usr/bin/kubectl", "--kubeconfig", str(kubeconfig), "--context", "kube32"]
    run = subprocess.run(
        [*kubectl, "run", name, f"--image={image}", "--restart=Never"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    deadline, pod = time.monotonic() + timeout_s, {}
    while time.monotonic() < deadline:
        p = subprocess.run(
            [*kubectl, "get", "pod", name, "-o", "json"], capture_output=True, text=True, timeout=60, check=False
        )
        pod = json.loads(p.stdout) if p.returncode == 0 else {}
        if pod.get("status", {}).get("phase") == "Running":
            break
        time.sleep(0.3)
    assert pod.get("status", {}).get("phase") == "Running", pod.get("status")
    return pod
