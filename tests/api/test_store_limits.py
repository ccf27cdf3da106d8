"""The object store never loses an acknowledged write because of what a client sent: one
nesting limit at the API (deeper bodies and patch results are refused with a Status naming
it), a complete log record that does not load stops the control plane without touching the
files, and a per-object size limit plus a total budget (both from the board profile) refuse
the write that would exceed them while every object already stored stays intact."""

import hashlib
import json
import struct

import pytest

from k32.boards import load_board, load_common
from k32.sim.cluster import SimError

NS_PATH = "/api/v1/namespaces/default/configmaps"


def budgets(cluster) -> dict:
    """The control plane's board profile: the default simulator's, or the board's in board mode."""
    return load_board(cluster.board).budgets


def nest(levels: int):
    """A value whose innermost string sits `levels` objects deep."""
    v = "leaf"
    for _ in range(levels):
        v = {"n": v}
    return v


def configmap(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **extra}


def create(cluster, body: dict) -> tuple[int, dict]:
    code, _, raw = cluster.request("POST", NS_PATH, body, timeout=30)
    return code, json.loads(raw) if raw else {}


def get(cluster, name: str):
    code, _, raw = cluster.request("GET", f"{NS_PATH}/{name}")
    return json.loads(raw) if code == 200 else None


def store_dir(cluster):
    return cluster.node_state(cluster.nodes[0].name) / "store"


def restart(cluster):
    cluster.down()
    cluster.up()


@pytest.mark.slow
def test_deepest_accepted_object_survives_restarts_with_every_later_write(sim_factory):
    cluster = sim_factory(workers=0)
    cluster.up()
    # The deepest unknown field the API accepts (probed from well above any limit down).
    accepted, refusal = None, None
    for levels in range(70, 0, -1):
        code, status = create(cluster, configmap("deep", extra=nest(levels)))
        if code == 201:
            accepted = levels
            break
        refusal = (code, status)
    assert accepted is not None and refusal is not None
    for i in range(3):
        assert create(cluster, configmap(f"after-{i}", data={"i": str(i)}))[0] == 201
    restart(cluster)
    assert get(cluster, "deep")["extra"] == nest(accepted)
    for i in range(3):
        assert get(cluster, f"after-{i}")["data"] == {"i": str(i)}

    limit = load_common()["OBJECT_DEPTH_MAX"]
    code, status = refusal
    assert code == 400 and status.get("kind") == "Status", refusal
    assert f"limit of {limit} levels" in status.get("message", ""), status
    # The object sits one level below the top of the body, so the accepted depth is the limit.
    assert accepted + 1 == limit, f"accepted {accepted} levels with a documented limit of {limit}"
    # YAML bodies have the same limit, also past the depth the YAML parser itself reads.
    for levels in (limit, 80):
        doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep-yaml\nextra:\n"
        doc += "".join("  " * (i + 1) + "n:\n" for i in range(levels - 1)) + "  " * levels + "n: leaf\n"
        code, _, raw = cluster.request("POST", NS_PATH, doc, headers={"Content-Type": "application/yaml"})
        assert code == 400 and f"limit of {limit} levels" in json.loads(raw)["message"], raw[:300]
    # A patch may not make an object deeper than a body may be.
    deepest = "/extra" + "/n" * (accepted - 1) + "/more"
    code, _, raw = cluster.request(
        "PATCH",
        f"{NS_PATH}/deep",
        json.dumps([{"op": "add", "path": deepest, "value": {"k": "x"}}]),
        headers={"Content-Type": "application/json-patch+json"},
    )
    assert code == 422 and f"limit of {limit} levels" in json.loads(raw)["message"], raw[:300]

    # Enough writes to compact the log into the snapshot; then the snapshot must load too.
    chunk = "x" * (budgets(cluster)["store_object_max"]["bytes"] // 2)
    written = 0
    i = 0
    while written < 2 * budgets(cluster)["store_log_max"]["bytes"]:
        assert create(cluster, configmap(f"fill-{i}", data={"x": chunk}))[0] == 201
        assert cluster.request("DELETE", f"{NS_PATH}/fill-{i}")[0] == 200
        written += len(chunk)
        i += 1
    assert (store_dir(cluster) / "objects.snap").is_file(), "the log was never compacted"
    restart(cluster)
    assert get(cluster, "deep")["extra"] == nest(accepted)
    assert {f"after-{i}" for i in range(3)} <= {
        item["metadata"]["name"] for item in json.loads(cluster.request("GET", NS_PATH)[2])["items"]
    }


def _frames(data: bytes):
    """(offset, payload) of every record of an objects.log: u32 length, u32 crc32, payload."""
    pos = 0
    while pos + 8 <= len(data):
        n, _crc = struct.unpack_from("<II", data, pos)
        yield pos, data[pos + 8 : pos + 8 + n]
        pos += 8 + n


def _digests(path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.iterdir()) if p.is_file()}


