"""LimitRange and ResourceQuota (v1, namespaced), served read/write through the generic REST
path by one strategy file each: create (JSON, YAML and kubectl's protobuf), get with the
columns `kubectl get` prints on a cluster, patch, the quota's status subresource, watch and
delete, with kubectl 1.37 and the system's /usr/bin/kubectl."""

import json
import re
import subprocess

import pytest
from api_helpers import LineReader, header

from k32.build.tools import kubectl as kubectl_binary

NS = "e2e-limits"
SYSTEM_KUBECTL = "/usr/bin/kubectl"

LIMIT_RANGE = """
apiVersion: v1
kind: LimitRange
metadata:
  name: {name}
spec:
  limits:
  - type: Container
    max: {{cpu: "1", memory: 256Mi}}
    min: {{cpu: 50m}}
    default: {{memory: 128Mi}}
  - type: Pod
    max: {{memory: 512Mi}}
"""


@pytest.fixture(scope="module", params=["1.37", "system"])
def kc(request, sim_cluster):
    """kubectl in one of the two versions, bound to the test namespace's cluster."""

    def run(*args, input=None):
        if request.param == "system":
            argv = [
                SYSTEM_KUBECTL,
                "--kubeconfig",
                str(sim_cluster.kubeconfig),
                "--context",
                sim_cluster.context,
                *args,
            ]
            return subprocess.run(argv, input=input, capture_output=True, text=True, timeout=60)
        return sim_cluster.kubectl(*args, input=input)

    run.argv = [SYSTEM_KUBECTL if request.param == "system" else str(kubectl_binary("1.37"))]
    run.argv += ["--kubeconfig", str(sim_cluster.kubeconfig), "--context", sim_cluster.context]
    run.suffix = request.param.replace(".", "")
    if run("get", "namespace", NS).returncode != 0:
        ok(run("create", "namespace", NS))
    return run


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, f"kubectl failed ({proc.returncode}): {proc.stderr}"
    return proc.stdout


def get_json(kc, *what):
    return json.loads(ok(kc("get", *what, "-n", NS, "-o", "json")))


def test_limit_range_defaults_columns_patch_delete(kc):
    name = "lr-" + kc.suffix
    assert (
        ok(kc("apply", "-n", NS, "-f", "-", input=LIMIT_RANGE.format(name=name))).strip()
        == f"limitrange/{name} created"
    )
    lr = get_json(kc, "limitrange", name)
    container, pod = lr["spec"]["limits"]
    # Kubernetes' defaulting: the default limit from max, the default request from the
    # default limit, else from min. A Pod item gets no defaults.
    assert container["default"] == {"cpu": "1", "memory": "128Mi"}
    assert container["defaultRequest"] == {"cpu": "1", "memory": "128Mi"}
    assert "default" not in pod and "defaultRequest" not in pod

    out = ok(kc("get", "limits", name, "-n", NS))  # the short name, from discovery
    assert header(out) == ["NAME", "CREATED", "AT"]
    assert out.splitlines()[1].split() == [name, lr["metadata"]["creationTimestamp"]]

    ok(
        kc(
            "patch",
            "limitrange",
            name,
            "-n",
            NS,
            "--type=merge",
            "-p",
            '{"spec":{"limits":[{"type":"Container","max":{"cpu":"2"}}]}}',
        )
    )
    patched = get_json(kc, "limitrange", name)["spec"]["limits"]
    assert patched == [
        {"type": "Container", "max": {"cpu": "2"}, "default": {"cpu": "2"}, "defaultRequest": {"cpu": "2"}}
    ]

    assert ok(kc("delete", "limitrange", name, "-n", NS)).startswith(f'limitrange "{name}" deleted')
    assert kc("get", "limitrange", name, "-n", NS).returncode != 0


@pytest.mark.parametrize(
    "item,field,message",
    [
        ({"type": "Bogus"}, "spec.limits[0].type", 'Unsupported value: "Bogus"'),
        (
            {"type": "Pod", "default": {"cpu": "1"}},
            "spec.limits[0].default",
            "may not be specified when `type` is 'Pod'",
        ),
        (
            {"type": "Container", "max": {"cpu": "lots"}},
            "spec.limits[0].max[cpu]",
            "quantities must match the regular expression",
        ),
        (
            {"type": "Container", "min": {"memory": "-1Mi"}},
            "spec.limits[0].min[memory]",
            "must be greater than or equal to 0",
        ),
    ],
)
def test_limit_range_validation(kc, item, field, message):
    body = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "bad"}, "spec": {"limits": [item]}}
    proc = kc("create", "-n", NS, "-f", "-", input=json.dumps(body))
    assert proc.returncode != 0
    assert 'LimitRange "bad" is invalid' in proc.stderr
    assert field in proc.stderr and message in proc.stderr


