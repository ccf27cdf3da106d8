"""`k32 image push FILE --context C` installs a module into a node's wasm://sd/ store through
the API server's authenticated PUT /kube32/v1/sdimages/<name>; kubectl then runs it."""

import json
import os
import re
import subprocess
import sys
import time

import pytest
import yaml

from k32 import REPO_ROOT
from k32.sim.cluster import find_free_base_port

TOKEN = "push-token-7"


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


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("push")
    card = root / "card"
    card.mkdir()
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
        "--token",
        TOKEN,
    )
    assert up.returncode == 0, up.stderr
    src = root / "pushed.c"
    src.write_text((REPO_ROOT / "images" / "echo" / "echo.c").read_text())
    built = k32("image", "build", str(src), "--out", str(root / "out"))
    assert built.returncode == 0, built.stderr
    yield {"root": root, "card": card, "kubeconfig": kubeconfig, "wasm": root / "out" / "pushed.wasm"}
    k32("sim", "down", "--state", str(state))


def test_push_then_kubectl_run(cluster):
    r = k32("image", "push", str(cluster["wasm"]), "--context", "kube32", "--kubeconfig", str(cluster["kubeconfig"]))
    assert r.returncode == 0, r.stderr
    ref = re.search(r"image: (kube32\.io/sd/pushed@sha256:[0-9a-f]{64})", r.stdout).group(1)
    stored = cluster["card"] / "kube32" / "images" / "pushed" / "pushed.wasm"
    assert stored.read_bytes() == cluster["wasm"].read_bytes()
    kubectl = ["/usr/bin/kubectl", "--kubeconfig", str(cluster["kubeconfig"]), "--context", "kube32"]
    run = subprocess.run(
        [*kubectl, "run", "pushed", f"--image={ref}", "--restart=Never"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    deadline, pod = time.monotonic() + 30, {}
    while time.monotonic() < deadline:
        p = subprocess.run(
            [*kubectl, "get", "pod", "pushed", "-o", "json"], capture_output=True, text=True, timeout=60, check=False
        )
        pod = json.loads(p.stdout) if p.returncode == 0 else {}
        if pod.get("status", {}).get("phase") == "Running":
            break
        time.sleep(0.3)
    assert pod.get("status", {}).get("phase") == "Running", pod.get("status")


def test_push_needs_the_token(cluster, tmp_path):
    doc = yaml.safe_load(cluster["kubeconfig"].read_text())
    for u in doc["users"]:
        u["user"] = {"token": "not-the-token"}
    bad = tmp_path / "kubeconfig"
    bad.write_text(yaml.safe_dump(doc))
    r = k32("image", "push", str(cluster["wasm"]), "--context", "kube32", "--kubeconfig", str(bad), "--name", "nope")
    assert r.returncode != 0 and "401" in r.stderr
    assert not (cluster["card"] / "kube32" / "images" / "nope").exists()


def test_push_refuses_what_is_not_a_module(cluster, tmp_path):
    junk = tmp_path / "junk.wasm"
    junk.write_bytes(b"\0asm\x01\0\0\0" + b"\xff" * 32)  # the header, then garbage
    r = k32("image", "push", str(junk), "--context", "kube32", "--kubeconfig", str(cluster["kubeconfig"]))
    assert r.returncode != 0 and "not a valid Wasm module" in r.stderr
    assert not (cluster["card"] / "kube32" / "images" / "junk").exists()
    text = tmp_path / "notes.wasm"
    text.write_text("hello")
    r = k32("image", "push", str(text), "--context", "kube32", "--kubeconfig", str(cluster["kubeconfig"]))
    assert r.returncode != 0 and "not a WebAssembly module" in r.stderr
