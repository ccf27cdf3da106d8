"""A user's own pod, as a new user would run it: `k32 image build SRC.c --sd CARD`, then
`k32 sim up --sd CARD`, then `kubectl run NAME --image=kube32.io/sd/NAME@sha256:…`."""

import json
import os
import re
import subprocess
import sys
import time

import pytest

from k32 import REPO_ROOT
from k32.sim.cluster import find_free_base_port


def k32(*args, timeout=300):
    env = {k: v for k, v in os.environ.items() if k not in ("K32_TOKEN", "KUBECONFIG")}
    return subprocess.run(
        [sys.executable, "-m", "k32.cli", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.slow
def test_build_run_own_image_from_the_card(tmp_path):
    src = tmp_path / "hello.c"
    src.write_text((REPO_ROOT / "images" / "echo" / "echo.c").read_text())
    card = tmp_path / "card"
    r = k32("image", "build", str(src), "--out", str(tmp_path / "out"), "--sd", str(card))
    assert r.returncode == 0, r.stderr
    ref = re.search(r"image: (kube32\.io/sd/hello@sha256:[0-9a-f]{64})", r.stdout).group(1)
    digest = ref.rsplit(":", 1)[1]
    assert (tmp_path / "out" / "hello.wasm.sha256").read_text().split()[0] == digest
    assert (card / "kube32" / "images" / "hello" / "hello.wasm").is_file()

    state, kubeconfig = tmp_path / "sim", tmp_path / "kubeconfig"
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
    )
    assert up.returncode == 0, up.stderr
    try:
        kubectl = ["/usr/bin/kubectl", "--kubeconfig", str(kubeconfig), "--context", "kube32"]
        run = subprocess.run(
            [*kubectl, "run", "hello", f"--image={ref}", "--restart=Never"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        deadline, pod = time.monotonic() + 30, {}
        while time.monotonic() < deadline:
            p = subprocess.run(
                [*kubectl, "get", "pod", "hello", "-o", "json"], capture_output=True, text=True, timeout=60, check=False
            )
            pod = json.loads(p.stdout) if p.returncode == 0 else {}
            if pod.get("status", {}).get("phase") == "Running":
                break
            time.sleep(0.3)
        assert pod.get("status", {}).get("phase") == "Running", pod.get("status")
        assert pod["status"]["containerStatuses"][0]["imageID"] == f"wasm://sd/hello@sha256:{digest}"
    finally:
        k32("sim", "down", "--state", str(state))


def test_build_refuses_a_bad_name(tmp_path):
    src = tmp_path / "Bad_Name.c"
    src.write_text("int x;\n")
    r = k32("image", "build", str(src), "--out", str(tmp_path / "out"))
    assert r.returncode != 0 and "--name" in r.stderr
