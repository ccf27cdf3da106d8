"""Render-and-hash: every determinism property, each with its own test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from render_helpers import DIGEST, FIXTURE_TEMPLATE, IMAGE, SOURCE, TARGET, k32, k32_subprocess, render_args

from k32.render import manifest_set as bundle
from k32.render.errors import RenderError
from k32.render.manifest_set import Resource
from k32.render.release import render as R
from k32.render.release.inspect import inspect_target_contract
from k32.render.release.template import Template, load_dir


def _render(template_dir=FIXTURE_TEMPLATE, weights="10,50,100", image=IMAGE, source=SOURCE, target=TARGET, probe=""):
    return R.render(
        load_dir(template_dir), R.Target.parse(target), R.Evidence.parse(image, source), R.parse_weights(weights), probe
    )


def _template(tmp_path, files: dict, name="tpl") -> Path:
    d = tmp_path / name
    d.mkdir()
    for rel, text in files.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode() if isinstance(text, str) else text)
    return d


POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Application }}\n  namespace: {{ .Namespace }}\n"
    "spec:\n  containers:\n    - name: app\n      image: {{ .ImageReference }}\n"
)


def test_cli_render_writes_bundle_dir_and_manifest(tmp_path):
    out = tmp_path / "out"
    r = k32(*render_args(out))
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "bundle.json").read_text())
    assert [e["path"] for e in manifest["resources"]] == [
        "analysistemplate.yaml",
        "ingress.yaml",
        "rollout.yaml",
        "service-canary.yaml",
        "service-stable.yaml",
    ]
    e = manifest["resources"][2]
    assert (e["apiVersion"], e["kind"], e["namespace"], e["name"]) == (
        "argoproj.io/v1alpha1",
        "Rollout",
        "demo",
        "demo",
    )
    assert bundle.load(out).digest == manifest["digest"]
    assert manifest["source"]["template"]["name"] == "fixture-release-template"


@pytest.mark.slow
def test_identical_digest_across_processes_directories_and_line_endings(tmp_path):
    crlf = tmp_path / "crlf"
    shutil.copytree(FIXTURE_TEMPLATE, crlf)
    for p in crlf.iterdir():
        p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))
    assert b"\r\n" in (crlf / "rollout.yaml.tmpl").read_bytes()
    digests = set()
    for i, tpl in enumerate((FIXTURE_TEMPLATE, crlf)):
        res = k32_subprocess(*render_args(tmp_path / f"out{i}", template=tpl), cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        digests.add(json.loads((tmp_path / f"out{i}" / "bundle.json").read_text())["digest"])
    digests.add(_render().digest)
    assert len(digests) == 1
    a, b = tmp_path / "out0", tmp_path / "out1"
    assert {p.name: p.read_bytes() for p in a.iterdir()} == {p.name: p.read_bytes() for p in b.iterdir()}


def test_template_digest_covers_every_regular_file(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(FIXTURE_TEMPLATE, copy)
    before = load_dir(copy).identity()["digest"]
    (copy / "README.md").write_text("prose changed\n")
    after = load_dir(copy).identity()["digest"]
    assert before != after
    (copy / "sub").mkdir()
    (copy / "sub" / "notes.txt").write_text("x")
    assert load_dir(copy).identity()["digest"] not in (before, after)


def test_resource_order_is_lexical_template_path_order(tmp_path):
    files = {
        "b.yaml.tmpl": POD.replace("{{ .Application }}", "b"),
        "a/z.yaml.tmpl": POD.replace("{{ .Application }}", "az"),
        "A.yaml.tmpl": POD.replace("{{ .Application }}", "cap"),
    }
    b = _render(_template(tmp_path, files))
    assert [r.path for r in b.resources] == ["A.yaml", "a/z.yaml", "b.yaml"]


def test_steps_are_weights_minus_the_last():
    data = R.template_data(R.Target.parse(TARGET), R.Evidence.parse(IMAGE, SOURCE), (10, 50, 100))
    assert data.Steps == (10, 50)
    assert R.template_data(R.Target.parse(TARGET), R.Evidence.parse(IMAGE, SOURCE), (100,)).Steps == ()
    rollout = next(r for r in _render(weights="5,100").resources if r.identity.kind == "Rollout").data
    assert rollout.count(b"setWeight") == 1 and b"setWeight: 5\n" in rollout


def test_template_data_is_the_contracts_fixed_record():
    fields = list(R.TemplateData.__dataclass_fields__)
    assert fields == [
        "Application",
        "Environment",
        "Cluster",
        "Namespace",
        "ImageReference",
        "ImageRegistry",
        "ImageRepository",
        "ImageDigest",
        "SourceRepository",
        "SourceRevision",
        "SourceBranch",
        "RolloutName",
        "StableServiceName",
        "CanaryServiceName",
        "AnalysisTemplateName",
        "IngressName",
        "ProbeImage",
        "Steps",
    ]
    d = R.template_data(R.Target.parse(TARGET), R.Evidence.parse(IMAGE, SOURCE), (10, 100))
    assert (d.ImageRegistry, d.ImageRepository, d.ImageDigest) == ("ghcr.io", "acme/demo-api", DIGEST)
    assert (d.StableServiceName, d.CanaryServiceName, d.AnalysisTemplateName) == (
        "demo-stable",
        "demo-canary",
        "demo-success-rate",
    )
    with pytest.raises(AttributeError):  # frozen (dataclasses.FrozenInstanceError)
        d.Application = "x"


@pytest.mark.parametrize(
    "action,code",
    [
        ("{{ now }}", "template_function_forbidden"),
        ("{{ env \"HOME\" }}", "template_function_forbidden"),
        ("{{ .Application | printf \"%s\" }}", "template_function_forbidden"),
        ("{{ printf \"%s\" .Application }}", "template_function_forbidden"),
        ("{{ (.Application) }}", "template_function_forbidden"),
        ("{{ template \"x\" }}", "template_function_forbidden"),
        ("{{ \"literal\" }}", "template_syntax"),
        ("{{ if .Steps }}", "template_syntax"),
        ("{{ end }}", "template_syntax"),
    ],
)
def test_functions_and_unsupported_syntax_are_refused_at_load(tmp_path, action, code):
    tpl = _template(tmp_path, {"pod.yaml.tmpl": POD + f"# {action}\n"})
    with pytest.raises(RenderError) as exc:
        load_dir(tpl)
    assert exc.value.code == code
    assert "pod.yaml.tmpl:10" in exc.value.message


def test_unknown_field_is_an_error_not_an_empty_string(tmp_path):
    tpl = _template(tmp_path, {"pod.yaml.tmpl": POD + "# {{ .Timestamp }}\n"})
    with pytest.raises(RenderError, match="template_field_unknown: .*pod.yaml.tmpl:10: .Timestamp"):
        _render(tpl)


def test_go_template_subset_renders_if_range_with_and_trim(tmp_path):
    body = (
        "{{/* comment */}}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Application }}\n"
        "  namespace: {{ $.Namespace }}\ndata:\n"
        "  branch: {{ with .SourceBranch }}{{ . }}{{ else }}none{{ end }}\n"
        "  steps: \"{{ range $i, $w := .Steps }}{{ $i }}={{ $w }};{{ else }}none{{ end }}\"\n"
        "  probe: {{ if .ProbeImage }}set{{ else if .Cluster }}{{ .Cluster }}{{ else }}x{{ end }}\n"
        "  image: {{ .ImageDigest -}}   \n\n  {{- /* gone */ -}}\n"
    )
    b = _render(_template(tmp_path, {"cm.yaml.tmpl": body}))
    assert b.resources[0].data.decode() == (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: demo\ndata:\n"
        "  branch: main\n  steps: \"0=10;1=50;\"\n  probe: k3s-a\n  image: " + DIGEST
    )


@pytest.mark.parametrize(
    "option,value",
    [
        ("--probe-image", "evil\n  hostNetwork: true"),
        ("--probe-image", "x: y"),
        ("--probe-image", "'quoted'"),
        ("--probe-image", "{flow}"),
    ],
)
def test_yaml_breaking_values_are_refused(tmp_path, option, value):
    r = k32(*render_args(tmp_path / "o", option, value, weights="10,100"))
    assert r.exit_code == 1 and "unsafe_value: ProbeImage" in r.output
    assert not (tmp_path / "o").exists()


def test_every_printed_value_is_checked_even_if_data_was_built_elsewhere(tmp_path):
    ev = R.Evidence(IMAGE, "ghcr.io", "acme/x", DIGEST, "acme/demo", "1" * 40, "main: injected")
    with pytest.raises(RenderError, match="unsafe_value: SourceBranch"):
        R.template_data(R.Target.parse(TARGET), ev, (100,))


@pytest.mark.parametrize(
    "bad,code",
    [
        (("--image", "ghcr.io/acme/demo:latest"), "invalid_image"),
        (("--source", "acme/demo@main"), "invalid_source"),
        (("--target", "demo/prod/k3s"), "invalid_target"),
        (("--lane-weights", "50,10"), "invalid_weights"),
        (("--lane-weights", "ten"), "invalid_weights"),
    ],
)
def test_bad_cli_values_are_named(tmp_path, bad, code):
    args = {"--image": IMAGE, "--target": TARGET, "--source": SOURCE, "--lane-weights": "10,100"}
    args[bad[0]] = bad[1]
    flat = [x for kv in args.items() for x in kv]
    r = k32("release", "render", "--template", FIXTURE_TEMPLATE, *flat, "-o", tmp_path / "o")
    assert r.exit_code == 1 and f"{code}: {bad[0]}" in r.output


def test_template_without_the_digest_is_unpinned(tmp_path):
    tpl = _template(tmp_path, {"pod.yaml.tmpl": POD.replace("{{ .ImageReference }}", "nginx:latest")})
    with pytest.raises(RenderError) as exc:
        _render(tpl)
    assert exc.value.code == "unpinned_template"


def test_zero_and_empty_templates_are_rejected(tmp_path):
    assert Template().is_zero()
    with pytest.raises(RenderError) as exc:
        R.render(Template(), R.Target.parse(TARGET), R.Evidence.parse(IMAGE, SOURCE), (100,))
    assert exc.value.code == "zero_template"
    with pytest.raises(RenderError) as exc:
        load_dir(_template(tmp_path, {"README.md": "no templates"}))
    assert exc.value.code == "empty_template"


@pytest.mark.parametrize(
    "body,code",
    [
        (POD + "---\n" + POD.replace("{{ .Application }}", "two"), "resource_count"),
        ("# {{ .Application }}\n", "resource_count"),
        ("apiVersion: v1\nkind: Pod\nmetadata: {}\n# {{ .ImageDigest }}\n", "invalid_resource"),
    ],
)
def test_exactly_one_object_per_resource_template(tmp_path, body, code):
    with pytest.raises(RenderError) as exc:
        _render(_template(tmp_path, {"pod.yaml.tmpl": body}))
    assert exc.value.code == code and "pod.yaml" in exc.value.message


def test_two_templates_rendering_the_same_object(tmp_path):
    with pytest.raises(RenderError, match="duplicate_object: a.yaml and b.yaml both render v1 Pod demo/demo"):
        _render(_template(tmp_path, {"a.yaml.tmpl": POD, "b.yaml.tmpl": POD}))


def test_bytes_are_copies(tmp_path):
    raw = bytearray(b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    r = Resource("a.yaml", raw)
    raw[0:10] = b"XXXXXXXXXX"
    assert r.data.startswith(b"apiVersion") and bundle.sha256_hex(r.data) == r.sha256
    assert isinstance(r.data, bytes)  # immutable: a caller cannot write into it


def test_metadata_file_is_strict(tmp_path):
    with pytest.raises(RenderError, match="template_metadata: .*TEMPLATE:2"):
        load_dir(_template(tmp_path, {"pod.yaml.tmpl": POD, "TEMPLATE": "name: x\nowner: me\n"}))


def test_identity_is_read_back_from_bytes_not_template_names(tmp_path):
    b = _render(_template(tmp_path, {"misleading-name-service.yaml.tmpl": POD}))
    i = b.resources[0].identity
    assert (i.api_version, i.kind, i.namespace, i.name) == ("v1", "Pod", "demo", "demo")


def test_inspect_target_contract():
    c = inspect_target_contract(load_dir(FIXTURE_TEMPLATE), "shop", "shop-ns")
    assert c == {
        "rolloutName": "shop",
        "rolloutSelector": {"app.kubernetes.io/name": "shop"},
        "podLabels": {"app.kubernetes.io/name": "shop"},
        "containerPorts": [{"name": "http", "port": 8080}],
        "stableService": {"name": "shop-stable", "selector": {"app.kubernetes.io/name": "shop"}, "targetPort": "http"},
        "canaryService": {"name": "shop-canary", "selector": {"app.kubernetes.io/name": "shop"}, "targetPort": "http"},
    }
    r = k32("release", "inspect", "--template", FIXTURE_TEMPLATE, "--application", "shop", "--namespace", "shop-ns")
    assert r.exit_code == 0 and json.loads(r.output) == c


def test_inspect_uses_inert_values():
    c = inspect_target_contract(load_dir(FIXTURE_TEMPLATE), "shop", "shop-ns")
    assert "0000000000" not in json.dumps(c)  # nothing of the inert digest leaks into the shape
    with pytest.raises(RenderError) as exc:
        inspect_target_contract(Template(), "shop", "ns")
    assert exc.value.code == "zero_template"


def test_fixture_release_matches_golden():
    from render_helpers import GOLDEN, UPDATE_GOLDEN

    b = _render()
    if UPDATE_GOLDEN:
        bundle.write(b, GOLDEN / "release")
    lines = bundle.diff(b.files(), GOLDEN / "release")
    assert not lines, "".join(lines[:60])
