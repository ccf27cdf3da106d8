"""Real kubectl against the generated documents (served by a throwaway HTTP server):
kubectl 1.37 explain reads v3 and the v2 protobuf form and uses the v3 document to decide
that the server does field validation; kubectl 1.20 validates manifests client-side with
the v2 protobuf form."""

import json
import subprocess

import pytest

from .fake_apiserver import FakeApiServer


def _kubectl(version="1.37"):
    from k32.build.tools import ToolError, kubectl

    try:
        return str(kubectl(version))
    except ToolError as e:
        pytest.skip(f"kubectl {version} unavailable: {e}")


def _kubectl_137():
    return _kubectl("1.37")


@pytest.fixture
def server():
    with FakeApiServer() as s:
        yield s


def run(exe, kubeconfig, *args, stdin=None):
    return subprocess.run(
        [exe, "--kubeconfig", str(kubeconfig), "--cache-dir", str(kubeconfig.parent / "cache"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_explain_v3(server, tmp_path):
    exe = _kubectl_137()
    r = run(exe, server.kubeconfig(tmp_path / "kc"), "explain", "pods.spec.containers.ports")
    assert r.returncode == 0, r.stderr
    assert "containerPort" in r.stdout and "<integer>" in r.stdout
    assert any(p.startswith("/openapi/v3/api/v1?hash=") for _, p, _ in server.requests)


def test_explain_v2_protobuf(server, tmp_path):
    exe = _kubectl_137()
    r = run(exe, server.kubeconfig(tmp_path / "kc"), "explain", "ingresses.spec.rules", "--output=plaintext-openapiv2")
    assert r.returncode == 0, r.stderr
    assert "http" in r.stdout and "host" in r.stdout
    # kubectl decoded the gnostic protobuf form: it asked for nothing else.
    v2 = [a for m, p, a in server.requests if m == "GET" and p.split("?")[0] == "/openapi/v2"]
    assert v2 and all("protobuf" in a for a in v2)
    assert "host\t<string>" in r.stdout


def test_apply_uses_server_side_field_validation(server, tmp_path):
    exe = _kubectl_137()
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  a: b\n"
    r = run(exe, server.kubeconfig(tmp_path / "kc"), "create", "--validate=strict", "-f", "-", stdin=manifest)
    assert r.returncode == 0, r.stderr
    posts = [p for m, p, _ in server.requests if m == "POST"]
    assert posts and "fieldValidation=Strict" in posts[0], posts


def test_kubectl_120_explain_from_protobuf(server, tmp_path):
    exe = _kubectl("1.20")
    r = run(exe, server.kubeconfig(tmp_path / "kc"), "explain", "pods.spec.containers.env")
    assert r.returncode == 0, r.stderr
    assert "valueFrom" in r.stdout


def test_kubectl_120_client_side_validation(server, tmp_path):
    exe = _kubectl("1.20")
    kc = server.kubeconfig(tmp_path / "kc")
    good = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\nspec:\n"
        "  containers:\n  - name: c\n    image: i\n    ports:\n    - containerPort: 80\n"
    )
    r = run(exe, kc, "create", "-f", "-", stdin=good)
    assert r.returncode == 0, r.stderr
    bad = good.replace("    image: i\n", "    image: i\n    imagePolicy: x\n")
    r = run(exe, kc, "create", "-f", "-", stdin=bad)
    assert r.returncode != 0
    assert 'unknown field "imagePolicy"' in r.stderr
    wrong_type = good.replace("containerPort: 80", "containerPort: eighty")
    r = run(exe, kc, "create", "-f", "-", stdin=wrong_type)
    assert r.returncode != 0 and "containerPort" in r.stderr
    assert len([m for m, _, _ in server.requests if m == "POST"]) == 1  # only the valid pod was sent


@pytest.mark.parametrize("version", ["1.37", "1.20"])
def test_three_way_apply_uses_patch_metadata(server, tmp_path, version):
    """kubectl builds its strategic merge patch from the documents' merge keys (1.37 from
    v3, 1.20 from the v2 protobuf form): removing an env var must become a `$patch: delete`
    of that element, not a replacement of the whole list."""
    exe = _kubectl(version)
    kc = server.kubeconfig(tmp_path / "kc")
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\nspec:\n"
        "  containers:\n  - name: c\n    image: i\n    env:\n    - name: A\n      value: '1'\n"
        "    - name: B\n      value: '2'\n"
    )
    r = run(exe, kc, "apply", "-f", "-", stdin=pod)
    assert r.returncode == 0, r.stderr
    r = run(exe, kc, "apply", "-f", "-", stdin=pod.replace("    - name: B\n      value: '2'\n", ""))
    assert r.returncode == 0, r.stderr
    patches = [req for req in server.requests if req[0] == "PATCH"]
    assert patches, server.requests
    _, _, ctype, body = patches[-1]
    assert ctype == "application/strategic-merge-patch+json"
    patch = json.loads(body)
    container = patch["spec"]["containers"][0]
    assert container["name"] == "c"
    assert {"$patch": "delete", "name": "B"} in container["env"]
