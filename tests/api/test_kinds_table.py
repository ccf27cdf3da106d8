"""The firmware's kinds table (firmware/src/core/api/kinds/kinds.def) is the one list of served
kinds: the API server's discovery, what kubectl sees, and the generator's view of it
(k32.apigen.kinds, which builds the schemas and OpenAPI documents) must all agree. The
metrics API (metrics.k8s.io, what `kubectl top` reads) is served beside the table: its
objects are computed from node reports and never stored."""

import json

from k32.apigen.kinds import SERVED_KINDS

METRICS_GROUP = "metrics.k8s.io"


def _discovery(cluster, gv_path):
    code, _, body = cluster.request("GET", "/" + gv_path)
    assert code == 200, body
    return json.loads(body)["resources"]


def test_discovery_serves_exactly_the_kinds_table(sim_cluster):
    served = set()
    status = set()
    for gv_path in sorted({k.gv_path for k in SERVED_KINDS}):
        group_version = gv_path.split("/", 1)[1]
        for r in _discovery(sim_cluster, gv_path):
            name, _, sub = r["name"].partition("/")
            if sub == "status":
                status.add((group_version, name))
            elif not sub:
                served.add((group_version, name, r["kind"], r["namespaced"]))
    assert served == {(k.api_version, k.plural, k.kind, k.namespaced) for k in SERVED_KINDS}
    assert status == {(k.api_version, k.plural) for k in SERVED_KINDS if k.status}


def test_api_groups_are_the_tables_groups(sim_cluster):
    code, _, body = sim_cluster.request("GET", "/apis")
    assert code == 200, body
    groups = {g["name"] for g in json.loads(body)["groups"]}
    assert groups - {METRICS_GROUP} == {k.group for k in SERVED_KINDS if k.group}


def test_kubectl_api_resources_lists_every_kind(sim_cluster):
    proc = sim_cluster.kubectl("api-resources", "-o", "name")
    assert proc.returncode == 0, proc.stderr
    names = {n for n in proc.stdout.split() if not n.endswith("." + METRICS_GROUP)}
    want = {k.plural + ("." + k.group if k.group else "") for k in SERVED_KINDS}
    assert names == want
