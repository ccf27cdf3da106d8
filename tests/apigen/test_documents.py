"""The served OpenAPI documents: valid OpenAPI, deterministic, hashed, trimmed to the
served kinds, with the extensions kubectl relies on."""

import hashlib
import json

import pytest

from k32.apigen import build_documents, document_file, write_documents
from k32.apigen.documents import CT_JSON, CT_V2_PROTOBUF
from k32.apigen.kinds import SERVED_KINDS


@pytest.fixture(scope="module")
def docs():
    documents, _ = build_documents()
    return {(d.path, d.content_type): d for d in documents}


def _json(docs, path):
    return json.loads(docs[(path, CT_JSON)].data)


def test_deterministic(docs):
    again, _ = build_documents()
    assert [(d.path, d.data) for d in again] == [(d.path, docs[(d.path, d.content_type)].data) for d in again]


@pytest.mark.slow
def test_documents_are_valid_openapi(docs):
    validator = pytest.importorskip("openapi_spec_validator")
    for (path, ct), d in docs.items():
        if ct == CT_JSON and path != "/openapi/v3":
            validator.validate(json.loads(d.data))


def test_v3_index_hashes_are_sha256_of_documents(docs):
    index = _json(docs, "/openapi/v3")
    assert set(index["paths"]) == {k.gv_path for k in SERVED_KINDS}
    for entry in index["paths"].values():
        url = entry["serverRelativeURL"]
        path, _, query = url.partition("?")
        data = docs[(path, CT_JSON)].data
        assert query == "hash=" + hashlib.sha256(data).hexdigest().upper()
        assert docs[(path, CT_JSON)].etag == '"' + hashlib.sha256(data).hexdigest().upper() + '"'


def test_served_kinds_have_gvk_and_nothing_else_is_served(docs):
    v2 = _json(docs, "/openapi/v2")
    defs = v2["definitions"]
    for k in SERVED_KINDS:
        gvks = defs[k.definition]["x-kubernetes-group-version-kind"]
        assert {"group": k.group, "version": k.version, "kind": k.kind} in gvks
        assert k.definition + "List" in defs
    # Only the served kinds' closure: no StatefulSet or DaemonSet rides along with apps/v1.
    assert not [
        n
        for n in defs
        if n.startswith(("io.k8s.api.apps.v1.StatefulSet", "io.k8s.api.apps.v1.DaemonSet", "io.k8s.api.batch."))
    ]
    # The /scale subresource's body.
    assert "io.k8s.api.autoscaling.v1.Scale" in defs
    assert "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale" in v2["paths"]
    # OpenAPI types, not JSON-schema unions.
    assert defs["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["name"]["type"] == "string"
    assert defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] == {"type": "string", "format": "int-or-string"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "definition,prop,strategy,key",
    [
        ("io.k8s.api.core.v1.PodSpec", "containers", "merge", "name"),
        ("io.k8s.api.core.v1.Container", "env", "merge", "name"),
        ("io.k8s.api.core.v1.Container", "ports", "merge", "containerPort"),
        ("io.k8s.api.core.v1.Container", "volumeMounts", "merge", "mountPath"),
        ("io.k8s.api.core.v1.PodSpec", "volumes", "merge,retainKeys", "name"),
        ("io.k8s.api.core.v1.ServiceSpec", "ports", "merge", "port"),
        ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "ownerReferences", "merge", "uid"),
        ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers", "merge", None),
    ],
)
def test_patch_metadata(docs, definition, prop, strategy, key):
    schema = _json(docs, "/openapi/v2")["definitions"][definition]["properties"][prop]
    assert schema["x-kubernetes-patch-strategy"] == strategy
    assert schema.get("x-kubernetes-patch-merge-key") == key
    v3 = _json(docs, "/openapi/v3/api/v1")["components"]["schemas"]
    assert v3[definition]["properties"][prop]["x-kubernetes-patch-strategy"] == strategy


def test_write_operations_take_field_validation(docs):
    """kubectl 1.37 enables server-side field validation only when the PATCH operation of the
    kind lists a fieldValidation query parameter in the v3 document."""
    for k in SERVED_KINDS:
        v3 = _json(docs, f"/openapi/v3/{k.gv_path}")
        patch_ops = [
            item["patch"]
            for item in v3["paths"].values()
            if "patch" in item and item["patch"]["x-kubernetes-group-version-kind"]["kind"] == k.kind
        ]
        assert patch_ops, k.kind
        for item in v3["paths"].values():
            for verb in ("post", "put", "patch"):
                if verb in item and item[verb]["x-kubernetes-group-version-kind"]["kind"] == k.kind:
                    names = {(p["name"], p["in"]) for p in item[verb]["parameters"]}
                    assert ("fieldValidation", "query") in names
        # Every reference resolves inside the same document.
        text = json.dumps(v3)
        for ref in set(part.split('"')[0] for part in text.split('"$ref": "#/components/schemas/')[1:]):
            assert ref in v3["components"]["schemas"], ref


def test_namespaced_and_cluster_paths(docs):
    paths = _json(docs, "/openapi/v2")["paths"]
    assert "/api/v1/namespaces/{namespace}/pods/{name}/status" in paths
    assert "/api/v1/pods" in paths
    assert "/api/v1/nodes/{name}" in paths
    assert "/api/v1/namespaces/{namespace}/nodes" not in paths
    assert "/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses" in paths


def test_descriptions_are_optional():
    with_desc, _ = build_documents(descriptions=True)
    without, _ = build_documents(descriptions=False)
    size = lambda ds: sum(len(d.data) for d in ds)  # noqa: E731
    assert size(with_desc) > size(without)
    pod = json.loads(with_desc[0].data)["definitions"]["io.k8s.api.core.v1.Pod"]
    assert "description" in pod


def test_write_documents(tmp_path, docs):
    written = write_documents(tmp_path)
    names = sorted(p.relative_to(tmp_path).as_posix() for p in written)
    assert "openapi/v2.json" in names and "openapi/v2.pb" in names
    assert "openapi/v3.json" in names and "openapi/v3/apis/networking.k8s.io/v1.json" in names
    for d in docs.values():
        assert (tmp_path / document_file(d)).read_bytes() == d.data
    assert document_file(docs[("/openapi/v2", CT_V2_PROTOBUF)]) == "openapi/v2.pb"
