"""examples/echo.yaml: a request through the Ingress reaches the echo pod, and
its SSE stream announces the viewer."""

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from hil_examples import example
from k32.testing.poll import wait_until

READY_TIMEOUT = 60


@pytest.fixture(scope="module")
def echo(target):
    path = example("echo.yaml")
    r = target.cluster.kubectl("apply", "-f", str(path))
    assert r.returncode == 0, r.stderr
    yield target.ingress_url
    target.cluster.kubectl("delete", "-f", str(path), "--ignore-not-found", "--wait=false")


def _post(url, body=b"hello"):
    req = urllib.request.Request(url, data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError:
        return 0, b""


def test_echo_through_the_ingress(echo):
    wait_until(lambda: _post(echo + "/echo/hello")[0] == 200, READY_TIMEOUT, interval=1)
    status, body = _post(echo + "/echo/hello")
    assert status == 200, (status, body[:200])
    assert body


def test_sse_presence(echo):
    u = urllib.parse.urlsplit(echo)
    with socket.create_connection((u.hostname, u.port or 80), timeout=10) as s:
        s.sendall(f"GET /echo/events HTTP/1.1\r\nHost: {u.netloc}\r\nAccept: text/event-stream\r\n\r\n".encode())
        buf = b""
        deadline = time.monotonic() + 30
        while b"event: presence" not in buf and time.monotonic() < deadline:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    head = buf.split(b"\r\n", 1)[0]
    assert b" 200" in head, buf[:300]
    assert b"text/event-stream" in buf.lower()
    after = buf.split(b"event: presence", 1)[1]
    data = next(line for line in after.split(b"\n") if line.startswith(b"data:"))
    assert json.loads(data[5:])["viewers"] >= 1
