"""NetworkPolicy: the API defaults and prints policies as kube-apiserver does, and
examples/egress*.yaml behave as docs/calls.md says — the probes on the control plane and on a
worker reach port 8000 of an outside host; with the policy, 8000 stays allowed and any other
port gets K32_ERR_PERM (-1)."""

import json
import urllib.request

import pytest

from hil_examples import example
from hil_servers import serve
from k32.testing.poll import wait_until

POLICY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "hil-egress", "namespace": "default"},
    "spec": {
        "podSelector": {"matchLabels": {"app": "probe"}},
        "egress": [
            {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["192.168.4.0/24"]}}], "ports": [{"port": 8000}]}
        ],
    },
}
PATH = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies"
POD_START_S = 90
PROPAGATION_S = 60  # a worker relists policies every 5 s and records labels every pod sync; slack for a loaded machine


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


def ask_probe(target, which: str, url: str) -> str:
    """The probe answers "rc=<k32_http_call result> status=<HTTP status>" (examples/egress.yaml)."""
    try:
        with urllib.request.urlopen(f"{target.ingress_url}/egress-probe/{which}?url={url}", timeout=20) as r:
            return r.read().decode(errors="replace")
    except OSError as e:
        return f"unreachable: {e}"


def wait_answer(target, which, url, prefix, timeout):
    answers = [""]

    def starts_right() -> bool:
        answers.append(ask_probe(target, which, url))
        return answers[-1].startswith(prefix)

    wait_until(starts_right, timeout, interval=1)
    return answers[-1]


@pytest.fixture
def port_8000(request):
    host = request.config.getoption("--host-ip")
    try:
        srv = serve("0.0.0.0" if host != "127.0.0.1" else host, 8000)
    except OSError as e:
        pytest.skip(f"port 8000 is taken on this machine ({e}); examples/egress-policy.yaml names it")
    yield host
    srv.shutdown()
    srv.server_close()


@pytest.mark.slow
def test_probe_allowed_then_denied(target, cluster, port_8000):
    host = port_8000
    probe, policy = example("egress.yaml"), example("egress-policy.yaml")
    out = cluster.kubectl("apply", "-f", str(probe))
    assert out.returncode == 0, out.stderr
    try:
        for which in ("cp", "worker"):
            answer = wait_answer(target, which, f"http://{host}:8000/", "rc=200 ", POD_START_S)
            assert answer.startswith("rc=200 status=200"), (which, answer)
        out = cluster.kubectl("apply", "-f", str(policy))
        assert out.returncode == 0, out.stderr
        for which in ("cp", "worker"):
            denied = wait_answer(target, which, f"http://{host}:8001/", "rc=-1 ", PROPAGATION_S)
            assert denied.startswith("rc=-1 "), (which, denied)
            allowed = ask_probe(target, which, f"http://{host}:8000/")
            assert allowed.startswith("rc=200 status=200"), (which, allowed)
        assert target.cp.expect(r"\[NETPOL\] default/egress-probe-cp -> .* denied", timeout=10)
    finally:
        cluster.kubectl("delete", "-f", str(policy), "--ignore-not-found")
        cluster.kubectl("delete", "-f", str(probe), "--ignore-not-found", "--timeout=60s")
