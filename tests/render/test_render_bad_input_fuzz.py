"""Seeded mutations of real inputs: every outcome is a render or a RenderError, never a crash."""

from __future__ import annotations

import random

import pytest
from render_helpers import CATALOG_K3S, FIXTURE_TEMPLATE, k32, k32_subprocess

from k32.render import manifest_set as bundle
from k32.render.catalog import k3s, kube32
from k32.render.catalog.load import load_text
from k32.render.errors import RenderError
from k32.render.release.gotemplate import Template as GoTemplate

JUNK = [
    "",
    ":",
    "- ",
    "{",
    "}",
    "[",
    "]",
    "!!python/object:os.system ''",
    "&a",
    "*a",
    "\t",
    "null",
    "-1",
    "99999999999999999999",
    "true",
    "'",
    '"',
    "\x00",
    "é",
    "{{",
    "}}",
    "|",
    ">",
]


def _mutations(text: str, rng: random.Random, n: int):
    for _ in range(n):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(chars) + 1)
            op = rng.random()
            if op < 0.4 and chars:
                del chars[min(pos, len(chars) - 1)]
            elif op < 0.8:
                chars.insert(pos, rng.choice(JUNK))
            else:
                chars[pos:pos] = list(text[rng.randrange(len(text)) :][:8])
        yield "".join(chars)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["plex", "pihole", "nextcloud", "homeassistant"])
def test_mutated_service_definitions_never_crash(name):
    text = (CATALOG_K3S / f"{name}.yaml").read_text()
    rng = random.Random(name)
    outcomes = {"ok": 0, "error": 0}
    for mutated in _mutations(text, rng, 150):
        try:
            d = load_text(mutated, f"{name}.yaml")
            k3s.render_service(d)
            try:
                kube32.render_service(d)
            except RenderError:
                pass
            outcomes["ok"] += 1
        except RenderError as exc:
            assert "\n" not in str(exc) and f"{name}.yaml" in str(exc)
            outcomes["error"] += 1
    assert outcomes["error"] > 0


def test_mutated_templates_never_crash():
    text = (FIXTURE_TEMPLATE / "rollout.yaml.tmpl").read_text()
    rng = random.Random(7)
    for mutated in _mutations(text, rng, 300):
        try:
            GoTemplate(mutated, "rollout.yaml.tmpl")
        except RenderError as exc:
            assert exc.code in {"template_syntax", "template_function_forbidden"}


@pytest.mark.parametrize(
    "manifest",
    [
        "",
        "{",
        "[]",
        '{"format": "k32-bundle/v1"}',
        '{"format": "k32-bundle/v1", "resources": [{"path": "../x.yaml"}]}',
        '{"format": "k32-bundle/v1", "resources": [{"path": "a.yaml"}]}',
        '{"format": "other", "resources": []}',
    ],
)
def test_malformed_bundles_are_refused(tmp_path, manifest):
    (tmp_path / "bundle.json").write_text(manifest)
    with pytest.raises(RenderError) as exc:
        bundle.load(tmp_path)
    assert exc.value.code in {"not_a_bundle", "invalid_path"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        "{",
        "- a\n- b\n",
        "contexts: 3\n",
        "contexts: [3]\n",
        "current-context: [x]\n",
        "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
        "clusters: [{name: k, cluster: {server: 42}}]\n",
        "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
        "clusters: [{name: k, cluster: {server: 'ftp://x'}}]\n",
    ],
)
def test_malformed_kubeconfig_is_named(tmp_path, text):
    cfg = tmp_path / "kc"
    cfg.write_text(text)
    out = tmp_path / "b"
    k32("catalog", "render", CATALOG_K3S, "-o", out)
    r = k32("apply", "--manifests", out, "--kubeconfig", cfg, "--check")
    assert r.exit_code == 1 and r.output.startswith("Error: kubeconfig: "), r.output
    assert len(r.output.strip().splitlines()) == 1


def test_apply_old_bundle_flag_and_missing_manifests(tmp_path):
    """--bundle was renamed --manifests: the old name still reaches the same checks (here: a
    directory that is no manifest set) and warns; giving neither is a usage error."""
    r = k32_subprocess("apply", "--bundle", tmp_path, "--check")
    assert r.returncode == 1, r.stderr
    assert "--bundle is deprecated; use --manifests" in r.stderr
    assert "not_a_bundle" in r.stderr
    r = k32_subprocess("apply", "--check")
    assert r.returncode == 2 and "Missing option '--manifests'" in r.stderr
