"""Room for pod-server connections beside a full worker: the worker runs as many echo pods as
its board takes (four on an ESP32 worker in board mode, whose heap then holds one connection
thread), and each open pod-server connection holds a thread whose stack is heap. A connection
kept alive between requests gives way to a new one when the heap cannot hold both (as it does
at the connection caps), so callers that keep connections open still get answers; when every
connection is busy the new one is refused with a clean 503 and Retry-After, and every request
that was taken is answered. Over real sockets against a simulated cluster."""

import socket

import pytest
from access_helpers import (
    POD_START_S,
    W1,
    apply,
    echo_pod,
    ingress,
    ingress_get,
    nodes,
    service,
    serving_cluster,
    wait_until,
)

from k32.boards import load_board
from k32.testing.clusters import boards_for_tests

PODS = load_board(boards_for_tests()[1]).budgets["pods_max"]["count"]
NAMES = [f"room-{i}" for i in range(min(PODS, 4))]
SOCKET_S = 30  # a stalled read fails the test instead of hanging it


def app(name: str) -> tuple:
    return echo_pod(name, W1, f"greeting-{name}"), service(name, {"app": name}), ingress(name, f"/{name}", name)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with serving_cluster(tmp_path_factory, "pod-room", app(NAMES[0]), [f"/{NAMES[0]}"]) as c:
        # Applied as a user would, each as soon as the one before answers: the Ingress keeps a
        # connection to the worker open meanwhile. A container whose runner thread the heap
        # cannot give beside that connection waits (CreateContainerError) and is tried again
        # after its back-off, by which time the kept connection has been closed for idleness.
        for name in NAMES[1:]:
            apply(c, *app(name))
            assert wait_until(lambda n=name: ingress_get(c, f"/{n}")[0] == 200, POD_START_S), c.kubectl(
                "get", "pod", name, "-o", "json"
            ).stdout
        yield c


def connect(c) -> socket.socket:
    n = nodes(c)[W1]
    return socket.create_connection((n["ip"], n["podPort"]), timeout=SOCKET_S)


def request(pod: str, body: bytes = b"", expect: bool = False) -> bytes:
    head = f"POST /hi HTTP/1.1\r\nHost: w\r\nX-Kube32-Pod: default/{pod}\r\nContent-Length: {len(body)}\r\n"
    if expect:
        head += "Expect: 100-continue\r\n"
    return head.encode() + b"\r\n"


def read_response(s: socket.socket) -> tuple[int, dict, bytes]:
    """(status, lower-cased headers, body) of one response with a Content-Length; b"" data and
    status 0 when the server closed before any of it."""
    data = b""
    while b"\r\n\r\n" not in data:
        part = s.recv(4096)
        if not part:
            assert not data, f"closed inside a response head: {data!r}"
            return 0, {}, b""
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    if status == 100:
        return status, headers, body  # what follows belongs to the final answer
    while len(body) < int(headers.get("content-length", "0")):
        part = s.recv(4096)
        assert part, "closed inside a body"
        body += part
    return status, headers, body


def ask(s: socket.socket, pod: str, payload: bytes) -> tuple[int, dict, bytes]:
    s.sendall(request(pod, payload) + payload)
    return read_response(s)


def test_kept_connections_give_way_to_new_ones(cluster):
    # One connection per pod, each kept open (idle) after its answer while the next one opens:
    # more open connections than a board's heap holds threads for beside its pods.
    kept = []
    try:
        for name in NAMES:
            s = connect(cluster)
            kept.append(s)
            status, _, body = ask(s, name, f"payload-{name}".encode())
            assert status == 200, (name, status, body)
            assert body.startswith(f"greeting-{name}".encode()) and body.endswith(f"payload-{name}".encode()), body
        # The newest is still kept alive and answers again on the same connection.
        status, _, body = ask(kept[-1], NAMES[-1], b"again")
        assert status == 200 and body.endswith(b"again"), (status, body)
        # An older one either still answers or was closed while idle, before any request of
        # it arrived: a request sent on it now is answered or meets a closed connection.
        for s, name in zip(kept[:-1], NAMES):
            try:
                status, _, body = ask(s, name, b"late")
            except (BrokenPipeError, ConnectionResetError):
                continue
            assert status in (0, 200), (name, status, body)
    finally:
        for s in kept:
            s.close()


def test_refusal_when_every_connection_is_busy_is_a_clean_503(cluster):
    # Busy connections: each sent a request head and was told to send its body (100 Continue),
    # so its request is under way and it is never closed for room. They are added until the
    # worker refuses one (its heap, the client's cap or the server's).
    cap = load_board(boards_for_tests()[1]).budgets["pod_connections"]["count"]
    busy = []
    refused = None
    try:
        for i in range(cap + 1):
            s = connect(cluster)
            name = NAMES[i % len(NAMES)]
            s.sendall(request(name, b"held-body", expect=True))
            status, headers, body = read_response(s)
            if status == 100:
                busy.append((s, name))
                continue
            refused = (status, headers, body)
            s.close()
            break
        assert busy, "no connection was served"
        assert refused, f"{len(busy)} busy connections and none refused (cap {cap})"
        status, headers, body = refused
        assert status == 503 and headers.get("retry-after") == "1", refused
        assert body in (b"cannot start a connection thread\n", b"too many connections\n"), body
        print(f"{len(busy)} busy pod-server connection(s) held, the next refused: {body!r}")
        # Every request that was taken is answered.
        for s, name in busy:
            s.sendall(b"held-body")
            status, _, body = read_response(s)
            assert status == 200 and body.startswith(f"greeting-{name}".encode()), (name, status, body)
            assert body.endswith(b"held-body"), body
    finally:
        for s, _ in busy:
            s.close()
    # With them done, a new connection is served again.

    def served() -> bool:
        with connect(cluster) as s:
            return ask(s, NAMES[0], b"after")[0] == 200

    assert wait_until(served, POD_START_S)
