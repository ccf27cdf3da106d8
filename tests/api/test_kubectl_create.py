"""`kubectl create <kind>` generators and `kubectl expose` send protobuf bodies (client-go's
default for built-in kinds); every served kind decodes, and the stored object is the one
kubectl would have sent as JSON. Kinds Kube32 does not serve fail with kubectl's NotFound."""

import json
import subprocess

import pytest
from api_helpers import KUBECTL_VERSIONS


@pytest.fixture(scope="module", params=KUBECTL_VERSIONS)
def kc(request, sim_cluster):
    version = request.param

    def run(*args, input=None, timeout=60):
        return sim_cluster.kubectl(*args, version=version, input=input, timeout=timeout)

    run.version = version
    run.ns = "e2e-create-" + version.replace(".", "")
    if run("get", "namespace", run.ns).returncode != 0:
        ok(run("create", "namespace", run.ns))
    return run


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, f"kubectl failed ({proc.returncode}): {proc.stderr}"
    return proc.stdout


def get_json(kc, *what):
    return json.loads(ok(kc("get", *what, "-n", kc.ns, "-o", "json")))


def test_create_service_clusterip(kc):
    out = ok(kc("create", "service", "clusterip", "web", "--tcp=80:7000", "-n", kc.ns))
    assert out.strip() == "service/web created"
    svc = get_json(kc, "service", "web")
    assert svc["spec"]["type"] == "ClusterIP"
    assert svc["spec"]["selector"] == {"app": "web"}
    assert svc["spec"]["ports"] == [{"name": "80-7000", "port": 80, "protocol": "TCP", "targetPort": 7000}]
    assert svc["metadata"]["labels"] == {"app": "web"}
    # Empty strings protobuf carries for Go's omitempty fields are not stored.
    assert "generateName" not in svc["metadata"] and "selfLink" not in svc["metadata"]


def test_create_service_nodeport(kc):
    ok(kc("create", "service", "nodeport", "np", "--tcp=8080:80", "--node-port=30080", "-n", kc.ns))
    svc = get_json(kc, "service", "np")
    assert svc["spec"]["type"] == "NodePort"
    assert svc["spec"]["ports"][0]["nodePort"] == 30080
    assert svc["spec"]["ports"][0]["targetPort"] == 80


def test_expose_service(kc):
    ok(kc("create", "service", "clusterip", "exposed-src", "--tcp=81:7001", "-n", kc.ns))
    out = ok(
        kc("expose", "service", "exposed-src", "--name=exposed", "--port=82", "--target-port=metrics", "-n", kc.ns)
    )
    assert out.strip() == "service/exposed exposed"
    svc = get_json(kc, "service", "exposed")
    assert svc["spec"]["ports"][0]["port"] == 82
    assert svc["spec"]["ports"][0]["targetPort"] == "metrics"  # IntOrString, string form
    assert svc["spec"]["selector"] == {"app": "exposed-src"}


def test_create_secret_and_configmap_bytes(kc):
    ok(kc("create", "secret", "generic", "creds", "--from-literal=user=admin", "--from-literal=pw=s3cr3t", "-n", kc.ns))
    sec = get_json(kc, "secret", "creds")
    assert sec["type"] == "Opaque"
    assert sec["data"] == {"user": "YWRtaW4=", "pw": "czNjcjN0"}
    ok(kc("create", "configmap", "cfg", "--from-literal=a=1", "-n", kc.ns))
    cm = get_json(kc, "configmap", "cfg")
    assert cm["data"] == {"a": "1"}
    assert "generateName" not in cm["metadata"] and "selfLink" not in cm["metadata"]


def test_create_ingress(kc):
    if kc.version == "1.20":
        pytest.skip("kubectl 1.20 has no `create ingress`")
    ok(kc("create", "ingress", "site", "--rule=foo.example/bar*=web:80", "-n", kc.ns))
    ing = get_json(kc, "ingress", "site")
    rule = ing["spec"]["rules"][0]
    assert rule["host"] == "foo.example"
    path = rule["http"]["paths"][0]
    assert path["path"] == "/bar" and path["pathType"] == "Prefix"
    assert path["backend"]["service"] == {"name": "web", "port": {"number": 80}}


def test_run_pod(kc):
    ok(
        kc(
            "run",
            "runner",
            "--image=ghcr.io/example/hello:1",
            "--restart=Never",
            "--port=7000",
            "--env=GREETING=hi",
            "--labels=app=runner",
            "-n",
            kc.ns,
        )
    )
    pod = get_json(kc, "pod", "runner")
    c = pod["spec"]["containers"][0]
    assert c["image"] == "ghcr.io/example/hello:1"
    assert c["ports"] == [{"containerPort": 7000, "protocol": "TCP"}]
    assert c["env"] == [{"name": "GREETING", "value": "hi"}]
    assert pod["metadata"]["labels"] == {"app": "runner"}
    assert pod["spec"]["restartPolicy"] == "Never"


def test_create_job_is_not_found(kc):
    proc = kc("create", "job", "j", "--image=busybox", "-n", kc.ns)
    assert proc.returncode != 0
    assert "the server could not find the requested resource" in proc.stderr or "NotFound" in proc.stderr, proc.stderr
