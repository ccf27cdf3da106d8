"""NetworkPolicy (spec 004): the API defaults and prints policies as kube-apiserver does;
with examples/egress*.yaml the probe's calls are allowed or denied by the policy."""
import json
import time

import pytest

from hil_examples import example

POLICY = {
    "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
    "metadata": {"name": "hil-egress", "namespace": "default"},
    "spec": {"podSelector": {"matchLabels": {"app": "probe"}},
             "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["192.168.4.0/24"]}}],
                         "ports": [{"port": 8000}]}]},
}
PATH = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies"


def test_policy_defaults_and_table(cluster):
    cluster.request("DELETE", f"{PATH}/hil-egress")
    code, _, body = cluster.request("POST", PATH, POLICY)
    assert code == 201, body[:300]
    try:
        spec = json.loads(body)["spec"]
        assert spec["policyTypes"] == ["Ingress", "Egress"]
        assert spec["egress"][0]["ports"][0]["protocol"] == "TCP"
        out = cluster.kubectl("get", "netpol", "hil-egress")
        assert out.returncode == 0, out.stderr
        assert "app=probe" in out.stdout
    finally:
        cluster.request("DELETE", f"{PATH}/hil-egress")


def test_probe_allowed_then_denied(cluster):
    probe, policy = example("egress.yaml"), example("egress-policy.yaml")
    assert cluster.kubectl("apply", "-f", str(probe)).returncode == 0
    try:
        assert cluster.kubectl("apply", "-f", str(policy)).returncode == 0
        # The probe reports each call's result in its log (examples/egress.yaml); a call
        # the policy does not allow returns K32_ERR_PERM (-1).
        deadline = time.monotonic() + 60
        logs = ""
        while time.monotonic() < deadline and "-1" not in logs:
            logs = cluster.kubectl("logs", "probe").stdout
            time.sleep(2)
        assert "-1" in logs, logs[-500:]
    finally:
        cluster.kubectl("delete", "-f", str(policy), "--ignore-not-found")
        cluster.kubectl("delete", "-f", str(probe), "--ignore-not-found", "--wait=false")
