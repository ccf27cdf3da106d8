"""Issue 2: `k32 sim up --token` makes the API server require the bearer token; the kubeconfig
carries it, so kubectl works, and a request without it gets a 401 Status."""

import json

import pytest
import yaml

from k32.sim.cluster import SimCluster

TOKEN = "e2e-Secret.token_42"


@pytest.mark.slow
def test_token_auth(sim_factory):
    cluster = sim_factory(workers=0, token=TOKEN)
    cluster.up()
    user = next(u for u in yaml.safe_load(cluster.kubeconfig.read_text())["users"] if u["name"] == cluster.context)
    assert user["user"]["token"] == TOKEN

    proc = cluster.kubectl("get", "nodes")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:5] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]

    code, _, body = cluster.request("GET", "/api/v1/namespaces", token=None)
    assert code == 401
    doc = json.loads(body)
    assert doc["kind"] == "Status" and doc["code"] == 401 and doc["reason"] == "Unauthorized"

    code, _, body = cluster.request("GET", "/api/v1/namespaces", token="wrong")
    assert code == 401
    assert cluster.request("GET", "/api/v1/namespaces")[0] == 200
    # Another process (hil/, `k32 sim status`) finds the token again through the kubeconfig.
    assert SimCluster.from_state(cluster.state).request("GET", "/api/v1/namespaces")[0] == 200
    # kubectl with a wrong token fails the way it does against a real cluster.
    proc = cluster.kubectl("--token", "wrong", "get", "nodes")
    assert proc.returncode != 0
    assert "Unauthorized" in proc.stderr or "provide credentials" in proc.stderr, proc.stderr
