"""A request pod (one that serves k32_handle) holds no thread of its own once it runs: its
calls run on the threads that bring them, and on a board every thread's stack is heap (a
runner's is the in-process call's 16 KiB). The node's threads carry their names
(pthread_setname_np), so the worker's /proc shows whether a container runner ("pod") stays."""

import json
import sys

import pytest
from pods_helpers import apply, get_pod, pod_request, wait_until

from k32.testing.clusters import make_test_cluster
from k32.testing.node_threads import live_threads, node_of, pod_on

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the node's threads from /proc")

RUNNER = "pod"  # the name a container's runner thread starts with


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = make_test_cluster(tmp_path_factory.mktemp("runners"), workers=1)
    c.up()
    yield c
    c.down()


def runner_threads(cluster) -> int:
    """The worker's threads named as a container's runner, alive now."""
    return live_threads(node_of(cluster, "worker"), RUNNER)


def test_request_pod_runs_without_a_runner_thread(cluster):
    w = node_of(cluster, "worker")["name"]
    container = {"name": "echo", "image": "wasm://embedded/echo", "env": [{"name": "GREETING", "value": "threads"}]}
    apply(cluster, json.dumps(pod_on(w, "echo-threads", container)))
    running = wait_until(lambda: (q := get_pod(cluster, "echo-threads")) and q["status"].get("phase") == "Running")
    assert running, get_pod(cluster, "echo-threads")
    status, _, body = pod_request(cluster, w, "default/echo-threads", "POST", "/hi", b"x")
    assert status == 200 and body == b"threads\nPOST /hi\nx", (status, body)
    # The runner started the container and ended; calls still reach the instance.
    assert wait_until(lambda: runner_threads(cluster) == 0, 10), runner_threads(cluster)
    for i in range(3):
        status, _, body = pod_request(cluster, w, "default/echo-threads", "POST", "/again", str(i).encode())
        assert status == 200 and body.endswith(str(i).encode()), (status, body)
    assert runner_threads(cluster) == 0
    # Deleting the pod frees its instance without a runner to wake.
    assert cluster.kubectl("delete", "pod", "echo-threads", "--wait=false").returncode == 0
    assert wait_until(lambda: get_pod(cluster, "echo-threads") is None), "the kubelet did not finish the deletion"
    assert pod_request(cluster, w, "default/echo-threads")[0] == 404


def test_request_pod_that_traps_is_restarted_by_a_runner_that_ends_again(cluster):
    """kicker traps in every k32_handle: the trap starts a runner, which restarts the
    container (restartCount, CrashLoopBackOff's back-off) and ends once it serves again."""
    w = node_of(cluster, "worker")["name"]
    container = {"name": "kick", "image": "wasm://embedded/kicker"}
    apply(cluster, json.dumps(pod_on(w, "kicker-threads", container)))

    def state():
        q = get_pod(cluster, "kicker-threads") or {}
        cs = (q.get("status", {}).get("containerStatuses") or [{}])[0]
        return cs.get("restartCount", 0), "running" in (cs.get("state") or {})

    assert wait_until(lambda: state() == (0, True)), get_pod(cluster, "kicker-threads")
    assert wait_until(lambda: runner_threads(cluster) == 0, 10), runner_threads(cluster)
    status, _, body = pod_request(cluster, w, "default/kicker-threads", "POST", "/kick")
    assert status == 500 and b"wasm trap in k32_handle" in body, (status, body)
    # Restarted after its back-off, serving again, and its runner gone again.
    assert wait_until(lambda: state() == (1, True), 90), get_pod(cluster, "kicker-threads")
    assert wait_until(lambda: runner_threads(cluster) == 0, 10), runner_threads(cluster)
    assert pod_request(cluster, w, "default/kicker-threads", "POST", "/kick")[0] == 500
    assert wait_until(lambda: state()[0] == 2, 60), get_pod(cluster, "kicker-threads")
    assert cluster.kubectl("delete", "pod", "kicker-threads", "--wait=false").returncode == 0
    assert wait_until(lambda: get_pod(cluster, "kicker-threads") is None), "the kubelet did not finish the deletion"


def test_container_in_back_off_holds_no_runner_thread(cluster):
    """crasher fails at every start: between its runs it waits out CrashLoopBackOff without a
    runner thread (on a board that thread's stack is 16 KiB of heap), and the kubelet starts
    the next runner when the back-off has ended: restartCount grows, the back-off with it, and
    a delete during the back-off ends the pod."""
    w = node_of(cluster, "worker")["name"]
    apply(cluster, json.dumps(pod_on(w, "crasher-threads", {"name": "crash", "image": "wasm://embedded/crasher"})))

    def status():
        q = get_pod(cluster, "crasher-threads") or {}
        return (q.get("status", {}).get("containerStatuses") or [{}])[0]

    def backing_off(cs):
        return (cs.get("state") or {}).get("waiting", {}).get("reason") == "CrashLoopBackOff"

    # Past the first back-offs (2 s, 4 s), into a longer one: the node's threads are sampled
    # while the status still says CrashLoopBackOff on both sides of the look.
    assert wait_until(lambda: status().get("restartCount", 0) >= 2, 90), get_pod(cluster, "crasher-threads")

    def idle_in_back_off():
        before = status()
        threads = runner_threads(cluster)
        after = status()
        same = before.get("restartCount") == after.get("restartCount")
        return backing_off(before) and backing_off(after) and same and threads == 0 and after

    cs = wait_until(idle_in_back_off, 60)
    assert cs, (status(), runner_threads(cluster))
    last = cs["lastState"]["terminated"]
    assert last["reason"] == "Error" and last["exitCode"] == 1, last
    # The next runner comes when the back-off ends: the container is restarted again.
    restarts = cs["restartCount"]
    assert wait_until(lambda: status().get("restartCount", 0) > restarts, 120), status()
    assert wait_until(lambda: backing_off(status()) and runner_threads(cluster) == 0, 60), status()
    assert cluster.kubectl("delete", "pod", "crasher-threads", "--wait=false").returncode == 0
    assert wait_until(lambda: get_pod(cluster, "crasher-threads") is None), "the kubelet did not finish the deletion"
    assert runner_threads(cluster) == 0
