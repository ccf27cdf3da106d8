"""An HTTPS call from a pod through the control plane (spec 004 "HTTPS + egress gateway")."""
import time

from hil_examples import example


def test_https_call_from_the_probe(cluster):
    probe = example("egress.yaml")
    assert cluster.kubectl("apply", "-f", str(probe)).returncode == 0
    try:
        # examples/egress.yaml's probe calls an https:// URL and logs the status it got.
        deadline = time.monotonic() + 90
        logs = ""
        while time.monotonic() < deadline and "https://" not in logs:
            logs = cluster.kubectl("logs", "probe").stdout
            time.sleep(2)
        assert "https://" in logs and " 200" in logs, logs[-500:]
    finally:
        cluster.kubectl("delete", "-f", str(probe), "--ignore-not-found", "--wait=false")


def test_gateway_refuses_a_client_that_is_not_a_node(cluster):
    # Without a token the gateway only serves the InternalIP of the pod's node; an unknown
    # pod can never match, so the answer is an error status (404 when there is no gateway).
    code, headers, _ = cluster.request("POST", "/apis/kube32.io/v1/egress?pod=default/nope&timeout=1000&limit=10",
                                       body=b"GET https://example.com/ HTTP/1.1\r\n\r\n")
    assert code >= 400
