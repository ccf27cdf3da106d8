"""An HTTPS call from a pod: the control plane makes
it for its own pods and, through its egress gateway, for pods on workers. In the simulator
the host is a local HTTPS server whose CA the control plane trusts (--egress-ca); with boards,
--https-url names a site with a publicly trusted certificate."""

import socket

import pytest

from hil_examples import example
from hil_servers import serve
from test_04_network_policy import POD_START_S, wait_answer


@pytest.fixture
def https_url(request, target):
    url = request.config.getoption("--https-url")
    if url:
        yield url
        return
    if target.kind != "sim":
        pytest.skip("board target: pass --https-url https://<a host with a publicly trusted certificate>/")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = serve("127.0.0.1", port, tls=(target.pki["cert"], target.pki["key"]))
    yield f"https://127.0.0.1:{port}/"
    srv.shutdown()
    srv.server_close()


@pytest.mark.slow
def test_https_call_from_the_probes(target, cluster, https_url):
    probe = example("egress.yaml")
    out = cluster.kubectl("apply", "-f", str(probe))
    assert out.returncode == 0, out.stderr
    try:
        for which in ("cp", "worker"):
            answer = wait_answer(target, which, https_url, "rc=200 ", POD_START_S)
            assert answer.startswith("rc=200 status=200"), (which, answer)
    finally:
        cluster.kubectl("delete", "-f", str(probe), "--ignore-not-found", "--timeout=60s")


def test_gateway_refuses_a_client_that_is_not_a_node(cluster):
    # Without a token the gateway only serves the InternalIP of the pod's node; an unknown
    # pod can never match, so the answer is an error status.
    code, headers, _ = cluster.request(
        "POST",
        "/apis/kube32.io/v1/egress?pod=default/nope&timeout=1000&limit=10",
        body=b"GET https://example.com/ HTTP/1.1\r\n\r\n",
        headers={"Content-Type": "message/http"},
    )
    assert code >= 400
    assert "x-kube32-egress-result" in {k.lower() for k in headers}
