"""Loads the upstream Kubernetes schemas (the `kubernetes-validate` package) and turns
them back into OpenAPI-style definitions: one type per schema (no ["string","null"]),
`#/definitions/` references, and the patch metadata of kinds.PATCH_KEYS checked/added."""

import copy
import json
from importlib import resources

from .kinds import FIELD_DEFAULTS, META_DEFINITIONS, PATCH_KEYS, SCALE_DEFINITION, SERVED_KINDS

KUBERNETES_VERSION = "1.37.0"
REF_PREFIX = "#/definitions/"
_UPSTREAM_REF = "#/$defs/"
# Upstream defines these two as oneOf(string, integer|number); OpenAPI documents served by
# Kubernetes describe them as strings with a format, and so do we.
_FORMATTED_STRINGS = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "int-or-string",
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "quantity",
}
_DROP_KEYS = {"$schema", "$id", "additionalItems"}


class SourceError(Exception):
    """The upstream schema package is missing or does not look as expected."""


def load_upstream(version: str = KUBERNETES_VERSION) -> dict:
    try:
        base = resources.files("kubernetes_validate") / "kubernetes-json-schema"
    except ModuleNotFoundError:
        raise SourceError(
            "the Python package 'kubernetes-validate' is not installed (pip install kubernetes-validate)"
        ) from None
    path = base / f"v{version}-local" / "_definitions.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SourceError(f"{path}: kubernetes-validate has no schemas for Kubernetes {version}") from None
    defs = data.get("$defs")
    if not isinstance(defs, dict):
        raise SourceError(f"{path}: no '$defs' object")
    return defs


def _single_type(t, where):
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        if len(rest) != 1:
            raise SourceError(f"{where}: cannot reduce type {t} to one OpenAPI type")
        return rest[0]
    return t


def _normalize(node, where):
    """Returns an OpenAPI v2 flavoured copy of one upstream schema node."""
    if isinstance(node, list):
        return [_normalize(x, f"{where}[{i}]") for i, x in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in _DROP_KEYS:
            continue
        if key == "$ref":
            if not value.startswith(_UPSTREAM_REF):
                raise SourceError(f"{where}.$ref: unexpected reference {value!r}")
            out[key] = REF_PREFIX + value[len(_UPSTREAM_REF) :]
        elif key == "type":
            out[key] = _single_type(value, where)
        elif key in ("properties", "patternProperties"):
            out[key] = {k: _normalize(v, f"{where}.{k}") for k, v in value.items()}
        else:
            out[key] = _normalize(value, f"{where}.{key}")
    if "$ref" in out:  # a reference carries nothing else in OpenAPI v2 except a description
        out = {k: v for k, v in out.items() if k in ("$ref", "description")}
    return out


def _referenced(node, acc):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref:
            acc.add(ref[len(REF_PREFIX) :])
        for v in node.values():
            _referenced(v, acc)
    elif isinstance(node, list):
        for v in node:
            _referenced(v, acc)


def _roots():
    roots = list(META_DEFINITIONS)
    for k in SERVED_KINDS:
        roots += [k.definition, k.definition + "List"]
    if any(k.scale for k in SERVED_KINDS):
        roots.append(SCALE_DEFINITION)
    return roots


def _apply_patch_table(defs):
    for name in sorted(defs):
        for prop, schema in sorted(defs[name].get("properties", {}).items()):
            if "x-kubernetes-patch-strategy" in schema and (name, prop) not in PATCH_KEYS:
                raise SourceError(
                    f"{name}.{prop}: upstream declares patch strategy "
                    f"{schema['x-kubernetes-patch-strategy']!r}; add it to kinds.PATCH_KEYS"
                )
    for (name, prop), (strategy, key) in sorted(PATCH_KEYS.items()):
        schema = defs.get(name, {}).get("properties", {}).get(prop)
        if schema is None:
            if name in defs:
                raise SourceError(f"kinds.PATCH_KEYS: {name} has no property {prop!r}")
            continue  # the definition is not served
        for ext, want in (("x-kubernetes-patch-strategy", strategy), ("x-kubernetes-patch-merge-key", key)):
            have = schema.get(ext)
            if have is not None and have != want:
                raise SourceError(f"kinds.PATCH_KEYS: {name}.{prop} {ext} is {want!r} here but {have!r} upstream")
            if want is not None:
                schema[ext] = want


def served_definitions(version: str = KUBERNETES_VERSION) -> dict:
    """The definitions the served kinds and meta types need (closure over $ref), normalized."""
    upstream = load_upstream(version)
    out = {}
    todo = _roots()
    while todo:
        name = todo.pop()
        if name in out:
            continue
        if name not in upstream:
            raise SourceError(f"upstream schemas for Kubernetes {version} have no definition {name!r}")
        if name in _FORMATTED_STRINGS:
            d = {"type": "string", "format": _FORMATTED_STRINGS[name]}
            if "description" in upstream[name]:
                d["description"] = upstream[name]["description"]
        else:
            d = _normalize(copy.deepcopy(upstream[name]), name)
            props = d.get("properties", {})
            # kubernetes-validate pins apiVersion/kind with enums; served documents do not.
            for tm in ("apiVersion", "kind"):
                if isinstance(props.get(tm), dict):
                    props[tm].pop("enum", None)
        if "oneOf" in d or "anyOf" in d:
            raise SourceError(f"{name}: unsupported oneOf/anyOf in the upstream schema")
        out[name] = d
        refs = set()
        _referenced(d, refs)
        todo.extend(sorted(refs - out.keys()))
    _apply_patch_table(out)
    for (name, prop), value in sorted(FIELD_DEFAULTS.items()):
        schema = out.get(name, {}).get("properties", {}).get(prop)
        if schema is None:
            raise SourceError(f"kinds.FIELD_DEFAULTS: {name} has no property {prop!r}")
        schema["default"] = value
    return out
