"""Board mode: pods of three different shipped images on one classic ESP32 worker (no PSRAM).
A node compiles one module per image and shares it among the image's pods; the worker reports
the modules it holds in its Node's status.images (sizeBytes: the module's heap), which a real
kubectl shows, and the scheduler charges each image's module once per node beside the pods'
memory. So the worker takes pods until that count is full, the next pod stays Pending with
kube-scheduler's FailedScheduling reason, and no pod is refused at start for want of heap
(CreateContainerError). When an image's last pod goes, its module leaves the list and its
room is given to the pod that waited."""

import json

import pytest
from board_cluster import WORKER, WORKER_BOARD, api, assert_refused_by_scheduler, s3_with_esp32_worker

from k32.boards import load_board
from k32.testing.clusters import memory_quantity as quantity
from k32.testing.poll import wait_until

pytestmark = pytest.mark.slow

IMAGES = ("echo", "egress-probe", "printenv")  # request pods of shipped images (none grows), modules 7.0, 10.6, 2.6 KiB
POD_START_TIMEOUT_S = 90.0
STATUS_TIMEOUT_S = 60.0  # several heartbeats (each reports the modules held)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with s3_with_esp32_worker(tmp_path_factory, "imagemodules") as c:
        yield c


def image_pod(name: str, image: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"image": image}},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": WORKER},
            "containers": [
                {
                    "name": "app",
                    "image": f"wasm://embedded/{image}",
                    "ports": [{"containerPort": 7000}],
                    "resources": {"limits": {"memory": "64Ki"}},
                }
            ],
        },
    }


def get_pod(c, name) -> dict:
    status, p = api(c, "GET", f"/api/v1/namespaces/default/pods/{name}")
    assert status == 200, (status, p)
    return p


def start_refusals(c) -> list:
    """Every Event of a container refused at start (CreateContainerError) so far."""
    events = api(c, "GET", "/api/v1/namespaces/default/events")[1]["items"]
    return [
        (e["involvedObject"]["name"], e["message"])
        for e in events
        if "CreateContainerError" in e.get("message", "") or "not enough memory" in e.get("message", "")
    ]


def outcome(c, name):
    """'running', ('refused', condition), or None while undecided; a container refused at
    start fails the test at once."""
    st = get_pod(c, name).get("status") or {}
    for cond in st.get("conditions") or []:
        if cond["type"] == "PodScheduled" and cond["status"] == "False":
            return "refused", cond
    for cs in st.get("containerStatuses") or []:
        for state in (cs.get("state") or {}, cs.get("lastState") or {}):
            for part in state.values():
                assert part.get("reason") != "CreateContainerError", (name, st)
    ready = [cs.get("ready") for cs in st.get("containerStatuses") or []]
    assert st.get("phase") != "Failed", (name, st)
    return "running" if st.get("phase") == "Running" and ready and all(ready) else None


def kubectl_node(c) -> dict:
    p = c.kubectl("get", "node", WORKER, "-o", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def reported(node: dict) -> dict[str, int]:
    """The worker's status.images as image name (wasm://embedded/<name>) -> sizeBytes."""
    out = {}
    for img in node["status"].get("images") or []:
        for n in img["names"]:
            if "@" not in n:
                out[n] = img["sizeBytes"]
    return out


def test_pods_of_several_images_fill_an_esp32_worker_by_the_schedulers_count(cluster):
    b = load_board(WORKER_BOARD).budgets
    node = kubectl_node(cluster)
    allocatable = quantity(node["status"]["allocatable"]["memory"])
    overhead = quantity(node["metadata"]["annotations"]["kube32.io/pod-overhead"])
    assert not reported(node), node["status"].get("images")  # no pod yet: no module held

    running, charges, refusal = [], {}, None
    for i in range(b["pods_max"]["count"] + 1):
        image = IMAGES[i % len(IMAGES)]
        name = f"{image}-{i}"
        status, body = api(cluster, "POST", "/api/v1/namespaces/default/pods", image_pod(name, image))
        assert status == 201, (status, body)
        charges[name] = (image, quantity(body["spec"]["containers"][0]["resources"]["requests"]["memory"]))
        got = wait_until(lambda: outcome(cluster, name), POD_START_TIMEOUT_S, 0.5)
        assert got, (name, get_pod(cluster, name).get("status"))
        assert len(cluster.running_nodes()) == len(cluster.nodes), cluster.log_path(WORKER).read_text()[-800:]
        if got != "running":
            refusal = (name, got[1])
            break
        running.append(name)
    assert refusal, f"every pod ran: {running}"
    assert len({charges[n][0] for n in running}) >= 2, running
    name, cond = refusal
    msg = assert_refused_by_scheduler(cluster, name, cond, POD_START_TIMEOUT_S)
    assert get_pod(cluster, name)["status"]["phase"] == "Pending"
    assert not start_refusals(cluster), start_refusals(cluster)

    # The worker reports each image it runs once, with its module's heap, as kubectl shows it.
    held = {f"wasm://embedded/{charges[n][0]}" for n in running}

    def reporting_held():
        n = kubectl_node(cluster)
        return n if set(reported(n)) == held else None

    node = wait_until(reporting_held, STATUS_TIMEOUT_S, 1.0)
    assert node, (held, kubectl_node(cluster)["status"].get("images"))
    sizes = reported(node)
    assert all(s > 0 for s in sizes.values()), sizes
    print(f"modules on the worker: {sizes}; refused {name}: {msg}")
    # The scheduler's count, from what the Node says: the pods placed fit with one module per
    # image, and the refused one would not have (with its image's module when it is new).
    placed = sum(charges[n][1] + overhead for n in running) + sum(sizes.values())
    assert placed <= allocatable, (placed, allocatable)
    image, request = charges[name]
    full = len(running) == b["pods_max"]["count"] or placed + request + overhead > allocatable
    # A pod of an image the worker does not hold is charged that module too, and says so.
    assert full or f"with the compiled module of wasm://embedded/{image}" in msg, (placed, request, allocatable, msg)

    # The last pod of one image goes (not the waiting pod's image): its module leaves the
    # worker's list, and the pod that waited runs in the room it left.
    gone_image = next(charges[n][0] for n in running if charges[n][0] != charges[name][0])
    gone = [n for n in running if charges[n][0] == gone_image]
    for n in gone:
        assert api(cluster, "DELETE", f"/api/v1/namespaces/default/pods/{n}")[0] == 200
    left = held - {f"wasm://embedded/{gone_image}"}
    ok = wait_until(lambda: set(reported(kubectl_node(cluster))) == left, STATUS_TIMEOUT_S, 1.0)
    assert ok, (left, kubectl_node(cluster)["status"].get("images"))
    assert wait_until(lambda: outcome(cluster, name) == "running", POD_START_TIMEOUT_S, 0.5), get_pod(cluster, name)
    assert not start_refusals(cluster), start_refusals(cluster)
