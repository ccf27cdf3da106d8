"""Golden tests: the example catalogs render byte-for-byte to tests/render/golden/, for both
targets; every standard-kind object validates against the Kubernetes schemas; the catalog
exercises every schema field and every default. Regenerate with K32_UPDATE_GOLDEN=1."""

from __future__ import annotations

import json

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import latest_version
from render_helpers import CATALOG_K3S, CATALOG_KUBE32, GOLDEN, UPDATE_GOLDEN

from k32.render import manifest_set as bundle
from k32.render.catalog import k3s, kube32
from k32.render.catalog.load import load_catalog, schema
from k32.render.errors import RenderError

# Kinds with no upstream Kubernetes schema (CRDs); everything else MUST validate.
CRD_KINDS = {
    "CiliumNetworkPolicy",
    "CiliumEgressGatewayPolicy",
    "HTTPRoute",
    "VirtualMachine",
    "PrometheusRule",
    "ServiceMonitor",
}
CASES = {"k3s": (CATALOG_K3S, k3s.render_catalog), "kube32": (CATALOG_KUBE32, kube32.render_catalog)}


def _render(target):
    catalog_dir, fn = CASES[target]
    return fn(load_catalog(catalog_dir), {"renderer": "catalog", "target": target})


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(CASES))
def test_catalog_matches_golden(target):
    b = _render(target)
    golden = GOLDEN / target
    if UPDATE_GOLDEN:
        bundle.write(b, golden)
    lines = bundle.diff(b.files(), golden)
    assert not lines, "".join(lines[:80])


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(CASES))
def test_golden_bundle_loads_and_verifies(target):
    b = bundle.load(GOLDEN / target)
    assert b.digest == json.loads((GOLDEN / target / "bundle.json").read_text())["digest"]


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(CASES))
def test_standard_kinds_validate_against_kubernetes_schemas(target):
    version = latest_version()
    kinds = set()
    for r in _render(target).resources:
        obj = yaml.safe_load(r.data)
        kinds.add(obj["kind"])
        if obj["kind"] in CRD_KINDS:
            continue
        kubernetes_validate.validate(obj, version, strict=True)  # raises on any violation
    assert kinds - CRD_KINDS, "no standard kinds were validated"


def test_kube32_refuses_each_field_it_cannot_honour():
    """Every k3s-only example fails for kube32 with an error naming its first offending field."""
    got = {}
    for d in load_catalog(CATALOG_K3S):
        try:
            kube32.render_service(d)
            got[d.name] = "ok"
        except RenderError as exc:
            assert exc.code == "unsupported_on_kube32"
            got[d.name] = exc.message.split(": ", 1)[1]
    path = GOLDEN / "kube32-refusals.json"
    if UPDATE_GOLDEN:
        path.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
    assert got == json.loads(path.read_text())
    named = " ".join(got.values())
    for field in ("kind: vm", "storage:", "hardware.gpu", "egress: vpn", "source.image"):
        assert field in named, f"no example is refused for {field}"


def _schema_fields(node, prefix=""):
    root = schema()
    if "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]
    for key, sub in node.get("properties", {}).items():
        path = f"{prefix}.{key}" if prefix else key
        yield path
        yield from _schema_fields(sub.get("items", sub), path)


def _declared_paths(value, prefix=""):
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{prefix}.{k}" if prefix else k
            yield path
            yield from _declared_paths(v, path)
    elif isinstance(value, list):
        for v in value:
            yield from _declared_paths(v, prefix)


def test_catalog_covers_every_field_and_every_default():
    defs = load_catalog(CATALOG_K3S) + load_catalog(CATALOG_KUBE32)
    assert len(load_catalog(CATALOG_K3S)) >= 12
    declared = set()
    for d in defs:
        declared |= set(_declared_paths(d.raw))
    missing = set(_schema_fields(schema())) - declared
    assert not missing, f"no example declares {sorted(missing)}"
    # Every top-level default is exercised by at least one example that omits the field.
    for key, sub in schema()["properties"].items():
        if "default" in sub:
            assert any(key not in d.raw for d in defs), f"every example declares {key}"
    names = {d.name for d in defs}
    assert {"plex", "sonarr", "radarr", "pihole"} <= names


def test_contract_examples_render_as_the_contract_says():
    objs = {d.name: k3s.render_service(d) for d in load_catalog(CATALOG_K3S)}
    plex_app = next(o for o in objs["plex"] if o["kind"] == "Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert plex_app["resources"] == {"limits": {"gpu.intel.com/i915": 1}}
    for svc in ("sonarr", "radarr"):
        mounts = next(o for o in objs[svc] if o["kind"] == "Deployment")["spec"]["template"]["spec"]["containers"][0][
            "volumeMounts"
        ]
        media = [m for m in mounts if m["name"] == "media"]
        assert media == [{"name": "media", "mountPath": "/media"}]  # the ancestor, once
        kinds = [o["kind"] for o in objs[svc]]
        assert "CiliumEgressGatewayPolicy" in kinds
    pihole = objs["pihole"]
    assert [o["kind"] for o in pihole].count("StatefulSet") == 1
    assert any(o["kind"] == "PodDisruptionBudget" for o in pihole)
    # homeassistant declares hardware.gpu but is a vm: ignored, nothing GPU-shaped rendered.
    assert "gpu.intel.com" not in json.dumps(objs["homeassistant"])
