"""Issue 2: bad requests get a Kubernetes Status error with kube-apiserver's code and reason,
and the node keeps serving afterwards."""

import json
import select
import socket

import pytest

CM_PATH = "/api/v1/namespaces/default/configmaps"
# kube-apiserver's request body limit (3 MiB); Kube32 may only be stricter.
BODY_LIMIT = 3 * 1024 * 1024


def status_of(code: int, body: bytes) -> dict:
    try:
        doc = json.loads(body)
    except ValueError:
        pytest.fail(f"HTTP {code} body is not JSON: {body[:200]!r}")
    assert doc.get("kind") == "Status" and doc.get("apiVersion") == "v1", doc
    assert doc.get("status") == "Failure", doc
    assert doc.get("code") == code, doc
    assert isinstance(doc.get("message"), str) and doc["message"], doc
    return doc


def assert_still_serving(cluster):
    code, _, body = cluster.request("GET", "/api/v1/namespaces/default")
    assert code == 200, body[:200]


def cm_body(name="ok", **extra) -> dict:
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    doc.update(extra)
    return doc


@pytest.mark.parametrize(
    "content_type, body",
    [
        ("application/json", b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {'),
        ("application/json", b"\xff\xfe not json"),
        ("application/json", b'["a", "list"]'),
        ("application/yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [unclosed\n"),
    ],
)
def test_malformed_body_is_bad_request(sim_cluster, content_type, body):
    code, _, resp = sim_cluster.request("POST", CM_PATH, body, headers={"Content-Type": content_type})
    assert code == 400
    assert status_of(code, resp)["reason"] == "BadRequest"
    assert_still_serving(sim_cluster)


def test_yaml_body_is_accepted(sim_cluster):
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n"
    code, _, resp = sim_cluster.request("POST", CM_PATH, body, headers={"Content-Type": "application/yaml"})
    assert code == 201, resp[:300]
    assert sim_cluster.request("DELETE", CM_PATH + "/from-yaml")[0] == 200


def test_wrong_content_type_is_unsupported_media_type(sim_cluster):
    code, _, resp = sim_cluster.request(
        "POST", CM_PATH, json.dumps(cm_body("ctype")), headers={"Content-Type": "text/plain"}
    )
    assert code == 415
    assert status_of(code, resp)["reason"] == "UnsupportedMediaType"

    assert sim_cluster.request("POST", CM_PATH, cm_body("ctype"))[0] == 201
    code, _, resp = sim_cluster.request(
        "PATCH", CM_PATH + "/ctype", json.dumps({"data": {}}), headers={"Content-Type": "application/json"}
    )
    assert code == 415
    assert status_of(code, resp)["reason"] == "UnsupportedMediaType"
    assert sim_cluster.request("DELETE", CM_PATH + "/ctype")[0] == 200
    assert_still_serving(sim_cluster)


def _post_oversized(cluster, size: int) -> tuple[int, bytes]:
    """POST `size` bytes with Expect: 100-continue, as curl does, so a server that rejects on
    Content-Length alone can answer before the body is sent."""
    host, port = cluster.api_url.removeprefix("http://").split(":")
    head = (
        f"POST {CM_PATH} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {size}\r\n"
        f"Expect: 100-continue\r\nConnection: close\r\n"
    )
    if cluster.token:
        head += f"Authorization: Bearer {cluster.token}\r\n"
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall((head + "\r\n").encode())
        early = b""
        if select.select([s], [], [], 2.0)[0]:
            early = s.recv(65536)
        if not early.startswith(b"HTTP/1.1 100") and early:
            response = early
        else:
            # Whitespace: it is the size that must be rejected, before any parsing.
            chunk = b" " * 65536
            try:
                sent = 0
                while sent < size:
                    n = min(len(chunk), size - sent)
                    s.sendall(chunk[:n])
                    sent += n
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server may stop reading once it knows; its answer is what counts
            response = early.split(b"\r\n\r\n", 1)[1] if early.startswith(b"HTTP/1.1 100") else b""
        try:
            while True:
                data = s.recv(65536)
                if not data:
                    break
                response += data
        except ConnectionResetError:
            pass
    assert response, "no HTTP response to an oversized body"
    status_line, _, rest = response.partition(b"\r\n")
    code = int(status_line.split()[1])
    body = rest.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in rest else b""
    return code, body


def test_oversized_body_is_rejected(sim_cluster):
    code, body = _post_oversized(sim_cluster, BODY_LIMIT + 64 * 1024)
    assert code == 413
    assert status_of(code, body)["reason"] == "RequestEntityTooLarge"
    assert_still_serving(sim_cluster)


def test_unknown_resource_is_not_found(sim_cluster):
    for path in ("/api/v1/namespaces/default/widgets", "/apis/example.com/v1/widgets"):
        code, _, resp = sim_cluster.request(
            "POST", path, {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
        )
        assert code == 404, path
        assert status_of(code, resp)["reason"] == "NotFound"
    assert_still_serving(sim_cluster)


def test_kind_mismatch_is_bad_request(sim_cluster):
    code, _, resp = sim_cluster.request("POST", CM_PATH, cm_body("mismatch", kind="Secret"))
    assert code == 400
    assert status_of(code, resp)["reason"] == "BadRequest"


def test_unknown_kind_with_kubectl(sim_cluster):
    proc = sim_cluster.kubectl(
        "apply",
        "-f",
        "-",
        input=("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\n"),
    )
    assert proc.returncode != 0
    assert 'no matches for kind "Widget"' in proc.stderr, proc.stderr


@pytest.mark.parametrize("name", ["Bad_Name", "UPPER", "-leading", "a" * 254, "dots..twice"])
def test_bad_names_are_invalid(sim_cluster, name):
    code, _, resp = sim_cluster.request("POST", CM_PATH, cm_body(name))
    assert code == 422
    doc = status_of(code, resp)
    assert doc["reason"] == "Invalid"
    causes = (doc.get("details") or {}).get("causes") or []
    assert any(c.get("field") == "metadata.name" for c in causes), doc
    assert_still_serving(sim_cluster)


def test_bad_namespace_name_is_invalid(sim_cluster):
    code, _, resp = sim_cluster.request(
        "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "No.Dots.Allowed"}}
    )
    assert code == 422
    assert status_of(code, resp)["reason"] == "Invalid"


def test_missing_object_is_not_found_status(sim_cluster):
    code, _, resp = sim_cluster.request("GET", CM_PATH + "/does-not-exist")
    assert code == 404
    doc = status_of(code, resp)
    assert doc["reason"] == "NotFound"
    assert doc["details"] == {"name": "does-not-exist", "kind": "configmaps"}
