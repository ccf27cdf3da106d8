"""The /openapi/v2 protobuf form, decoded with an independent wire-format reader and
checked against the JSON form (field numbers from gnostic's OpenAPIv2.proto)."""

import json
import struct

import pytest
import yaml

from k32.apigen import build_documents
from k32.apigen.documents import CT_JSON, CT_V2_PROTOBUF
from k32.apigen.protobuf import EncodeError, encode_v2_document


def fields(buf: bytes):
    """[(field number, value)] of one message; length-delimited values stay bytes."""
    out, i = [], 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _varint(buf, i)
        elif wire == 1:
            v, i = struct.unpack_from("<d", buf, i)[0], i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            v, i = buf[i : i + n], i + n
            assert i <= len(buf), "length runs past the message"
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.append((num, v))
    return out


def _varint(buf, i):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, i


def one(msg, num):
    vals = [v for n, v in fields(msg) if n == num]
    assert len(vals) == 1, (num, len(vals))
    return vals[0]


def named(msg, num):
    """Repeated Named* (name = 1, value = 2) pairs as a dict."""
    return {one(v, 1).decode(): one(v, 2) for n, v in fields(msg) if n == num}


@pytest.fixture(scope="module")
def both():
    docs, _ = build_documents()
    by = {(d.path, d.content_type): d for d in docs}
    return json.loads(by[("/openapi/v2", CT_JSON)].data), by[("/openapi/v2", CT_V2_PROTOBUF)].data


def test_document_header(both):
    _, pb = both
    assert one(pb, 1) == b"2.0"
    info = one(pb, 2)
    assert one(info, 1) == b"Kube32"


def test_definitions_match_json(both):
    v2, pb = both
    defs = named(one(pb, 9), 1)  # Document.definitions -> Definitions.additional_properties
    assert set(defs) == set(v2["definitions"])
    pod = defs["io.k8s.api.core.v1.Pod"]
    # Schema.vendor_extension (31): NamedAny whose Any.yaml (2) holds the value.
    ext = {one(v, 1).decode(): yaml.safe_load(one(one(v, 2), 2)) for n, v in fields(pod) if n == 31}
    assert ext["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    # Schema.type (22) is a TypeItem with repeated value (1).
    assert one(one(pod, 22), 1) == b"object"
    props = named(one(pod, 25), 1)
    assert set(props) == set(v2["definitions"]["io.k8s.api.core.v1.Pod"]["properties"])
    assert one(props["spec"], 1) == b"#/definitions/io.k8s.api.core.v1.PodSpec"  # Schema._ref
    containers = named(one(defs["io.k8s.api.core.v1.PodSpec"], 25), 1)["containers"]
    ext = {one(v, 1).decode(): yaml.safe_load(one(one(v, 2), 2)) for n, v in fields(containers) if n == 31}
    assert ext["x-kubernetes-patch-merge-key"] == "name"
    items = one(containers, 23)  # ItemsItem.schema (1)
    assert one(one(items, 1), 1) == b"#/definitions/io.k8s.api.core.v1.Container"


def test_paths_match_json(both):
    v2, pb = both
    paths = named(one(pb, 8), 2)  # Paths.path (2)
    assert set(paths) == set(v2["paths"])
    item = paths["/api/v1/namespaces/{namespace}/pods/{name}"]
    patch = one(item, 8)  # PathItem.patch
    assert one(patch, 5) == b"patchCoreV1NamespacedPod"  # Operation.operation_id
    consumes = [v.decode() for n, v in fields(patch) if n == 7]
    assert "application/strategic-merge-patch+json" in consumes
    query_names = []
    for n, p in fields(patch):
        if n != 8:
            continue
        param = one(p, 1)  # ParametersItem.parameter
        for pn, pv in fields(param):
            if pn == 2:  # NonBodyParameter
                q = dict(fields(pv)).get(3)  # QueryParameterSubSchema
                if q is not None:
                    query_names.append(one(q, 4).decode())
    assert "fieldValidation" in query_names


def test_encoder_rejects_unknown_keywords():
    with pytest.raises(EncodeError, match="definitions.X: schema keyword 'oneOf'"):
        encode_v2_document({"swagger": "2.0", "paths": {}, "definitions": {"X": {"oneOf": []}}})
