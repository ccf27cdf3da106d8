"""`k32 kubeconfig`: a context for a node's API written from its console (certificate pinned
from K32_CMD:APICERT, token added) or from its address (trust on first use), checked with an
authenticated request first; kubectl (Debian's /usr/bin/kubectl) then reaches the node."""

import os
import shutil
import subprocess

import pytest
import yaml

from k32.testing.cli import run_k32

TOKEN = "board-token-123"
KUBECTL = shutil.which("kubectl", path="/usr/bin") or shutil.which("kubectl")


def k32(*args, env_extra=None):
    return run_k32(*args, timeout=120, env=env_extra)


@pytest.fixture(scope="module")
def board_like(tmp_path_factory):
    from k32.testing.clusters import make_test_cluster

    c = make_test_cluster(tmp_path_factory.mktemp("kcfg"), workers=0, token=TOKEN)
    c.up()
    yield c
    c.down()


def cp(cluster):
    return next(n for n in cluster.status()["nodes"] if n["role"] == "control-plane")


def kubectl_nodes(path, context):
    assert KUBECTL, "kubectl is not installed"
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    return subprocess.run(
        [KUBECTL, "--kubeconfig", str(path), "--context", context, "get", "nodes", "-o", "name"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


@pytest.mark.slow
def test_from_the_console_pins_the_certificate_and_adds_the_token(board_like, tmp_path):
    path = tmp_path / "config"
    r = k32(
        "kubeconfig",
        "--port",
        f"socket://{cp(board_like)['console']}",
        "--context",
        "board",
        "--kubeconfig",
        str(path),
        "--token",
        TOKEN,
    )
    assert r.returncode == 0, r.stderr
    doc = yaml.safe_load(path.read_text())
    cluster = next(c["cluster"] for c in doc["clusters"] if c["name"] == "board")
    assert cluster["server"].startswith("https://") and "certificate-authority-data" in cluster
    assert "insecure-skip-tls-verify" not in cluster
    assert next(u["user"] for u in doc["users"] if u["name"] == "board") == {"token": TOKEN}
    out = kubectl_nodes(path, "board")
    assert out.returncode == 0, out.stderr
    assert "node/kube32-control-plane" in out.stdout


@pytest.mark.slow
def test_a_node_with_a_token_needs_it(board_like, tmp_path):
    path = tmp_path / "config"
    r = k32("kubeconfig", "--port", f"socket://{cp(board_like)['console']}", "--kubeconfig", str(path))
    assert r.returncode != 0 and "has an API token" in r.stderr
    r = k32(
        "kubeconfig",
        "--port",
        f"socket://{cp(board_like)['console']}",
        "--kubeconfig",
        str(path),
        "--token",
        "wrong-token",
    )
    assert r.returncode != 0 and "wrong token" in r.stderr
    assert not path.exists()  # nothing saved that would not work


def test_from_the_network_trusts_on_first_use(board_like, tmp_path):
    node = cp(board_like)
    path = tmp_path / "config"
    r = k32(
        "kubeconfig",
        "--ip",
        node["ip"],
        "--api-port",
        str(node["apiPort"]),
        "--context",
        "tofu",
        "--kubeconfig",
        str(path),
        env_extra={"K32_TOKEN": TOKEN},
    )
    assert r.returncode == 0, r.stderr
    assert "SHA-256" in r.stdout
    assert kubectl_nodes(path, "tofu").returncode == 0


def test_needs_exactly_one_way_to_reach_the_node(tmp_path):
    r = k32("kubeconfig", "--kubeconfig", str(tmp_path / "c"))
    assert r.returncode != 0 and "exactly one of --port" in r.stderr
