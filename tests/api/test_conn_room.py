"""Closing connections to make room never loses a request.

The S3 control plane holds a few API connections per client address (every test client,
kubectl and the node's own kubelet among them, is 127.0.0.1). When a client opens one
more, a connection of that address that waits for a request is closed for it, but only
one that has waited HTTP_EVICT_IDLE_MS with nothing arrived: a connection that just got
an answer, or just connected, is about to carry a request, and closing it under one
answers nothing (kubectl reported `Post ...: EOF` for a pod it created; Kubernetes
clients never retry a POST). When no connection can give way, the newcomer is refused
with 503 and Retry-After, which kubectl retries by itself.

Real sockets against a real S3-profile node; each round checks its own timing (a round
on a loaded machine that took longer than the wait proves nothing and is run again)."""

import http.client
import json
import socket
import time

import pytest

from k32.boards import load_board, load_common
from k32.testing.clusters import make_test_cluster
from k32.testing.sockets import recv_until

BOARD = "s3"
CLIENT_CAP = load_board(BOARD).budgets["client_connections"]["count"]
EVICT_IDLE_S = load_common()["HTTP_EVICT_IDLE_MS"] / 1000
ROUNDS = 20  # rounds tried before giving up on getting one within the wait
# A round proves something only when every request went out well within the wait as the
# server counts it (from just before the client read its answer): half of it.
IN_TIME_S = EVICT_IDLE_S / 2


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = make_test_cluster(tmp_path_factory.mktemp("room"), workers=0, board=BOARD)
    c.up()
    yield c
    c.down()


def api(cluster) -> tuple[str, int]:
    cp = cluster.status()["nodes"][0]
    return cp["ip"], cp["apiPort"]


def headers(cluster) -> dict:
    return {"Authorization": f"Bearer {cluster.token}"} if cluster.token else {}


def raw_answer(sock: socket.socket, request: bytes) -> bytes:
    """Sends `request` and reads the answer's head (b"" when the server closed without one)."""
    sock.sendall(request)
    return recv_until(sock, b"\r\n\r\n", reset_is_close=True)


NEWCOMER_GET = b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def newcomer(cluster) -> socket.socket:
    """One more connection from the same address, its GET sent (the answer is read later:
    the server may take its refusal wait before answering)."""
    s = socket.create_connection(api(cluster), timeout=10)
    s.sendall(NEWCOMER_GET)
    return s


def newcomer_answer(cluster) -> bytes:
    s = newcomer(cluster)
    try:
        return raw_answer(s, b"")
    finally:
        s.close()


def check_answered(answer: bytes) -> None:
    """200, or 503: refused at accept because the node's own kubelet held a slot then (an
    answer all the same)."""
    assert answer.startswith((b"HTTP/1.1 200", b"HTTP/1.1 503")), answer[:200]


def check_newcomer(answer: bytes) -> None:
    assert answer, "the newcomer's connection was closed without an answer"
    check_answered(answer)
    if answer.startswith(b"HTTP/1.1 503"):
        assert b"\r\nretry-after: " in answer.lower(), f"a refusal without Retry-After: {answer[:200]!r}"


def send_configmap(conn: http.client.HTTPConnection, cluster, name: str) -> None:
    """Sends a POST creating a ConfigMap; its answer is read later (conn.getresponse)."""
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
    h = {"Content-Type": "application/json", **headers(cluster)}
    conn.request("POST", "/api/v1/namespaces/default/configmaps", body=body, headers=h)


def answered_connections(cluster, conns: list) -> float:
    """Opens CLIENT_CAP kept-alive connections into `conns` (the caller closes them) and
    has each answer one GET; returns when the first answer came."""
    ip, port = api(cluster)
    conns += [http.client.HTTPConnection(ip, port, timeout=10) for _ in range(CLIENT_CAP)]
    first_answer = None
    for c in conns:
        c.request("GET", "/version", headers=headers(cluster))
        r = c.getresponse()
        r.read()
        first_answer = first_answer or time.monotonic()
        assert r.status in (200, 503), r.status  # 503: the node's own kubelet held a slot
    return first_answer


