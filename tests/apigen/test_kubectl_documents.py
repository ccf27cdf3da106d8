"""Real kubectl against the generated documents (served by a throwaway HTTP server):
kubectl explain reads v3 and the v2 protobuf form, and kubectl apply uses the v3 document to
decide that the server does field validation."""
import shutil
import subprocess
from pathlib import Path

import pytest

from .fake_apiserver import FakeApiServer


def _kubectl_137():
    venv = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "kubectl"
    exe = str(venv) if venv.exists() else shutil.which("kubectl")
    if not exe:
        pytest.skip("no kubectl binary")
    out = subprocess.run([exe, "version", "--client"], capture_output=True, text=True).stdout
    if "v1.37" not in out:
        pytest.skip(f"{exe} is not kubectl 1.37")
    return exe


@pytest.fixture
def server():
    with FakeApiServer() as s:
        yield s


def run(exe, kubeconfig, *args, stdin=None):
    return subprocess.run([exe, "--kubeconfig", str(kubeconfig), "--cache-dir", str(kubeconfig.parent / "cache"),
                           *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_explain_v3(server, tmp_path):
    exe = _kubectl_137()
    r = run(exe, server.kubeconfig(tmp_path / "kc"), "explain", "pods.spec.containers.ports")
    assert r.returncode == 0, r.stderr
    assert "containerPort" in r.stdout and "<integer>" in r.stdout
    assert any(p.startswith("/openapi/v3/api/v1?hash=") for _, p, _ in server.requests)


def test_explain_v2_protobuf(server, tmp_path):
    exe = _kubectl_137()
    r = run(exe, server.kubeconfig(tmp_path / "kc"), "explain", "ingresses.spec.rules",
            "--output=plaintext-openapiv2")
    assert r.returncode == 0, r.stderr
    assert "http" in r.stdout and "host" in r.stdout
    # kubectl decoded the gnostic protobuf form: it asked for nothing else.
    v2 = [a for m, p, a in server.requests if m == "GET" and p.split("?")[0] == "/openapi/v2"]
    assert v2 and all("protobuf" in a for a in v2)
    assert "host\t<string>" in r.stdout


def test_apply_uses_server_side_field_validation(server, tmp_path):
    exe = _kubectl_137()
    manifest = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n"
                "data:\n  a: b\n")
    r = run(exe, server.kubeconfig(tmp_path / "kc"), "create", "--validate=strict", "-f", "-", stdin=manifest)
    assert r.returncode == 0, r.stderr
    posts = [p for m, p, _ in server.requests if m == "POST"]
    assert posts and "fieldValidation=Strict" in posts[0], posts
