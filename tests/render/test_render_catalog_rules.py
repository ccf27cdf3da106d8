"""Catalog CLI behaviour: selftest, the golden proof (`check`) in both DNS directions,
bad input named by file/field/rule, and nothing written on error."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from render_helpers import CATALOG_K3S, CATALOG_KUBE32, k32

from k32.render.catalog import k3s, kube32
from k32.render.catalog.load import load_catalog, load_text
from k32.render.errors import RenderError
from k32.render.manifest_set import ManifestSet, Resource

MINIMAL = "name: web\nsource: {image: nginx}\n"


def test_selftest_passes():
    r = k32("catalog", "render", "--selftest")
    assert r.exit_code == 0, r.output
    assert r.output.count("ok") == 4


def test_selftest_fails_when_the_gpu_mapping_changes(monkeypatch):
    monkeypatch.setitem(
        k3s.GPU_RESOURCES, "intel-quicksync", {"limits": {"gpu.intel.com/i915": 1}, "requests": {"cpu": "1"}}
    )
    r = k32("catalog", "render", "--selftest")
    assert r.exit_code == 1 and "FAIL gpu" in r.output


def test_selftest_fails_when_internal_routes_lose_the_annotation(monkeypatch):
    monkeypatch.setattr(k3s, "externaldns_route_annotations", lambda exposure: {})
    r = k32("catalog", "render", "--selftest")
    assert r.exit_code == 1 and "FAIL exposure" in r.output


@pytest.mark.slow
def test_check_passes_on_fresh_render_and_fails_with_a_diff(tmp_path):
    apps = tmp_path / "apps"
    assert k32("catalog", "render", CATALOG_K3S, "-o", apps).exit_code == 0
    ok = k32("catalog", "check", CATALOG_K3S, "-o", apps)
    assert ok.exit_code == 0, ok.output
    pv = apps / "plex" / "05-persistentvolumeclaim-config.yaml"
    pv.write_text(pv.read_text().replace("20Gi", "21Gi"))
    bad = k32("catalog", "check", CATALOG_K3S, "-o", apps)
    assert bad.exit_code == 1
    assert "-      storage: 21Gi\n" in bad.output and "+      storage: 20Gi\n" in bad.output
    assert "not_reproducible" in bad.output


def _route_file(apps: Path, service: str) -> Path:
    return next(apps.glob(f"{service}/*-httproute-*.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "service,edit",
    [
        ("sonarr", lambda o: o["metadata"].pop("annotations")),  # internal, published
        (
            "plex",
            lambda o: o["metadata"].__setitem__("annotations", {"external-dns.alpha.kubernetes.io/controller": "none"}),
        ),  # public, hidden
    ],
)
def test_check_reproves_internal_dns_in_both_directions(tmp_path, service, edit):
    apps = tmp_path / "apps"
    k32("catalog", "render", CATALOG_K3S, "-o", apps)
    f = _route_file(apps, service)
    obj = yaml.safe_load(f.read_text())
    edit(obj)
    f.write_text(yaml.safe_dump(obj, sort_keys=False))
    r = k32("catalog", "check", CATALOG_K3S, "-o", apps)
    assert r.exit_code == 1
    assert f"dns: {f.relative_to(apps).as_posix()}" in r.output


def test_exposure_omitted_is_internal():
    d = load_text("name: a\nsource: {image: x}\ningressRoutes: [{host: a.home.keithjackson.dev, port: 80}]\n", "a.yaml")
    route = next(o for o in k3s.render_service(d) if o["kind"] == "HTTPRoute")
    assert route["metadata"]["annotations"] == {"external-dns.alpha.kubernetes.io/controller": "none"}


def test_absent_fields_render_from_their_defaults():
    objs = k3s.render_service(load_text(MINIMAL, "web.yaml"))
    kinds = [o["kind"] for o in objs]
    # default-deny + DNS (dependencies []), egress internet, metrics true -> the up SLI
    assert kinds == [
        "Namespace",
        "NetworkPolicy",
        "NetworkPolicy",
        "CiliumNetworkPolicy",
        "Deployment",
        "PrometheusRule",
    ]
    dep = objs[4]
    assert dep["metadata"]["annotations"] == {
        "platform.home.keithjackson.dev/update-channel": "stable",
        "platform.home.keithjackson.dev/auto-rollback": "true",
    }
    assert "strategy" not in dep["spec"]  # no storage -> no Recreate
    assert "resources" not in dep["spec"]["template"]["spec"]["containers"][0]


def test_forward_auth_sidecar_carries_one_api_route_per_entry():
    d = load_text(
        MINIMAL + "ingressRoutes: [{host: web.home.keithjackson.dev, port: 80}]\nauth: {apiRoutes: [/api, /hooks]}\n",
        "web.yaml",
    )
    pod = next(o for o in k3s.render_service(d) if o["kind"] == "Deployment")["spec"]["template"]["spec"]
    sidecar = pod["containers"][1]
    assert [a for a in sidecar["args"] if a.startswith("--api-route")] == ["--api-route=/api", "--api-route=/hooks"]
    no_routes = load_text(MINIMAL + "ingressRoutes: [{host: web.home.keithjackson.dev, port: 80}]\n", "w.yaml")
    pod = next(o for o in k3s.render_service(no_routes) if o["kind"] == "Deployment")["spec"]["template"]["spec"]
    assert not [a for a in pod["containers"][1]["args"] if a.startswith("--api-route")]


@pytest.mark.parametrize(
    "text,needle",
    [
        ("name: web\nsource: {image: nginx\n", "malformed_yaml: web.yaml:"),
        (
            "name: web\nsource: {image: nginx}\nreplicas: 2\n",
            "web.yaml: (document): unknown field ('replicas' was unexpected) [rule: additionalProperties]",
        ),
        (
            "name: web\nsource: {image: nginx}\navailability: {replicas: two}\n",
            "web.yaml: availability.replicas: 'two' is not of type 'integer' [rule: type]",
        ),
        (
            "name: web\nsource: {image: nginx, vmTemplate: 'https://x/y.img'}\n",
            "web.yaml: source: exactly one of source.image, source.vmTemplate is required [rule: oneOf]",
        ),
        ("name: web\nsource: {}\n", "web.yaml: source: exactly one of"),
        (
            "name: web\nkind: vm\nsource: {image: nginx}\n",
            "web.yaml: source: 'vmTemplate' is a required property [rule: required]",
        ),
        (
            "name: web\nsource: {image: nginx}\nstorage: [{name: m, size: 1Ti, class: bulk}]\n",
            "web.yaml: storage[0]: 'export' is a required property [rule: required]",
        ),
        (
            "name: web\nsource: {image: nginx}\nexposure: world\n",
            "web.yaml: exposure: 'world' is not one of ['internal', 'public'] [rule: enum]",
        ),
        ("name: web\nsource: {image: nginx}\nname: other\n", "duplicate key 'name'"),
        (
            "name: web\nsource: {image: nginx}\ningressRoutes: [{host: a.b.home.keithjackson.dev, port: 80}]\n",
            "web.yaml: ingressRoutes[0].host:",
        ),
        (
            "name: web\nsource: {image: nginx}\nstorage: [{name: c, size: 1Gi, class: longhorn}, {name: c, size: 1Gi, class: longhorn}]\n",
            "web.yaml: storage[1].name: duplicate name 'c'",
        ),
        ("- just a list\n", "web.yaml: (document): must be a mapping"),
    ],
)
def test_bad_input_names_file_field_and_rule(text, needle):
    with pytest.raises(RenderError) as exc:
        load_text(text, "web.yaml")
    assert needle in str(exc.value)


def _catalog(tmp_path, files: dict) -> Path:
    d = tmp_path / "catalog"
    d.mkdir()
    for name, text in files.items():
        (d / name).write_text(text)
    return d


def test_duplicate_names_across_files(tmp_path):
    cat = _catalog(tmp_path, {"a.yaml": MINIMAL, "b.yaml": MINIMAL})
    with pytest.raises(RenderError, match=r"b.yaml: name: 'web' is already defined by .*a.yaml"):
        load_catalog(cat)


def test_duplicate_host_across_files(tmp_path):
    route = "ingressRoutes: [{host: x.home.keithjackson.dev, port: 80}]\n"
    cat = _catalog(tmp_path, {"a.yaml": MINIMAL + route, "b.yaml": MINIMAL.replace("web", "web2") + route})
    with pytest.raises(
        RenderError, match=r"b.yaml: ingressRoutes\[0\].host: 'x.home.keithjackson.dev' is already routed"
    ):
        load_catalog(cat)


def test_two_resources_rendering_the_same_object_is_refused():
    a = Resource("a/one.yaml", b"apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: n}\n")
    b = Resource("b/two.yaml", b"apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: n}\n")
    with pytest.raises(RenderError, match=r"duplicate_object: a/one.yaml and b/two.yaml both render v1 Service n/s"):
        ManifestSet([a, b])


@pytest.mark.slow
def test_nothing_written_on_error(tmp_path):
    out = tmp_path / "apps"
    assert k32("catalog", "render", CATALOG_K3S, "-o", out).exit_code == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    bad = _catalog(tmp_path, {"a.yaml": MINIMAL, "z.yaml": "name: z\nsource: {image: x}\nbogus: 1\n"})
    r = k32("catalog", "render", bad, "-o", out)
    assert r.exit_code == 1 and "z.yaml: (document): unknown field" in r.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["apps", "catalog"]  # no temp leftovers
    fresh = tmp_path / "fresh"
    assert k32("catalog", "render", bad, "-o", fresh).exit_code == 1
    assert not fresh.exists()


def test_render_refuses_to_replace_a_non_bundle_directory(tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    r = k32("catalog", "render", CATALOG_K3S, "-o", out)
    assert r.exit_code == 1 and "refusing to replace" in r.output
    assert (out / "notes.txt").read_text() == "keep me"


def test_kube32_egress_and_dependency_policies():
    defs = {d.name: d for d in load_catalog(CATALOG_KUBE32)}
    objs = kube32.render_service(defs["probe"])
    pols = {o["metadata"]["name"]: o["spec"] for o in objs if o["kind"] == "NetworkPolicy"}
    assert pols["default-deny"] == {"podSelector": {}, "policyTypes": ["Egress"], "egress": []}
    assert pols["egress-internet"]["egress"] == [
        {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["192.168.4.0/24"]}}]}
    ]
    assert pols["egress-echo-7000"]["egress"][0]["ports"] == [{"protocol": "TCP", "port": 7000}]
    echo = kube32.render_service(defs["echo"])
    ing = next(o for o in echo if o["kind"] == "Ingress")
    assert ing["spec"]["ingressClassName"] == "kube32"
    pod = next(o for o in echo if o["kind"] == "Pod")
    assert pod["spec"]["containers"][0]["image"] == "wasm://embedded/echo"
    counter = kube32.render_service(defs["counter"])
    # Two replicas: one Deployment the control plane keeps at two pods, no bare Pods.
    assert not [o for o in counter if o["kind"] == "Pod"]
    [dep] = [o for o in counter if o["kind"] == "Deployment"]
    assert dep["apiVersion"] == "apps/v1" and dep["spec"]["replicas"] == 2
    assert dep["spec"]["selector"]["matchLabels"] == dep["spec"]["template"]["metadata"]["labels"]
    assert dep["spec"]["template"]["spec"]["containers"][0]["image"] == "wasm://sd/counter"


def test_kube32_names_the_field_it_cannot_honour(tmp_path):
    cat = _catalog(
        tmp_path, {"w.yaml": "name: w\nsource: {image: wasm://embedded/w}\nhardware: {gpu: intel-quicksync}\n"}
    )
    r = k32("catalog", "render", cat, "-o", tmp_path / "out", "--target", "kube32")
    assert r.exit_code == 1
    assert "unsupported_on_kube32:" in r.output and "w.yaml: hardware.gpu: Kube32 nodes have no GPU" in r.output


def test_two_definitions_rendering_the_same_object_are_refused(tmp_path):
    """`a-b` + storage `c` and `a` + storage `b-c` both want the cluster-scoped PV `a-b-c`."""
    bulk = "storage: [{name: %s, size: 1Ti, class: bulk, export: /tank/x}]\n"
    cat = _catalog(
        tmp_path,
        {
            "ab.yaml": "name: a-b\nsource: {image: x}\n" + bulk % "c",
            "a.yaml": "name: a\nsource: {image: x}\n" + bulk % "b-c",
        },
    )
    r = k32("catalog", "render", cat, "-o", tmp_path / "out")
    assert r.exit_code == 1
    assert "duplicate_object:" in r.output and "both render v1 PersistentVolume a-b-c" in r.output
    assert not (tmp_path / "out").exists()


def test_the_shipped_schema_is_a_valid_draft_2020_12_schema():
    import jsonschema

    from k32.render.catalog.load import schema

    jsonschema.Draft202012Validator.check_schema(schema())


def test_apps_dir_defaults_to_apps_beside_the_catalog(tmp_path):
    cat = _catalog(tmp_path, {"web.yaml": MINIMAL})
    assert k32("catalog", "render", cat).exit_code == 0
    assert (tmp_path / "apps" / "bundle.json").is_file()
    assert k32("catalog", "check", cat).exit_code == 0
