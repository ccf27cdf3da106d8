"""`k32 apply --bundle DIR [--context C] [--check]`."""
from __future__ import annotations

import sys

import click

from k32.kubeconfig import KubeconfigError, connect

from .. import bundle as bundle_mod
from ..clihelp import one_line_errors
from ..errors import RenderError
from .apply import apply_bundle, drift
from .client import Client


@click.command()
@click.option("--bundle", "bundle_dir", required=True, type=click.Path(file_okay=False),
              help="A bundle directory (bundle.json + resources) from `k32 catalog render` "
                   "or `k32 release render`.")
@click.option("--context", default=None, help="kubeconfig context (default: current-context).")
@click.option("--kubeconfig", default=None, type=click.Path(dir_okay=False),
              help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config).")
@click.option("--check", is_flag=True, help="Apply nothing; report drift (exit 1 when any).")
@one_line_errors
def apply(bundle_dir, context, kubeconfig, check):
    """Apply exactly the hashed objects of a bundle (server-side apply), or --check drift."""
    b = bundle_mod.load(bundle_dir)              # re-verifies every hash first
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
    apply_bundle(client, b, click.echo)
    click.echo(f"applied {len(b.resources)} objects ({b.digest})")