def quota_row(kc, name):
    out = ok(kc("get", "quota", name, "-n", NS))
    assert header(out) == ["NAME", "AGE", "REQUEST", "LIMIT"]
    return out.splitlines()[1]


@pytest.mark.slow
def test_resource_quota_protobuf_create_status_columns(kc):
    name = "q-" + kc.suffix
    # `kubectl create quota` sends a protobuf body.
    assert (
        ok(kc("create", "quota", name, "-n", NS, "--hard=pods=10,requests.cpu=2,limits.memory=1Gi")).strip()
        == f"resourcequota/{name} created"
    )
    q = get_json(kc, "resourcequota", name)
    assert q["spec"]["hard"] == {"pods": "10", "requests.cpu": "2", "limits.memory": "1Gi"}
    assert not q.get("status")
    # Nothing has computed usage yet: the columns are empty, as on a cluster before the
    # quota controller's first pass.
    assert re.fullmatch(rf"{name}\s+\S+\s*", quota_row(kc, name))

    status = {
        "status": {
            "hard": {"pods": "10", "requests.cpu": "2", "limits.memory": "1Gi"},
            "used": {"pods": "1", "requests.cpu": "500m"},
        }
    }
    ok(kc("patch", "resourcequota", name, "-n", NS, "--subresource=status", "--type=merge", "-p", json.dumps(status)))
    row = quota_row(kc, name)
    # Sorted by resource name; limits.* under LIMIT; a resource with no usage shows 0.
    assert re.fullmatch(rf"{name}\s+\S+\s+pods: 1/10, requests\.cpu: 500m/2\s+limits\.memory: 0/1Gi", row), row

    # A spec write keeps the status the status subresource wrote.
    ok(
        kc(
            "patch",
            "resourcequota",
            name,
            "-n",
            NS,
            "--type=merge",
            "-p",
            '{"spec":{"hard":{"pods":"20"}},"status":{"used":{"pods":"9"}}}',
        )
    )
    q = get_json(kc, "resourcequota", name)
    assert q["spec"]["hard"]["pods"] == "20"
    assert q["status"]["used"] == {"pods": "1", "requests.cpu": "500m"}

    assert ok(kc("delete", "quota", name, "-n", NS)).startswith(f'resourcequota "{name}" deleted')


def test_resource_quota_create_drops_status_and_validates(kc):
    name = "qs-" + kc.suffix
    body = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name},
        "spec": {"hard": {"pods": "3"}, "scopes": ["BestEffort"]},
        "status": {"used": {"pods": "2"}},
    }
    ok(kc("create", "-n", NS, "-f", "-", input=json.dumps(body)))
    assert not get_json(kc, "resourcequota", name).get("status")
    ok(kc("delete", "resourcequota", name, "-n", NS))

    body["spec"] = {"hard": {"pods": "-1"}, "scopes": ["Sometimes"]}
    proc = kc("create", "-n", NS, "-f", "-", input=json.dumps(body))
    assert proc.returncode != 0
    assert "spec.hard[pods]" in proc.stderr and "must be greater than or equal to 0" in proc.stderr
    assert 'spec.scopes: Unsupported value: "Sometimes"' in proc.stderr


def _body(kind, name):
    spec = {"limits": [{"type": "Container", "max": {"cpu": "1"}}]} if kind == "LimitRange" else {"hard": {"pods": "1"}}
    return json.dumps({"apiVersion": "v1", "kind": kind, "metadata": {"name": name}, "spec": spec})


@pytest.mark.parametrize("resource,kind", [("limitranges", "LimitRange"), ("resourcequotas", "ResourceQuota")])
def test_watch(kc, resource, kind):
    first, second = f"wa-{kind.lower()}-{kc.suffix}", f"wb-{kind.lower()}-{kc.suffix}"
    ok(kc("apply", "-n", NS, "-f", "-", input=_body(kind, first)))
    # kubectl lists, then watches from the list's version: once the listed object is
    # printed, every later change arrives as an event.
    watch = subprocess.Popen(
        [*kc.argv, "get", resource, "-n", NS, "--watch", "-o", "name"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        reader = LineReader(watch)
        reader.wait_for(lambda line: line.endswith("/" + first))
        ok(kc("apply", "-n", NS, "-f", "-", input=_body(kind, second)))
        reader.wait_for(lambda line: line.endswith("/" + second))
        ok(kc("delete", resource, second, "-n", NS))
        reader.wait_for(lambda line: line.endswith("/" + second))
    finally:
        watch.kill()
        watch.wait()
        kc("delete", resource, first, second, "-n", NS, "--ignore-not-found")
