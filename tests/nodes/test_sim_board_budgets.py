"""Board mode: `k32 sim up --board s3 --worker-board esp32` runs each node with its board
profile's budgets (stacks, heap per region, pod capacity), compiled into a k32-node built
for that profile. A small end-to-end flow must work under them: both nodes Ready with the
boards' capacity, the echo pod answering through the Ingress on the control plane and on the
worker, and every thread created with exactly its budget and measured against it."""

import json
import sys
from pathlib import Path

import pytest
import yaml

from k32.boards import inproc_chain_stack, load_board
from k32.sim.console import command

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ingress"))
from board_cluster import CP_BOARD, WORKER, WORKER_BOARD, s3_with_esp32_worker  # noqa: E402
from ingress_helpers import apply, post, wait_until  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ECHO_EXAMPLE = REPO / "examples" / "echo.yaml"
POD_START_TIMEOUT_S = 90.0


@pytest.fixture(scope="module")
def board_cluster(tmp_path_factory):
    with s3_with_esp32_worker(tmp_path_factory, "boards") as cluster:
        yield cluster


def api_json(cluster, path: str) -> dict:
    status, _, body = cluster.request("GET", path)
    assert status == 200, (path, status, body[:300])
    return json.loads(body)


def worker_echo_manifest() -> str:
    """examples/echo.yaml's pod, Service and Ingress, renamed echo-w and pinned to the worker."""
    docs = {d["kind"]: d for d in yaml.safe_load_all(ECHO_EXAMPLE.read_text()) if d}
    pod, svc, ing = (json.loads(json.dumps(docs[k])) for k in ("Pod", "Service", "Ingress"))
    pod["metadata"].update(name="echo-w", labels={"app": "echo-w"})
    pod["metadata"].pop("annotations", None)
    pod["spec"].pop("nodeSelector", None)
    pod["spec"]["nodeName"] = WORKER
    for c in pod["spec"]["containers"]:
        c["resources"]["requests"].pop("hardware.kube32.io/ipc", None)
        c.pop("securityContext", None)
    svc["metadata"]["name"] = "echo-w"
    svc["spec"]["selector"] = {"app": "echo-w"}
    ing["metadata"]["name"] = "echo-w"
    ing["metadata"].pop("annotations", None)
    for rule in ing["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            p["path"] = "/echo-w"
            p["backend"]["service"]["name"] = "echo-w"
    return yaml.safe_dump_all([pod, svc, ing], sort_keys=False)


def memory_bytes(q: str) -> int:
    units = {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}
    return int(q[:-2]) * units[q[-2:]] if q[-2:] in units else int(q)


def test_nodes_ready_with_their_boards_capacity(board_cluster):
    for name, board in (("kube32-control-plane", CP_BOARD), (WORKER, WORKER_BOARD)):
        node = api_json(board_cluster, f"/api/v1/nodes/{name}")
        assert node["metadata"]["labels"]["kube32.io/board"] == board
        ready = next(c["status"] for c in node["status"]["conditions"] if c["type"] == "Ready")
        assert ready == "True", node["status"]["conditions"]
        b = load_board(board).budgets
        assert memory_bytes(node["status"]["capacity"]["memory"]) == b["pod_memory"]["bytes"]
        assert int(node["status"]["capacity"]["pods"]) == b["pods_max"]["count"]


def test_echo_through_the_ingress_on_the_control_plane_board(board_cluster):
    apply(board_cluster, ECHO_EXAMPLE.read_text())
    ok = wait_until(lambda: post(board_cluster, "/echo/hello")[0] == 200, POD_START_TIMEOUT_S, 0.5)
    assert ok, post(board_cluster, "/echo/hello")
    status, body = post(board_cluster, "/echo/hello", b"payload-42")
    assert status == 200 and body.endswith(b"payload-42"), (status, body[:200])


def test_threads_run_with_the_boards_stack_budgets(board_cluster):
    """STATUS lists each kind of thread with the stack it was given and its measured peak:
    the budgets are the board's (the ingress worker: its own budget plus the in-process
    call's), the heap is split by region as the board's is, and no thread went past its stack."""
    test_echo_through_the_ingress_on_the_control_plane_board(board_cluster)
    for spec in board_cluster.nodes:
        board = CP_BOARD if spec.role == "control-plane" else WORKER_BOARD
        b = load_board(board).budgets
        st = command(f"{spec.ip}:{spec.console_port}", "STATUS")
        assert st["board"] == board
        rows = {(r["name"], r["budget"]): r for r in st["stacks"]}
        print(board, st["heapInternalBytes"], st["heapPsramBytes"], json.dumps(st["stacks"]))
        assert ("pods", b["http_accept_stack"]["bytes"]) in rows, sorted(rows)  # the pod server's accept loop
        assert ("kubelet", b["kubelet_sync_stack"]["bytes"]) in rows, sorted(rows)
        if spec.role == "control-plane":
            ingress = ("ingress", b["ingress_stack"]["bytes"] + inproc_chain_stack(load_board(board)))
            assert ingress in rows and rows[ingress]["peak"] > 0, sorted(rows)
        else:
            # No PSRAM on the worker: everything is internal RAM, within the board's heap.
            assert st["heapPsramBytes"] == 0
            assert 0 < st["heapInternalBytes"] <= b["heap_internal"]["bytes"]
        over = {k: r["peak"] for k, r in rows.items() if r["peak"] > r["budget"]}
        assert not over, f"{board}: threads past their stack budget: {over}"


def test_echo_on_the_worker_board(board_cluster):
    """The classic ESP32 (no PSRAM, 160 KB of heap) runs an echo pod: its linear memory is
    trimmed to what the image uses, its module is shared and its interpreter stacks are the
    board's; the worker stays within its internal RAM budget while it answers."""
    apply(board_cluster, worker_echo_manifest())
    # Stops waiting early when the worker process is gone (its heap ran out).
    wait_until(
        lambda: (
            post(board_cluster, "/echo-w/hello")[0] == 200
            or len(board_cluster.running_nodes()) < len(board_cluster.nodes)
        ),
        POD_START_TIMEOUT_S,
        0.5,
    )
    log = board_cluster.log_path(WORKER).read_text(errors="replace")
    assert post(board_cluster, "/echo-w/hello")[0] == 200, log[-600:]
    status, body = post(board_cluster, "/echo-w/hello", b"payload-w")
    assert status == 200 and body.endswith(b"payload-w"), (status, body[:200])
    spec = next(s for s in board_cluster.nodes if s.name == WORKER)
    st = command(f"{spec.ip}:{spec.console_port}", "STATUS")
    assert 0 < st["heapInternalBytes"] <= load_board(WORKER_BOARD).budgets["heap_internal"]["bytes"]
    assert len(board_cluster.running_nodes()) == len(board_cluster.nodes)


def test_a_thread_that_logs_stays_within_its_board_budget(board_cluster):
    """A log line costs its thread the same few hundred bytes in the simulator as on a board:
    the console session that clears the token logs it, and its 8 KiB stays enough (glibc's
    fprintf to stderr took 8 KiB of the caller's stack, so every thread that logged was over)."""
    cp = board_cluster.nodes[0]
    assert command(cp.console, "TOKEN", {"token": ""}) == {"auth": False}
    assert "bearer token cleared" in board_cluster.log_path(cp.name).read_text(errors="replace")
    budget = load_board(CP_BOARD).budgets["console_stack"]["bytes"]
    rows = [r for r in command(cp.console, "STATUS")["stacks"] if r["name"] == "console"]
    assert rows and all(r["budget"] == budget for r in rows), rows
    assert all(0 < r["peak"] <= budget for r in rows), rows