def a_round_in_time(one_round) -> None:
    """Runs one_round(n) until a round returns True. A round returns False when it took
    longer than IN_TIME_S to send its requests: they had waited long enough to be closed,
    so it proves nothing either way."""
    for n in range(ROUNDS):
        if one_round(n):
            return
    pytest.fail(f"no round of {ROUNDS} finished within {EVICT_IDLE_S} s")


def test_connection_that_just_got_an_answer_keeps_its_next_request(cluster):
    """CLIENT_CAP kept-alive connections, each just answered; one more connection from the
    same address must not close any of them: each one's next request (a POST) is answered."""

    def one_round(rnd: int) -> bool:
        conns, late = [], None
        try:
            first_answer = answered_connections(cluster, conns)
            late = newcomer(cluster)
            live = [(i, c) for i, c in enumerate(conns) if c.sock is not None]  # the rest got 503
            if time.monotonic() - first_answer >= IN_TIME_S:
                return False
            lost = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)
            for i, c in live:  # every POST sent within the wait; the answers are read below
                try:
                    send_configmap(c, cluster, f"room-{rnd}-{i}")
                except lost as e:
                    pytest.fail(f"connection {i}, just answered, was closed for a newcomer before its POST: {e!r}")
            for i, c in live:
                try:
                    resp = c.getresponse()
                    resp.read()
                except lost as e:
                    pytest.fail(f"connection {i}, just answered, was closed under its POST for a newcomer: {e!r}")
                assert resp.status == 201, resp.status
            check_newcomer(raw_answer(late, b""))
            return True
        finally:
            for c in [*conns, late]:
                if c is not None:
                    c.close()

    a_round_in_time(one_round)


def test_connection_that_just_opened_keeps_its_first_request(cluster):
    """CLIENT_CAP connections just opened (no request sent yet, as a client between connect
    and write); one more from the same address must not close any of them."""
    ip, port = api(cluster)
    auth = f"Authorization: Bearer {cluster.token}\r\n".encode() if cluster.token else b""
    request = b"GET /version HTTP/1.1\r\nHost: x\r\n" + auth + b"\r\n"

    def one_round(_: int) -> bool:
        socks, late = [], None
        try:
            socks += [socket.create_connection((ip, port), timeout=10) for _ in range(CLIENT_CAP)]
            opened = time.monotonic()
            late = newcomer(cluster)
            at = time.monotonic()
            if at - opened >= IN_TIME_S:
                return False
            for s in socks:
                s.sendall(request)  # all sent within the wait; the answers are read below
            for i, s in enumerate(socks):
                got = raw_answer(s, b"")
                assert got, f"connection {i}, opened {at - opened:.3f} s before the newcomer, was closed for it"
                check_answered(got)
            check_newcomer(raw_answer(late, b""))
            return True
        finally:
            for s in [*socks, late]:
                if s is not None:
                    s.close()

    a_round_in_time(one_round)


def test_connection_idle_past_the_wait_gives_way(cluster):
    """Connections that waited longer than HTTP_EVICT_IDLE_MS do give way: the newcomer is
    served and the longest-waiting connection sees the server close it."""
    conns = []
    try:
        answered_connections(cluster, conns)
        time.sleep(EVICT_IDLE_S * 2)
        answer = newcomer_answer(cluster)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        closed = 0
        for c in conns:
            if c.sock is None:
                closed += 1
                continue
            c.sock.settimeout(2)
            try:
                closed += c.sock.recv(1) == b""
            except (ConnectionResetError, TimeoutError):
                closed += 0
        assert closed >= 1, "no idle connection was closed for the newcomer"
    finally:
        for c in conns:
            c.close()
