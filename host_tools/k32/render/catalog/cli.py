"""`k32 catalog validate|render|check`: ServiceDefinitions -> k3s or Kube32 resources."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import manifest_set
from ..clihelp import one_line_errors
from ..errors import RenderError
from . import check as check_mod
from . import k3s, kube32, selftest
from .load import load_catalog

TARGETS = {"k3s": k3s.render_catalog, "kube32": kube32.render_catalog}


def default_apps_dir(catalog_dir, target: str) -> Path:
    """catalog/ -> apps/ beside it (a GitOps repo's layout); kube32 output gets its own dir."""
    name = "apps" if target == "k3s" else f"apps-{target}"
    return Path(catalog_dir).resolve().parent / name


def render_manifests(catalog_dir, target: str):
    defs = load_catalog(catalog_dir)
    # No paths in `source`: the manifest set must not depend on where the catalog lives.
    return defs, TARGETS[target](defs, {"renderer": "catalog", "target": target})


@click.group()
def catalog():
    """ServiceDefinition catalog -> rendered resources (k3s or kube32)."""


@catalog.command()
@click.argument("catalog_dir", type=click.Path(file_okay=False))
@one_line_errors
def validate(catalog_dir):
    """Validate every ServiceDefinition against the shipped schema and the catalog rules."""
    defs = load_catalog(catalog_dir)
    click.echo(f"ok: {len(defs)} ServiceDefinitions valid")


@catalog.command()
@click.argument("catalog_dir", required=False, type=click.Path(file_okay=False))
@click.option(
    "-o",
    "--output",
    "apps_dir",
    type=click.Path(file_okay=False),
    help="Output directory (a manifest set: per-resource files + bundle.json). "
    "Default: apps/ beside CATALOG_DIR (apps-kube32/ for --target kube32).",
)
@click.option("--target", type=click.Choice(sorted(TARGETS)), default="k3s", show_default=True)
@click.option("--selftest", is_flag=True, help="Assert the mapping's load-bearing cases exactly.")
@one_line_errors
def render(catalog_dir, apps_dir, target, **kw):
    """Render CATALOG_DIR into APPS_DIR (nothing is written on error)."""
    if kw.get("selftest"):
        failed = 0
        for name, err in selftest.run():
            click.echo(f"{'ok  ' if err is None else 'FAIL'} {name}" + ("" if err is None else f": {err}"))
            failed += err is not None
        sys.exit(1 if failed else 0)
    if not catalog_dir:
        raise click.UsageError("CATALOG_DIR is required (or --selftest)")
    apps_dir = apps_dir or default_apps_dir(catalog_dir, target)
    _, b = render_manifests(catalog_dir, target)
    manifest_set.write(b, apps_dir)
    click.echo(f"{len(b.resources)} resources -> {apps_dir} ({b.digest})")


@catalog.command()
@click.argument("catalog_dir", type=click.Path(file_okay=False))
@click.option(
    "-o",
    "--output",
    "apps_dir",
    type=click.Path(file_okay=False),
    help="Default: apps/ beside CATALOG_DIR (apps-kube32/ for --target kube32).",
)
@click.option("--target", type=click.Choice(sorted(TARGETS)), default="k3s", show_default=True)
@one_line_errors
def check(catalog_dir, apps_dir, target):
    """Fail with a diff unless APPS_DIR reproduces from CATALOG_DIR; re-prove that internal
    services publish no public DNS (and public ones do)."""
    apps_dir = apps_dir or default_apps_dir(catalog_dir, target)
    defs, b = render_manifests(catalog_dir, target)
    lines = manifest_set.diff(b.files(), apps_dir)
    problems = check_mod.internal_dns_violations(defs, apps_dir) if target == "k3s" else []
    if lines:
        sys.stdout.writelines(lines)
    for p in problems:
        click.echo(f"dns: {p}")
    if lines or problems:
        raise RenderError(
            "not_reproducible" if lines else "internal_dns",
            f"{apps_dir} does not reproduce from {catalog_dir}"
            if lines
            else f"{len(problems)} exposure/DNS violation(s)",
        )
    click.echo(f"ok: {apps_dir} reproduces from {catalog_dir} ({b.digest})")
