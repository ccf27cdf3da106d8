"""A node delivers channel messages to all its pods' k32_event on one thread ("k32_events"),
not one per pod: on a board every thread's stack is heap (events_stack plus an in-process
call's), so a thread per pod with event topics cost each pod that much. The node's threads
carry their names (pthread_setname_np), so /proc shows how many delivery threads are alive;
STATUS counts how many were ever started."""

import json
import sys
import threading
import time

import pytest
from pods_helpers import apply, get_pod, pod_request, wait_until

from k32.testing.clusters import make_test_cluster
from k32.testing.node_threads import live_threads, node_of, pod_on, started_threads

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the node's threads from /proc")

THREAD = "k32_events"
TOPIC = "delivery.test"
PODS = ("evt-a", "evt-b", "evt-c")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = make_test_cluster(tmp_path_factory.mktemp("events"), workers=1)
    c.up()
    yield c
    c.down()


def control_plane(cluster) -> dict:
    # The pods go where pods with event topics run in examples/echo.yaml; it holds three of
    # them in both profiles (an ESP32 worker's pod memory is smaller).
    return node_of(cluster, "control-plane")


def event_pod(node: str, name: str) -> dict:
    container = {"name": "echo", "image": "wasm://embedded/echo"}
    return pod_on(node, name, container, annotations={"kube32.io/event-topics": TOPIC})


def delivery_threads(cluster) -> int:
    """The control plane's delivery threads, alive now."""
    return live_threads(control_plane(cluster), THREAD)


def logged(cluster, pod: str, text: str) -> bool:
    return text in cluster.kubectl("logs", pod).stdout


def test_one_delivery_thread_for_every_pod_with_event_topics(cluster):
    node = control_plane(cluster)["name"]
    assert delivery_threads(cluster) == 0  # no pod subscribed: no thread holds a stack
    for name in PODS:
        apply(cluster, json.dumps(event_pod(node, name)))
    for name in PODS:
        ok = wait_until(lambda n=name: (q := get_pod(cluster, n)) and q["status"].get("phase") == "Running", 60)
        assert ok, get_pod(cluster, name)
    # Every pod gets each message, all from the one thread.
    for i in range(3):
        status, _, body = cluster.request(
            "POST",
            f"/apis/kube32.io/v1/channels/{TOPIC}",
            body=json.dumps({"n": i}).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert status in (200, 201), (status, body)
        for name in PODS:
            want = f'event {TOPIC}: {{"n":{i}}}'
            assert wait_until(lambda n=name, w=want: logged(cluster, n, w)), cluster.kubectl("logs", name).stdout
    assert delivery_threads(cluster) == 1
    assert started_threads(cluster, control_plane(cluster), THREAD) == 1
    # Each pod's messages came in the order published.
    for name in PODS:
        lines = [ln for ln in cluster.kubectl("logs", name).stdout.splitlines() if ln.startswith(f"event {TOPIC}:")]
        assert lines == [f'event {TOPIC}: {{"n":{i}}}' for i in range(3)], lines

    # One pod deleted: the others still get every message.
    assert cluster.kubectl("delete", "pod", PODS[0], "--wait=false").returncode == 0
    assert wait_until(lambda: get_pod(cluster, PODS[0]) is None), "the kubelet did not finish the deletion"
    status, _, _ = cluster.request(
        "POST",
        f"/apis/kube32.io/v1/channels/{TOPIC}",
        body=b'{"n":"after"}',
        headers={"Content-Type": "application/json"},
    )
    assert status in (200, 201)
    for name in PODS[1:]:
        assert wait_until(lambda n=name: logged(cluster, n, f'event {TOPIC}: {{"n":"after"}}'))
    assert delivery_threads(cluster) == 1

    # The last pod gone: the thread ends and its stack goes back.
    for name in PODS[1:]:
        assert cluster.kubectl("delete", "pod", name, "--wait=false").returncode == 0
    for name in PODS[1:]:
        assert wait_until(lambda n=name: get_pod(cluster, n) is None), "the kubelet did not finish the deletion"
    assert wait_until(lambda: delivery_threads(cluster) == 0, 30), delivery_threads(cluster)


def test_a_pod_busy_with_a_request_does_not_hold_up_the_others(cluster):
    """The one thread passes over a pod whose instance is serving a request (slow works for
    8 s) instead of waiting for it: the echo pod beside it logs both messages while
    the request still runs."""
    node = control_plane(cluster)["name"]
    topic = "delivery.busy"
    slow = event_pod(node, "evt-slow")
    slow["metadata"]["annotations"]["kube32.io/event-topics"] = topic
    slow["spec"]["containers"][0].update(image="wasm://embedded/slow", env=[{"name": "SLOW_MS", "value": "8000"}])
    echo = event_pod(node, "evt-echo")
    echo["metadata"]["annotations"]["kube32.io/event-topics"] = topic
    for pod in (slow, echo):
        apply(cluster, json.dumps(pod))
    for name in ("evt-slow", "evt-echo"):
        ok = wait_until(lambda n=name: (q := get_pod(cluster, n)) and q["status"].get("phase") == "Running", 60)
        assert ok, get_pod(cluster, name)
    answer = {}

    def ask_slow():
        answer["r"] = pod_request(cluster, node, "default/evt-slow", "GET", "/")
        answer["at"] = time.monotonic()

    request = threading.Thread(target=ask_slow)
    request.start()
    time.sleep(0.5)  # the request holds slow's instance now
    for i in range(2):
        status, _, _ = cluster.request(
            "POST",
            f"/apis/kube32.io/v1/channels/{topic}",
            body=json.dumps({"n": i}).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert status in (200, 201)
    want = [f'event {topic}: {{"n":{i}}}' for i in range(2)]
    assert wait_until(lambda: all(logged(cluster, "evt-echo", w) for w in want)), cluster.kubectl(
        "logs", "evt-echo"
    ).stdout
    seen_at = time.monotonic()
    request.join(20)
    assert answer["r"][0] == 200 and answer["r"][2] == b"done\n", answer
    # Ordered, not timed: however slowly kubectl reads the logs on a loaded machine, echo's
    # messages were there before slow's request ended, so they did not wait for it.
    late = seen_at - answer["at"]
    assert late < 0, f"echo's messages were seen {late:.1f} s after slow's 8 s request ended: held behind it"
    for name in ("evt-slow", "evt-echo"):
        cluster.kubectl("delete", "pod", name, "--wait=false")
