"""Channel topics across the cluster: a message POSTed to the API server's channels route
reaches an Ingress event stream (event name from the payload's `type` or `t`) and the raw
channel stream workers use; bad topics and bodies are refused with a Status."""

import http.client
import json
import time

import pytest
from ingress_helpers import apply, get, ingress_address, wait_until

MANIFEST = """apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: chan
  namespace: default
  annotations:
    kube32.io/event-stream: "/chan/events=demo.topic,kube32.presence"
    kube32.io/stats-topic: "demo.stats"
spec:
  rules:
  - host: chan.test
    http:
      paths:
      - {path: /chan, pathType: Prefix, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: cluster}}}
"""


def api_post(cluster, path, body: bytes):
    status, _, data = cluster.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    return status, data


def read_events(resp, want: int, timeout: float = 10.0):
    events, name = [], None
    deadline = time.monotonic() + timeout
    while len(events) < want and time.monotonic() < deadline:
        line = resp.readline().decode()
        if line.startswith("event: "):
            name = line[7:].strip()
        elif line.startswith("data: ") and name:
            events.append((name, json.loads(line[6:])))
            name = None
    return events


@pytest.fixture(scope="module")
def chan(sim_cluster):
    apply(sim_cluster, MANIFEST)
    assert wait_until(lambda: get(sim_cluster, "/chan/", host="chan.test")[0] == 200)
    yield sim_cluster


def test_published_message_reaches_event_stream(chan):
    ip, port = ingress_address(chan)
    conn = http.client.HTTPConnection(ip, port, timeout=10)
    conn.request("GET", "/chan/events")
    resp = conn.getresponse()
    assert read_events(resp, 1)[0] == ("presence", {"viewers": 1})
    status, body = api_post(chan, "/apis/kube32.io/v1/channels/demo.topic", b'{"type":"hello","n":1}')
    assert status == 200 and json.loads(body)["delivered"] >= 1
    api_post(chan, "/apis/kube32.io/v1/channels/demo.topic", b'{"t":"tick","n":2}')
    api_post(chan, "/apis/kube32.io/v1/channels/other.topic", b'{"type":"nope"}')
    api_post(chan, "/apis/kube32.io/v1/channels/demo.topic", b'{"plain":true}')
    got = read_events(resp, 3)
    assert got == [("hello", {"type": "hello", "n": 1}), ("tick", {"t": "tick", "n": 2}), ("message", {"plain": True})]
    conn.close()


def open_channel_stream(cluster, topics: str):
    """The raw channel stream a worker's bridge reads: one JSON line per message."""
    from urllib.parse import urlparse

    u = urlparse(cluster.api_url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", f"/apis/kube32.io/v1/channels?topics={topics}")
    resp = conn.getresponse()
    assert resp.status == 200
    return conn, resp


def test_stats_topic_and_raw_channel_stream(chan):
    conn, resp = open_channel_stream(chan, "demo.stats,demo.topic")
    for _ in range(5):
        assert get(chan, "/chan/", host="chan.test")[0] == 200
    api_post(chan, "/apis/kube32.io/v1/channels/demo.topic", b'{"type":"raw"}')
    seen_raw, stats = False, None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (seen_raw and stats):
        line = resp.readline().strip()
        if not line:
            continue
        msg = json.loads(line)
        payload = json.loads(msg["payload"])
        if msg["topic"] == "demo.topic":
            seen_raw = payload == {"type": "raw"}
        elif msg["topic"] == "demo.stats" and payload["rps"] >= 1:
            stats = payload
    conn.close()
    assert seen_raw
    assert stats["t"] == "stats" and stats["ingress"] == "default/chan" and "viewers" in stats


def test_bad_topic_and_body_are_refused(chan):
    status, body = api_post(chan, "/apis/kube32.io/v1/channels/bad%20topic", b"{}")
    assert status == 400 and json.loads(body)["kind"] == "Status"
    status, body = api_post(chan, "/apis/kube32.io/v1/channels/ok.topic", b"{not json")
    assert status == 400 and "not JSON" in json.loads(body)["message"]
