"""Builds the served OpenAPI documents: /openapi/v2 (JSON and gnostic protobuf),
/openapi/v3 (the index) and /openapi/v3/<group-version>. Output is deterministic:
sorted keys, compact separators, no timestamps; hashes are sha256 over the bytes."""

import hashlib
import json
from dataclasses import dataclass

from . import paths as paths_mod
from .kinds import META_DEFINITIONS, SERVED_KINDS
from .protobuf import encode_v2_document
from .source import KUBERNETES_VERSION, REF_PREFIX, served_definitions

V3_REF_PREFIX = "#/components/schemas/"
CT_JSON = "application/json"
# kube-openapi answers the protobuf form as an opaque octet stream; clients that asked
# for it (kubectl 1.20) decode it as gnostic OpenAPIv2 regardless, and Go's mime parser
# rejects the "@" of the Accept value if it is echoed back.
CT_V2_PROTOBUF = "application/octet-stream"
TITLE = "Kube32"


@dataclass(frozen=True)
class Document:
    path: str  # request path, e.g. "/openapi/v3/api/v1"
    data: bytes
    content_type: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest().upper()

    @property
    def etag(self) -> str:
        return f'"{self.sha256}"'


def canonical_json(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _strip_descriptions(node):
    if isinstance(node, dict):
        return {k: _strip_descriptions(v) for k, v in node.items() if not (k == "description" and isinstance(v, str))}
    if isinstance(node, list):
        return [_strip_descriptions(v) for v in node]
    return node


def _refs(node, acc):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            acc.add(ref[len(REF_PREFIX) :])
        for v in node.values():
            _refs(v, acc)
    elif isinstance(node, list):
        for v in node:
            _refs(v, acc)


def _closure(defs, roots):
    out, todo = set(), list(roots)
    while todo:
        n = todo.pop()
        if n in out:
            continue
        out.add(n)
        acc = set()
        _refs(defs[n], acc)
        todo.extend(acc - out)
    return out


def _all_paths(kinds):
    out = {}
    for k in kinds:
        out.update(paths_mod.kind_paths(k))
    return out


def build_v2(defs) -> dict:
    return {
        "swagger": "2.0",
        "info": {"title": TITLE, "version": f"v{KUBERNETES_VERSION}"},
        "paths": _all_paths(SERVED_KINDS),
        "definitions": defs,
    }


def _v3_refs(node):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith(REF_PREFIX):
                out[k] = V3_REF_PREFIX + v[len(REF_PREFIX) :]
            else:
                out[k] = _v3_refs(v)
        return out
    if isinstance(node, list):
        return [_v3_refs(v) for v in node]
    return node


def _v3_param(p):
    schema = {"type": p["type"]}
    q = {"name": p["name"], "in": p["in"], "schema": schema}
    if p.get("description"):
        q["description"] = p["description"]
    if p.get("required"):
        q["required"] = True
    return q


def _v3_operation(op):
    out = {k: v for k, v in op.items() if k not in ("produces", "consumes", "schemes", "parameters", "responses")}
    params, body = [], None
    for p in op["parameters"]:
        if p["in"] == "body":
            body = p
        else:
            params.append(_v3_param(p))
    if params:
        out["parameters"] = params
    if body is not None:
        out["requestBody"] = {
            "required": True,
            "content": {ct: {"schema": body["schema"]} for ct in op.get("consumes", [CT_JSON])},
        }
    responses = {}
    for code, r in op["responses"].items():
        resp = {"description": r["description"]}
        if "schema" in r:
            resp["content"] = {ct: {"schema": r["schema"]} for ct in op["produces"]}
        responses[code] = resp
    out["responses"] = responses
    return out


def _v3_path_item(item):
    out = {}
    for key, value in item.items():
        if key == "parameters":
            out[key] = [_v3_param(p) for p in value]
        else:
            out[key] = _v3_operation(value)
    return out


def build_v3(defs, gv_path) -> dict:
    kinds = [k for k in SERVED_KINDS if k.gv_path == gv_path]
    paths = _all_paths(kinds)
    roots = set(META_DEFINITIONS)
    _refs(paths, roots)
    for k in kinds:
        roots |= {k.definition, k.definition + "List"}
    names = _closure(defs, roots)
    return _v3_refs(
        {
            "openapi": "3.0.0",
            "info": {"title": TITLE, "version": f"v{KUBERNETES_VERSION}"},
            "paths": {p: _v3_path_item(item) for p, item in paths.items()},
            "components": {"schemas": {n: defs[n] for n in sorted(names)}},
        }
    )


def group_versions():
    seen = []
    for k in SERVED_KINDS:
        if k.gv_path not in seen:
            seen.append(k.gv_path)
    return seen


def build_documents(descriptions: bool = False) -> tuple[list[Document], dict]:
    """Every served document in a stable order, and the (normalized) definitions they use."""
    defs = served_definitions()
    if not descriptions:
        defs = _strip_descriptions(defs)
    v2 = build_v2(defs)
    docs = [
        Document("/openapi/v2", canonical_json(v2), CT_JSON),
        Document("/openapi/v2", encode_v2_document(v2), CT_V2_PROTOBUF),
    ]
    index = {"paths": {}}
    for gv in group_versions():
        d = Document(f"/openapi/v3/{gv}", canonical_json(build_v3(defs, gv)), CT_JSON)
        docs.append(d)
        index["paths"][gv] = {"serverRelativeURL": f"{d.path}?hash={d.sha256}"}
    docs.insert(2, Document("/openapi/v3", canonical_json(index), CT_JSON))
    return docs, defs
