"""`k32 apply --manifests DIR [--context C] [--check]`."""

from __future__ import annotations

import sys

import click

from k32.deprecated import pick, renamed_option
from k32.kubeconfig import KubeconfigError, connect

from .. import manifest_set
from ..clihelp import one_line_errors
from ..errors import RenderError
from .apply import apply_manifests, drift
from .client import Client


@click.command()
@click.option(
    "--manifests",
    "manifests_dir",
    type=click.Path(file_okay=False),
    help="A rendered manifest set (bundle.json + one file per object) from "
    "`k32 catalog render` or `k32 release render`.  [required]",
)
@renamed_option("--bundle", "--manifests", type=click.Path(file_okay=False))
@click.option("--context", default=None, help="kubeconfig context (default: current-context).")
@click.option(
    "--kubeconfig",
    default=None,
    type=click.Path(dir_okay=False),
    help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config).",
)
@click.option("--check", is_flag=True, help="Apply nothing; report drift (exit 1 when any).")
@one_line_errors
def apply(manifests_dir, context, kubeconfig, check, **old):
    """Apply exactly the hashed objects of a rendered manifest set (server-side apply), or
    --check drift."""
    manifests_dir = pick(manifests_dir, old, "--bundle", "--manifests", required=True)
    b = manifest_set.load(manifests_dir)  # re-verifies every hash first
    try:
        client = Client(connect(context, kubeconfig))
    except KubeconfigError as e:
        raise RenderError("kubeconfig", str(e)) from None
    if check:
        found = drift(client, b)
        for d in found:
            click.echo(f"drift: {d}")
        if found:
            sys.exit(1)
        click.echo(f"ok: no drift ({len(b.resources)} objects, {b.digest})")
        return
    apply_manifests(client, b, click.echo)
    click.echo(f"applied {len(b.resources)} objects ({b.digest})")
