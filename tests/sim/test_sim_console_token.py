"""A token set on a simulated node's console (`k32 provision --token`) is the node's token from
then on, also after `k32 sim down` / `k32 sim up` on the same state dir: `up` must probe
readiness and write the kubeconfig with it (without, it waited for Ready nodes it could not
list and gave up)."""

import pytest

from k32.testing.cli import run_k32
from k32.testing.clusters import make_test_cluster

TOKEN = "set-on-the-console-42"


def provision(console: str, *args):
    return run_k32("provision", "--port", f"socket://{console}", *args, timeout=60)


@pytest.mark.slow
def test_up_again_after_provision_token(tmp_path):
    c = make_test_cluster(tmp_path / "sim", workers=1)
    c.up()
    try:
        cp = next(n for n in c.status()["nodes"] if n["role"] == "control-plane")
        r = provision(cp["console"], "--token", TOKEN, "--wait", "0")
        assert r.returncode == 0, r.stderr
    finally:
        c.down()
    again = make_test_cluster(tmp_path / "sim", workers=1)  # no token given this time
    again.up()
    try:
        assert again.token == TOKEN
        nodes = again.kubectl("get", "nodes", "-o", "name", version="1.20")
        assert nodes.returncode == 0, nodes.stderr
        assert nodes.stdout.count("node/") == 2
        status, _, _ = again.request("GET", "/api/v1/nodes", token=False)
        assert status == 401  # the API really requires it
    finally:
        again.down()