@pytest.mark.slow
def test_corrupt_complete_record_stops_the_control_plane_and_changes_no_file(sim_factory):
    cluster = sim_factory(workers=0)
    cluster.up()
    for i in range(5):
        assert create(cluster, configmap(f"rec-{i}", data={"i": str(i)}))[0] == 201
    cluster.down()
    log = store_dir(cluster) / "objects.log"
    data = bytearray(log.read_bytes())
    frames = list(_frames(bytes(data)))
    index, (offset, payload) = next((k, f) for k, f in enumerate(frames) if b'"rec-1"' in f[1])
    assert index < len(frames) - 1, "the damaged record must not be the last one"
    original = data[offset + 8 + 10]
    data[offset + 8 + 10] ^= 0x55  # a bit flip inside a complete record: the checksum fails
    log.write_bytes(bytes(data))
    before = _digests(store_dir(cluster))

    with pytest.raises(SimError) as failed:
        cluster.up()
    message = str(failed.value)
    assert f"record {index}" in message and f"byte offset {offset}" in message, message
    assert _digests(store_dir(cluster)) == before, "a store that did not load was modified"

    # Repaired by hand, every acknowledged write is still there.
    data[offset + 8 + 10] = original
    log.write_bytes(bytes(data))
    cluster.down()
    cluster.up()
    for i in range(5):
        assert get(cluster, f"rec-{i}")["data"] == {"i": str(i)}


@pytest.mark.slow
def test_object_size_limit_and_store_budget_refuse_the_write_and_keep_the_rest(sim_factory):
    cluster = sim_factory(workers=0)
    object_max = budgets(cluster)["store_object_max"]["bytes"]
    total_max = budgets(cluster)["store_total_max"]["bytes"]
    cluster.up()

    code, status = create(cluster, configmap("too-big", data={"x": "y" * (object_max + 1)}))
    assert code == 413 and status.get("reason") == "RequestEntityTooLarge", (code, status)
    assert str(object_max) in status["message"], status
    assert get(cluster, "too-big") is None

    chunk = object_max * 9 // 10
    made, refused = [], None
    for i in range(total_max // chunk + 3):
        name = f"big-{i}"
        code, status = create(cluster, configmap(name, data={"x": f"{i:08d}" + "z" * chunk}))
        if code != 201:
            refused = (code, status)
            break
        made.append(name)
    assert made and refused, f"{len(made)} objects of {chunk} bytes fit in a budget of {total_max}"
    code, status = refused
    assert code == 507 and status.get("reason") == "InsufficientStorage", refused
    assert str(total_max) in status["message"], status

    def intact():
        for i, name in enumerate(made):
            obj = get(cluster, name)
            assert obj and obj["data"]["x"] == f"{i:08d}" + "z" * chunk, name

    intact()
    # Deleting frees the space again, and a restart keeps everything that was acknowledged.
    assert cluster.request("DELETE", f"{NS_PATH}/{made.pop()}")[0] == 200
    assert create(cluster, configmap("small-after", data={"k": "v"}))[0] == 201
    restart(cluster)
    intact()
    assert get(cluster, "small-after")["data"] == {"k": "v"}
