"""Differential test: the firmware's patch engines against the implementations kubectl
itself links (apimachinery's strategic merge, evanphx/json-patch), run by
`kubectl patch --local` (no server involved), on the patches kubectl and people send.
Needs a host build of the firmware tests (build/*/patch_test_*)."""

import json
import random
import subprocess
from pathlib import Path

import pytest

from k32 import REPO_ROOT

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "labels": {"app": "web", "tier": "fe"}, "finalizers": ["a", "b"]},
    "spec": {
        "containers": [
            {
                "name": "web",
                "image": "nginx:1.0",
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}, {"name": "C", "value": "3"}],
                "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443, "protocol": "TCP"}],
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
            },
            {"name": "side", "image": "busybox"},
        ],
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "c"}}],
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "s"},
    "spec": {
        "selector": {"app": "a", "tier": "b"},
        "ports": [{"name": "http", "port": 80, "targetPort": 8080}, {"name": "https", "port": 443}],
    },
}
INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {"name": "i"},
    "spec": {
        "rules": [
            {
                "host": "a",
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "s", "port": {"number": 80}}},
                        }
                    ]
                },
            }
        ]
    },
}

CASES = [
    ("v1/Pod", POD, {"spec": {"containers": [{"name": "web", "image": "nginx:1.1"}]}}),
    ("v1/Pod", POD, {"spec": {"containers": [{"name": "new", "image": "x"}]}}),
    ("v1/Pod", POD, {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}),
    (
        "v1/Pod",
        POD,
        {"spec": {"containers": [{"name": "web", "env": [{"name": "D", "value": "4"}, {"name": "A", "value": "0"}]}]}},
    ),
    (
        "v1/Pod",
        POD,
        {
            "spec": {
                "containers": [
                    {
                        "name": "web",
                        "$setElementOrder/env": [{"name": "C"}, {"name": "A"}],
                        "env": [{"name": "B", "$patch": "delete"}],
                    }
                ]
            }
        },
    ),
    (
        "v1/Pod",
        POD,
        {
            "spec": {
                "$setElementOrder/containers": [{"name": "side"}, {"name": "web"}],
                "containers": [{"name": "web", "image": "i"}],
            }
        },
    ),
    ("v1/Pod", POD, {"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 8080}]}]}}),
    ("v1/Pod", POD, {"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 443, "$patch": "delete"}]}]}}),
    ("v1/Pod", POD, {"spec": {"containers": [{"name": "only"}, {"$patch": "replace"}]}}),
    ("v1/Pod", POD, {"spec": {"tolerations": [{"key": "x", "operator": "Exists"}]}}),
    (
        "v1/Pod",
        POD,
        {"spec": {"volumes": [{"name": "data", "$retainKeys": ["name", "hostPath"], "hostPath": {"path": "/x"}}]}},
    ),
    ("v1/Pod", POD, {"metadata": {"labels": {"tier": None, "new": "1"}}}),
    ("v1/Pod", POD, {"metadata": {"finalizers": ["c"], "$deleteFromPrimitiveList/finalizers": ["a"]}}),
    ("v1/Pod", POD, {"metadata": {"$setElementOrder/finalizers": ["b", "a"]}}),
    ("v1/Pod", POD, {"metadata": {"labels": {"$patch": "replace", "only": "x"}}}),
    ("v1/Pod", POD, {"spec": {"containers": [{"name": "web", "env": None}]}}),
    ("v1/Service", SERVICE, {"spec": {"ports": [{"port": 53, "protocol": "UDP"}, {"port": 80, "targetPort": 9090}]}}),
    ("v1/Service", SERVICE, {"spec": {"selector": {"$patch": "replace", "app": "c"}}}),
    ("v1/Service", SERVICE, {"spec": {"ports": [{"port": 443, "$patch": "delete"}]}}),
    ("networking.k8s.io/v1/Ingress", INGRESS, {"spec": {"rules": [{"host": "b"}]}}),
    ("v1/Pod", POD, {"spec": {"containers": [{"image": "no-name"}]}}),  # both must refuse
]


def _engine(name="patch_test_strategic_merge"):
    # Host builds only: build/mcu holds Cortex-M4 programs of the same names.
    found = [p for d in ("host", "host32") for p in REPO_ROOT.glob(f"build/{d}/{name}")]
    found.sort(key=lambda p: p.stat().st_mtime)
    if not found:
        pytest.skip("no host build of the firmware tests (cmake --build build/host)")
    return found[-1]


def _kubectl_local(tmp_path: Path, obj, patch, patch_type="strategic"):
    from k32.build.tools import ToolError, kubectl

    try:
        exe = str(kubectl("1.37"))
    except ToolError as e:
        pytest.skip(str(e))
    f = tmp_path / "obj.json"
    f.write_text(json.dumps(obj))
    r = subprocess.run(
        [exe, "patch", "--local", "-f", str(f), "--type", patch_type, "-p", json.dumps(patch), "-o", "json"],
        capture_output=True,
        text=True,
        env={"KUBECONFIG": "/dev/null"},
        timeout=60,
    )
    if r.returncode != 0:
        return {"error": r.stderr}
    return json.loads(r.stdout)


@pytest.mark.parametrize("kind,obj,patch", CASES, ids=[json.dumps(c[2])[:60] for c in CASES])
def test_same_result_as_apimachinery(tmp_path, kind, obj, patch):
    _compare(tmp_path, "patch_test_strategic_merge", kind, "strategic", obj, patch)


def _compare(tmp_path, engine_name, mode, patch_type, obj, patch):
    engine = _engine(engine_name)
    want = _kubectl_local(tmp_path, obj, patch, patch_type)
    r = subprocess.run(
        [str(engine), "--filter", mode],
        input=json.dumps({"doc": obj, "patch": patch}) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    if "error" in want:
        assert "error" in got, f"kubectl failed ({want['error'].strip()}) but we produced {got}"
    else:
        assert got == want


JSON_CASES = [
    [{"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:2"}],
    [{"op": "add", "path": "/metadata/labels/new", "value": "1"}, {"op": "remove", "path": "/metadata/labels/tier"}],
    [{"op": "add", "path": "/spec/containers/0/env/1", "value": {"name": "X", "value": "x"}}],
    [{"op": "add", "path": "/spec/containers/-", "value": {"name": "z", "image": "z"}}],
    [{"op": "move", "from": "/spec/containers/1", "path": "/spec/containers/0"}],
    [{"op": "copy", "from": "/metadata/labels", "path": "/metadata/annotations"}],
    [{"op": "test", "path": "/metadata/name", "value": "p"}, {"op": "replace", "path": "/metadata/name", "value": "q"}],
    [{"op": "add", "path": "/metadata/annotations/a~1b", "value": "slash"}],
    [{"op": "remove", "path": "/spec/containers/0/env/2"}],
    [{"op": "test", "path": "/metadata/name", "value": "nope"}],
    [{"op": "remove", "path": "/spec/nothing"}],
]

MERGE_CASES = [
    {"metadata": {"labels": {"tier": None, "x": "y1"}}},
    {"spec": {"containers": [{"name": "only"}]}},
    {"spec": {"tolerations": None}},
    {"metadata": {"finalizers": ["z"]}},
]


@pytest.mark.parametrize("patch", JSON_CASES, ids=[json.dumps(c)[:60] for c in JSON_CASES])
def test_json_patch_same_as_kubectl(tmp_path, patch):
    _same_as_kubectl(tmp_path, "json", patch)


@pytest.mark.parametrize("patch", MERGE_CASES, ids=[json.dumps(c)[:60] for c in MERGE_CASES])
def test_merge_patch_same_as_kubectl(tmp_path, patch):
    _same_as_kubectl(tmp_path, "merge", patch)


def _same_as_kubectl(tmp_path, patch_type, patch):
    _compare(tmp_path, "patch_test_json_patch", patch_type, patch_type, POD, patch)


def _random_patch(rng: random.Random):
    """A strategic merge patch of the kind kubectl and people write, on elements that exist
    in POD. (Elements the live object lacks are where we deliberately differ: apimachinery
    copies such patch values verbatim, directives and duplicates included.)"""
    envs = ["A", "B", "C", "D"]
    web = {"name": "web"}
    if rng.random() < 0.5:
        web["image"] = rng.choice(["x", "y"])
    env, seen = [], set()
    for _ in range(rng.randint(0, 3)):
        name = rng.choice(envs)
        if name in seen:
            continue
        seen.add(name)
        env.append(
            {"name": name, "$patch": "delete"}
            if rng.random() < 0.3
            else {"name": name, "value": rng.choice(["1", "9"])}
        )
    if env:
        web["env"] = env
        if rng.random() < 0.4:  # kubectl's form: every element the author's list has, in order
            kept = [e["name"] for e in env if "$patch" not in e]
            web["$setElementOrder/env"] = [{"name": n} for n in kept]
    if rng.random() < 0.3:
        web["ports"] = [{"containerPort": rng.choice([80, 443, 8080])}]
    containers = [web]
    if rng.random() < 0.3:
        containers.append(
            {"name": "side", "$patch": "delete"} if rng.random() < 0.5 else {"name": "side", "image": "z"}
        )
    patch = {"spec": {"containers": containers}}
    if rng.random() < 0.4:
        fin = rng.sample(["a", "b", "c", "d"], rng.randint(0, 3))
        md = {"finalizers": fin}
        rest = [f for f in ["a", "b", "c"] if f not in fin]
        # Deleting a value the same patch adds is order-dependent in apimachinery (Go map
        # iteration decides whether the deletion sees the addition), so never both.
        if rest and rng.random() < 0.5:
            md["$deleteFromPrimitiveList/finalizers"] = rng.sample(rest, rng.randint(1, len(rest)))
        patch["metadata"] = md
    return patch


@pytest.mark.parametrize("seed", range(4))
def test_random_patches_same_as_apimachinery(tmp_path, seed):
    rng = random.Random(seed)
    for _ in range(15):
        _compare(tmp_path, "patch_test_strategic_merge", "v1/Pod", "strategic", POD, _random_patch(rng))
