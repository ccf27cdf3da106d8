"""A pod whose code runs out of the interpreter's value stack says why: its trap message gives
what the image can need (the static bound the interpreter computed as it loaded the image), or
that it has none (recursion), beside what the node gives every container."""

import subprocess

import pytest
from pods_helpers import apply, container_status, get_pod, wait_until

from k32.images.value_stack import bound
from k32.sim.cluster import SimCluster, find_free_base_port
from k32.wasm.tool import wasm_tool

# k32_main recurses without end: no bound, the trap is the limit.
RECURSIVE = """
(module
  (func $down (param i32) (result i32)
    local.get 0 i32.const 1 i32.add call $down)
  (func (export "k32_main") (result i32) i32.const 0 call $down))
"""

# A frame of 2100 8-byte locals: more than any board's value stack (at most 16 KiB).
WIDE = '(module (func (export "k32_main") (result i32) (local {}) i32.const 0))'.format(" ".join(["i64"] * 2100))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("valstack")
    card = root / "card"
    for name, text in (("recursive", RECURSIVE), ("wide", WIDE)):
        d = card / "kube32" / "images" / name
        d.mkdir(parents=True)
        (root / f"{name}.wat").write_text(text)
        subprocess.run(["wat2wasm", str(root / f"{name}.wat"), "-o", str(d / f"{name}.wasm")], check=True)
    state = root / "sim"
    c = SimCluster(
        state,
        workers=0,
        base_port=find_free_base_port(0),
        kubeconfig=state / "kubeconfig",
        die_with_parent=True,
        sd_dir=card,
    )
    c.up()
    c.card = card
    yield c
    c.down()


def terminated(cluster, name):
    def done():
        pod = get_pod(cluster, name)
        return pod and pod["status"].get("phase") == "Failed" and container_status(pod)["state"]["terminated"]

    apply(
        cluster,
        f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  restartPolicy: Never
  containers: [{{name: c, image: wasm://sd/{name}}}]
""",
    )
    term = wait_until(done)
    assert term, get_pod(cluster, name)
    return term


def test_a_recursive_pod_says_it_has_no_bound(cluster):
    term = terminated(cluster, "recursive")
    msg = term["message"]
    assert msg.startswith("wasm trap: call stack exhausted (the image has no static bound: "), msg
    assert "function 0 calls itself (recursion); this node gives " in msg and " bytes of value stack and " in msg, msg


def test_a_pod_too_wide_for_the_node_says_what_it_needs(cluster):
    need = bound(cluster.card / "kube32" / "images" / "wide" / "wide.wasm", wasm_tool())
    assert need.bytes == (2100 + 1) * 8, need  # the locals and the one constant
    msg = terminated(cluster, "wide")["message"]
    assert msg.startswith(
        f"wasm trap: call stack exhausted (the image needs up to {need.bytes} bytes of value stack and 2 nested calls;"
    ), msg
