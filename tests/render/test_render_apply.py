"""`k32 apply` against a tiny in-test API server that records every request (a test double
of the Kubernetes API: it stores what it is sent and answers GETs with it, adding the kind of
server-side defaults a real API server adds)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest
import yaml
from render_helpers import CATALOG_KUBE32, k32

from k32.render import manifest_set as bundle
from k32.render.apply.apply import DIGEST_ANNOTATION, HASH_ANNOTATION

DISCOVERY = {
    "/api/v1": [("namespaces", "Namespace", False), ("pods", "Pod", True), ("services", "Service", True)],
    "/apis/networking.k8s.io/v1": [("ingresses", "Ingress", True), ("networkpolicies", "NetworkPolicy", True)],
    "/apis/apps/v1": [("deployments", "Deployment", True), ("replicasets", "ReplicaSet", True)],
}


class FakeAPI:
    def __init__(self, token="s3cret"):
        self.requests, self.objects, self.token = [], {}, token
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, status, doc):
                raw = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _handle(self):
                u = urlparse(self.path)
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                api.requests.append(
                    {
                        "method": self.command,
                        "path": u.path,
                        "query": parse_qs(u.query),
                        "headers": dict(self.headers),
                        "body": body,
                    }
                )
                if self.headers.get("Authorization") != f"Bearer {api.token}":
                    return self._send(401, {"kind": "Status", "message": "Unauthorized"})
                if self.command == "GET" and u.path in DISCOVERY:
                    return self._send(
                        200,
                        {
                            "resources": [{"name": p, "kind": k, "namespaced": ns} for p, k, ns in DISCOVERY[u.path]]
                            + [{"name": "pods/status", "kind": "Pod", "namespaced": True}]
                        },
                    )
                if self.command == "PATCH":
                    if self.headers.get("Content-Type") != "application/apply-patch+yaml":
                        return self._send(415, {"message": "unsupported media type"})
                    obj = json.loads(body)
                    obj.setdefault("metadata", {})["uid"] = f"uid-{len(api.objects)}"
                    if obj["kind"] == "Service":
                        for p in obj["spec"]["ports"]:
                            p.setdefault("protocol", "TCP")  # a server default
                    obj["status"] = {}
                    api.objects[u.path] = obj
                    return self._send(200, obj)
                if self.command == "GET":
                    if u.path in api.objects:
                        return self._send(200, api.objects[u.path])
                    return self._send(404, {"kind": "Status", "reason": "NotFound"})
                return self._send(405, {"message": "method not allowed"})

            do_GET = do_PATCH = do_PUT = do_POST = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def api(tmp_path):
    a = FakeAPI()
    yield a
    a.close()


@pytest.fixture
def kubeconfig(tmp_path, api):
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "other",
        "clusters": [
            {"name": "fake", "cluster": {"server": api.url}},
            {"name": "nowhere", "cluster": {"server": "http://127.0.0.1:9"}},
        ],
        "users": [{"name": "u", "user": {"token": api.token}}],
        "contexts": [
            {"name": "kube32", "context": {"cluster": "fake", "user": "u"}},
            {"name": "other", "context": {"cluster": "nowhere", "user": "u"}},
        ],
    }
    p = tmp_path / "kubeconfig"
    p.write_text(yaml.safe_dump(cfg))
    return p


@pytest.fixture
def kube32_bundle(tmp_path):
    out = tmp_path / "bundle"
    assert k32("catalog", "render", CATALOG_KUBE32, "-o", out, "--target", "kube32").exit_code == 0
    return out


def _apply(kubeconfig, bundle_dir, *extra):
    return k32("apply", "--manifests", bundle_dir, "--kubeconfig", kubeconfig, "--context", "kube32", *extra)


def test_apply_sends_exactly_the_hashed_objects_in_order(api, kubeconfig, kube32_bundle):
    r = _apply(kubeconfig, kube32_bundle)
    assert r.exit_code == 0, r.output
    b = bundle.load(kube32_bundle)
    patches = [q for q in api.requests if q["method"] == "PATCH"]
    assert len(patches) == len(b.resources)
    for req, res in zip(patches, b.resources):
        assert req["headers"]["Content-Type"] == "application/apply-patch+yaml"
        assert req["query"] == {"fieldManager": ["k32"], "force": ["true"]}
        sent = json.loads(req["body"])
        ann = sent["metadata"].pop("annotations")
        assert ann.pop(HASH_ANNOTATION) == f"sha256:{res.sha256}"
        assert ann.pop(DIGEST_ANNOTATION) == b.digest
        want = yaml.safe_load(res.data)
        want["metadata"].pop("annotations", None)
        if ann:
            assert ann == yaml.safe_load(res.data)["metadata"]["annotations"]
        assert sent == want  # YAML -> JSON, nothing else changed
        i = res.identity
        assert req["path"].endswith(f"/{i.name}")
        assert (f"/namespaces/{i.namespace}/" in req["path"]) == (i.kind != "Namespace")
    assert patches[0]["path"] == "/api/v1/namespaces/counter"


def test_check_reports_no_drift_after_apply_then_drift_after_a_change(api, kubeconfig, kube32_bundle):
    assert _apply(kubeconfig, kube32_bundle).exit_code == 0
    ok = _apply(kubeconfig, kube32_bundle, "--check")
    assert ok.exit_code == 0 and "ok: no drift" in ok.output, ok.output
    svc_path = "/api/v1/namespaces/echo/services/echo"
    api.objects[svc_path]["spec"]["ports"][0]["port"] = 81
    del api.objects["/apis/networking.k8s.io/v1/namespaces/probe/networkpolicies/egress-internet"]
    pod = "/api/v1/namespaces/minimal/pods/minimal"
    api.objects[pod]["metadata"]["annotations"][HASH_ANNOTATION] = "sha256:other"
    bad = _apply(kubeconfig, kube32_bundle, "--check")
    assert bad.exit_code == 1
    assert "drift: v1 Service echo/echo (echo/03-service-echo.yaml): live differs at spec.ports[0].port" in bad.output
    assert "NetworkPolicy probe/egress-internet" in bad.output and "missing from the cluster" in bad.output
    assert "v1 Pod minimal/minimal" in bad.output and "sha256:other" in bad.output
    assert bad.output.count("drift:") == 3


def test_check_sends_no_writes(api, kubeconfig, kube32_bundle):
    _apply(kubeconfig, kube32_bundle, "--check")
    assert {q["method"] for q in api.requests} == {"GET"}


def test_tampered_bundle_is_refused_before_any_request(api, kubeconfig, kube32_bundle):
    f = kube32_bundle / "echo" / "04-pod-echo.yaml"
    f.write_text(f.read_text().replace("wasm://embedded/echo", "wasm://embedded/evil"))
    r = _apply(kubeconfig, kube32_bundle)
    assert r.exit_code == 1 and "hash_mismatch" in r.output and "04-pod-echo.yaml" in r.output
    assert api.requests == []


def test_server_errors_are_reported_with_the_resource(api, kubeconfig, kube32_bundle):
    api.token = "rotated"
    r = _apply(kubeconfig, kube32_bundle)
    assert r.exit_code == 1
    assert "api_auth: GET /api/v1: HTTP 401: Unauthorized" in r.output


def test_unknown_context_and_unreachable_server(kubeconfig, kube32_bundle):
    r = k32("apply", "--manifests", kube32_bundle, "--kubeconfig", kubeconfig, "--context", "nope")
    assert r.exit_code == 1 and "context 'nope' not found" in r.output
    r = k32("apply", "--manifests", kube32_bundle, "--kubeconfig", kubeconfig)  # current-context: other
    assert r.exit_code == 1 and "api_unreachable" in r.output


def test_release_bundle_goes_through_the_same_apply(api, kubeconfig, tmp_path):
    from render_helpers import IMAGE, render_args

    out = tmp_path / "rel"
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    (tpl / "svc.yaml.tmpl").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .StableServiceName }}\n"
        "  namespace: {{ .Namespace }}\n  annotations:\n    image: {{ .ImageReference }}\n"
        "spec:\n  ports:\n    - port: 80\n"
    )
    assert k32(*render_args(out, template=tpl, target="demo/prod/c/demo", weights="100")).exit_code == 0
    assert _apply(kubeconfig, out).exit_code == 0
    assert _apply(kubeconfig, out, "--check").exit_code == 0
    sent = json.loads([q for q in api.requests if q["method"] == "PATCH"][0]["body"])
    assert sent["metadata"]["annotations"]["image"] == IMAGE
