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


def event_source_events(resp, want: int, timeout: float = 30.0, skip: str = ""):
    """Events as a browser's EventSource reads them: a line ends at CR, LF or CRLF, a blank
    line dispatches, "event:" names and "data:" appends (one leading space dropped). Events
    named `skip` are not counted or returned."""
    events, name, data, pending = [], "", None, b""
    deadline = time.monotonic() + timeout
    while len(events) < want and time.monotonic() < deadline:
        pending += resp.read1(4096)
        while True:
            cut = min((i for i in (pending.find(b"\r"), pending.find(b"\n")) if i >= 0), default=-1)
            if cut < 0 or (pending[cut : cut + 1] == b"\r" and cut + 1 == len(pending)):
                break  # a CR at the end may be the first half of a CRLF
            line = pending[:cut].decode()
            pending = pending[cut + (2 if pending[cut : cut + 2] == b"\r\n" else 1) :]
            if not line:
                if data is not None and (name or "message") != skip:
                    events.append((name or "message", data[:-1]))
                name, data = "", None
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data = (data or "") + value + "\n"
    return events


def test_a_published_payload_cannot_forge_events_or_fields(chan):
    """A message's type is pod-chosen, and JSON may hold a bare CR between tokens: neither may
    end a line of the stream early, so the browser sees one event with the payload intact."""
    ip, port = ingress_address(chan)
    conn = http.client.HTTPConnection(ip, port, timeout=10)
    conn.request("GET", "/chan/events")
    resp = conn.getresponse()
    assert event_source_events(resp, 1)[0][0] == "presence"
    forged = b'{"type":"x\\n\\nevent: forged\\ndata: {}","n":1}'
    split = b'{"type":"split",\r"n":2}'
    for body in (forged, split):
        status, _ = api_post(chan, "/apis/kube32.io/v1/channels/demo.topic", body)
        assert status == 200
    got = event_source_events(resp, 2, skip="presence")  # viewers come and go meanwhile
    conn.close()
    assert [name for name, _ in got] == ["message", "split"]
    assert json.loads(got[0][1]) == json.loads(forged)
    assert json.loads(got[1][1]) == {"type": "split", "n": 2}


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
    deadline = time.monotonic() + 30
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
