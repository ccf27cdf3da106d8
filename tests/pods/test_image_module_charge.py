"""Each image's compiled module counted beside the pods, wherever pod memory is counted.

The kubelet's admission charges the modules too: a pod bound to a worker by hand
(spec.nodeName, no scheduler) whose image's module would not fit beside the pods there is
refused at admission, Failed with the kubelet's OutOfmemory reason naming the module, not
admitted to fail at its start for want of heap (CreateContainerError); the worker keeps
serving. And the worker reports its modules (Node status.images) as soon as one is compiled,
not at its next heartbeat: a pod scheduled right after a new image's first pod started is
charged that image's module. Both run in the default profile and in board mode (an esp32
worker)."""

import pytest
from pods_helpers import get_pod, pod_request, wait_until

from k32.images.build import build_all
from k32.testing.clusters import api_json as api
from k32.testing.clusters import make_test_cluster
from k32.testing.clusters import memory_quantity as quantity

pytestmark = pytest.mark.slow

START_S = 90.0
REPORT_S = 60.0  # several heartbeats: only where the test waits on purpose


def worker(c) -> str:
    return next(n["name"] for n in c.status()["nodes"] if n["role"] == "worker")


def node(c, name: str) -> dict:
    status, n = api(c, "GET", f"/api/v1/nodes/{name}")
    assert status == 200, (status, n)
    return n


def images(c, name: str) -> dict[str, int]:
    """The node's status.images as image name (no digest) -> sizeBytes."""
    out = {}
    for img in node(c, name)["status"].get("images") or []:
        for n in img["names"]:
            if "@" not in n:
                out[n] = img["sizeBytes"]
    return out


def budget(c, name: str) -> tuple[int, int]:
    """(allocatable memory, per-pod overhead) of a node."""
    n = node(c, name)
    return quantity(n["status"]["allocatable"]["memory"]), quantity(
        n["metadata"]["annotations"]["kube32.io/pod-overhead"]
    )


def make_pod(name: str, image: str, request=None, limit=None, node_name=None, on=None) -> dict:
    """A pod bound by hand to `node_name` or scheduled onto `on`. A container's linear memory
    is capped at its limit in whole 64 KiB pages, so one that runs has a limit of 64Ki at
    least; a built-in image is charged the larger of its request and what it can reach below
    its limit (echo's 5.2 KiB), a card's image (its reach unknown) the larger of the two."""
    resources = {}
    if request is not None:
        resources["requests"] = {"memory": str(request)}
    if limit is not None:
        resources["limits"] = {"memory": str(limit)}
    spec = {"containers": [{"name": "app", "image": image, "ports": [{"containerPort": 7000}], "resources": resources}]}
    if node_name:
        spec["nodeName"] = node_name
    if on:
        spec["nodeSelector"] = {"kubernetes.io/hostname": on}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def charged(c, name: str) -> int:
    """A card image's pod as the scheduler charges it: the larger of its request and limit."""
    res = get_pod(c, name)["spec"]["containers"][0].get("resources") or {}
    return max([quantity(res.get(k, {}).get("memory", "0")) for k in ("requests", "limits")])


def create(c, pod: dict):
    status, body = api(c, "POST", "/api/v1/namespaces/default/pods", pod)
    assert status == 201, (status, body)


def delete(c, name: str):
    assert api(c, "DELETE", f"/api/v1/namespaces/default/pods/{name}?gracePeriodSeconds=0")[0] == 200


def running(c, name: str) -> dict | None:
    p = get_pod(c, name)
    st = (p or {}).get("status") or {}
    for cs in st.get("containerStatuses") or []:
        for part in (cs.get("state") or {}).values():
            assert part.get("reason") != "CreateContainerError", (name, st)
    assert st.get("phase") != "Failed", (name, st)
    ready = [cs.get("ready") for cs in st.get("containerStatuses") or []]
    return p if st.get("phase") == "Running" and ready and all(ready) else None


def module_of(c, w: str, image: str, name: str) -> int:
    """The heap of `image`'s module on worker `w`, as it reports it: a pod of it run there,
    then deleted until the module is gone again."""
    create(c, make_pod(name, image, node_name=w))
    assert wait_until(lambda: running(c, name), START_S), (get_pod(c, name) or {}).get("status")
    got = wait_until(lambda: images(c, w).get(image), REPORT_S, 0.5)
    assert got, node(c, w)["status"].get("images")
    delete(c, name)
    assert wait_until(lambda: image not in images(c, w) and not get_pod(c, name), REPORT_S, 0.5), images(c, w)
    return got


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("modulecharge")
    card = root / "card"
    for img in build_all(root / "images", only=["echo", "printenv"]):
        d = card / "kube32" / "images" / img.name
        d.mkdir(parents=True)
        (d / f"{img.name}.wasm").write_bytes(img.wasm.read_bytes())
    c = make_test_cluster(root / "sim", workers=1, sd_dir=card)
    c.up()
    try:
        yield c
    finally:
        c.down()


