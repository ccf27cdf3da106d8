"""End to end: `k32 catalog render --target kube32` applied to a running simulator with
`k32 apply --manifests` is accepted, and `--check` then reports no drift."""

from __future__ import annotations

import pytest
import yaml
from render_helpers import CATALOG_KUBE32, k32


def _bundle_and_args(sim_cluster, tmp_path):
    out = tmp_path / "bundle"
    r = k32("catalog", "render", CATALOG_KUBE32, "-o", out, "--target", "kube32")
    assert r.exit_code == 0, r.output
    return ("apply", "--manifests", out, "--kubeconfig", sim_cluster.kubeconfig, "--context", sim_cluster.context)


def test_kube32_catalog_applies_to_the_simulator_without_drift(sim_cluster, tmp_path):
    base = _bundle_and_args(sim_cluster, tmp_path)
    applied = k32(*base)
    assert applied.exit_code == 0, applied.output
    check = k32(*base, "--check")
    assert check.exit_code == 0, check.output
    assert "ok: no drift" in check.output


@pytest.mark.slow
def test_check_reports_drift_on_a_scaled_deployment(sim_cluster, tmp_path):
    """The counter service asks for two replicas: a Deployment. Scaling it by hand is drift
    `--check` names (spec.replicas); applying again restores it."""
    base = _bundle_and_args(sim_cluster, tmp_path)
    assert k32(*base).exit_code == 0
    p = sim_cluster.kubectl("scale", "deployment", "counter", "-n", "counter", "--replicas=3")
    assert p.returncode == 0, p.stderr
    check = k32(*base, "--check")
    assert check.exit_code != 0, check.output
    assert "Deployment" in check.output and "spec.replicas" in check.output, check.output
    assert k32(*base).exit_code == 0
    check = k32(*base, "--check")
    assert check.exit_code == 0 and "ok: no drift" in check.output, check.output
    dep = sim_cluster.kubectl("get", "deployment", "counter", "-n", "counter", "-o", "jsonpath={.spec.replicas}")
    assert dep.stdout == "2", dep.stdout


@pytest.mark.slow
def test_reapply_is_idempotent_on_the_simulator(sim_cluster, tmp_path):
    """Server-side apply of the same bytes twice changes nothing (list-map keys defaulted)."""
    base = _bundle_and_args(sim_cluster, tmp_path)
    assert k32(*base).exit_code == 0
    assert k32(*base).exit_code == 0
    check = k32(*base, "--check")
    assert check.exit_code == 0, check.output


@pytest.mark.slow
def test_apply_uses_the_kubeconfig_token_of_a_protected_simulator(sim_factory, tmp_path):
    cluster = sim_factory(workers=0, token="render-e2e-token")
    cluster.up()
    base = _bundle_and_args(cluster, tmp_path)
    assert k32(*base).exit_code == 0
    assert k32(*base, "--check").exit_code == 0
    # the same bundle with the token removed from the kubeconfig is refused, and says why
    cfg = yaml.safe_load(cluster.kubeconfig.read_text())
    for u in cfg["users"]:
        u["user"].pop("token", None)
    anon = tmp_path / "anon-kubeconfig"
    anon.write_text(yaml.safe_dump(cfg))
    r = k32("apply", "--manifests", base[2], "--kubeconfig", anon, "--context", cluster.context, "--check")
    assert r.exit_code == 1 and "api_auth" in r.output, r.output
