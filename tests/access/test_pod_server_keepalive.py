"""A worker's pod server keeps an idle connection only briefly: each open one holds a
connection thread (on a board its stack is heap), so a kept-alive connection that brings no
new request within POD_KEEPALIVE_IDLE_MS is closed. Within that deadline keep-alive works,
and the ingress, whose pooled connection to the worker was closed, still answers.
Over real sockets against a simulated cluster."""

import socket
import time

import pytest
from access_helpers import W1, echo_pod, ingress, ingress_get, nodes, service, serving_cluster

from k32.boards import load_common

IDLE_S = load_common()["POD_KEEPALIVE_IDLE_MS"] / 1000
KEEPALIVE_IDLE_S = load_common()["HTTP_KEEPALIVE_IDLE_MS"] / 1000
assert KEEPALIVE_IDLE_S / 2 > IDLE_S
REQUEST = b"GET / HTTP/1.1\r\nHost: w\r\nX-Kube32-Pod: default/kept\r\n\r\n"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    kept = (echo_pod("kept", W1, "greeting-kept"), service("kept", {"app": "kept"}), ingress("kept", "/kept", "kept"))
    with serving_cluster(tmp_path_factory, "pod-keepalive", kept, ["/kept"]) as c:
        yield c


def read_response(s: socket.socket) -> bytes:
    """One whole response with a Content-Length (the echo pod's)."""
    data = b""
    while b"\r\n\r\n" not in data:
        part = s.recv(4096)
        assert part, f"closed before a response: {data!r}"
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(h.split(b":", 1)[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:"))
    while len(body) < length:
        part = s.recv(4096)
        assert part, "closed inside a body"
        body += part
    return head + b"\r\n\r\n" + body


def test_idle_pod_server_connection_is_closed_after_its_deadline(cluster):
    n = nodes(cluster)[W1]
    with socket.create_connection((n["ip"], n["podPort"]), timeout=10) as s:
        # Kept alive: a second request within the deadline is answered on the same connection.
        for _ in range(2):
            s.sendall(REQUEST)
            answer = read_response(s)
            assert answer.startswith(b"HTTP/1.1 200") and b"greeting-kept" in answer, answer
            time.sleep(IDLE_S / 4)
        # Then nothing: the server closes it once the idle deadline passed, not at the HTTP
        # servers' own keep-alive deadline (30 s); half of that is the margin for a loaded machine.
        start = time.monotonic()
        s.settimeout(KEEPALIVE_IDLE_S / 2)
        try:
            closed = s.recv(1) == b""
        except ConnectionResetError:
            closed = True
        except TimeoutError:
            closed = False
        assert closed, f"still open {time.monotonic() - start:.1f} s after the last answer (deadline {IDLE_S} s)"


def test_ingress_still_answers_after_its_kept_connection_was_closed(cluster):
    for _ in range(3):
        status, _, body = ingress_get(cluster, "/kept")
        assert status == 200 and "greeting-kept" in body, (status, body)
        time.sleep(IDLE_S + 0.5)