def test_hand_bound_pod_whose_module_does_not_fit_is_refused_at_admission(cluster):
    c = cluster
    w = worker(c)
    allocatable, overhead = budget(c, w)
    new_image = "wasm://embedded/egress-probe"
    new_module = module_of(c, w, new_image, "probe-size")

    # One echo pod on the worker: its charge and echo's module are what the worker carries.
    first = 8 * 1024  # above echo's linear memory (5.2 KiB): charged exactly this
    create(c, make_pod("held-echo", "wasm://embedded/echo", first, 64 * 1024, node_name=w))
    assert wait_until(lambda: running(c, "held-echo"), START_S), get_pod(c, "held-echo")
    echo_module = wait_until(lambda: images(c, w).get("wasm://embedded/echo"), REPORT_S, 0.5)
    assert echo_module, node(c, w)["status"].get("images")
    free = allocatable - (first + overhead) - echo_module

    # A pod of an image the worker does not hold: it fits by its own charge, and not with its
    # image's module (by half of it either way).
    request = free - overhead - new_module // 2
    assert request > 16 * 1024, (free, overhead, new_module)
    create(c, make_pod("no-room", new_image, request, max(request, 64 * 1024), node_name=w))
    p = wait_until(lambda: (q := get_pod(c, "no-room")) and q["status"].get("phase") == "Failed" and q, START_S)
    assert p, get_pod(c, "no-room")
    st = p["status"]
    assert st["reason"] == "OutOfmemory", st
    assert st["message"].startswith("Pod was rejected: Node didn't have enough resource: memory, requested: "), st
    assert f"(with the compiled module of {new_image}: " in st["message"], st
    assert not st.get("containerStatuses"), st  # refused before any start
    events = api(c, "GET", "/api/v1/namespaces/default/events")[1]["items"]
    assert not [e for e in events if "CreateContainerError" in e.get("message", "")], events

    # The worker keeps serving: its pod answers, and a pod that fits beside it runs.
    assert len(c.running_nodes()) == len(c.nodes), c.log_path(w).read_text()[-800:]
    status, _, body = pod_request(c, w, "default/held-echo", "POST", "/x", b"y")
    assert status == 200, (status, body)
    create(c, make_pod("fits", "wasm://embedded/echo", first, 64 * 1024, node_name=w))
    assert wait_until(lambda: running(c, "fits"), START_S), get_pod(c, "fits")
    for name in ("held-echo", "fits", "no-room"):
        delete(c, name)
    assert wait_until(lambda: not images(c, w), REPORT_S, 0.5), images(c, w)


def renewed(c, w: str) -> str:
    status, lease = api(c, "GET", f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{w}")
    assert status == 200, (status, lease)
    return lease["spec"]["renewTime"]


def test_pod_scheduled_right_after_a_new_images_first_start_is_charged_its_module(cluster):
    c = cluster
    w = worker(c)
    allocatable, overhead = budget(c, w)
    # Images on the card: no node reports them before they run, and the scheduler has no
    # other way to price their modules.
    first_image, next_image = "wasm://sd/echo", "wasm://sd/printenv"
    first_module = module_of(c, w, first_image, "card-echo-size")

    # Just after a heartbeat, so that the next one is a whole period away: the first pod of
    # the card's echo starts, and the next pod is scheduled as soon as it runs.
    before = renewed(c, w)
    assert wait_until(lambda: renewed(c, w) != before, REPORT_S, 0.1)
    create(c, make_pod("card-echo", first_image, on=w))  # no memory named: its linear memory runs uncharged
    assert wait_until(lambda: running(c, "card-echo"), START_S), get_pod(c, "card-echo")
    first = charged(c, "card-echo")
    # It fits beside the running pod alone, not beside the pod and its module.
    request = allocatable - (first + overhead) - overhead - first_module // 2
    create(c, make_pod("card-next", next_image, request, request, on=w))

    def decided():
        p = get_pod(c, "card-next")
        if p["spec"].get("nodeName"):
            return "bound", p
        for cond in p["status"].get("conditions") or []:
            if cond["type"] == "PodScheduled" and cond["status"] == "False":
                return "refused", cond
        return None

    got = wait_until(decided, START_S)
    assert got and got[0] == "refused", (got, images(c, w))
    assert got[1]["reason"] == "Unschedulable" and "Insufficient memory" in got[1]["message"], got[1]
    for name in ("card-echo", "card-next"):
        delete(c, name)
