"""`k32 release render|inspect`: a Release Template -> one content-hashed manifest set."""

from __future__ import annotations

import json

import click

from .. import manifest_set
from ..clihelp import one_line_errors
from . import inspect as inspect_mod
from . import render as render_mod
from .template import load_dir


@click.group()
def release():
    """Release Template -> content-hashed manifest set (render-and-hash)."""


@release.command()
@click.option("--template", "template_dir", required=True, type=click.Path(file_okay=False))
@click.option("--image", required=True, help="REF@sha256:<64 hex> (the verified digest).")
@click.option("--target", required=True, help="APP/ENV/CLUSTER/NAMESPACE")
@click.option("--source", required=True, help="OWNER/REPO@<commit sha>[#BRANCH]")
@click.option("--lane-weights", required=True, help="e.g. 10,50,100 (steps = all but the last)")
@click.option("--probe-image", default="", help="Operator-owned digest-pinned probe image.")
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False),
    help="Manifest-set directory; without it, print bundle.json only.",
)
@one_line_errors
def render(template_dir, image, target, source, lane_weights, probe_image, output):
    """Render the template once; write per-resource bytes + bundle.json."""
    b = render_mod.render(
        load_dir(template_dir),
        render_mod.Target.parse(target),
        render_mod.Evidence.parse(image, source),
        render_mod.parse_weights(lane_weights),
        probe_image,
    )
    if output:
        manifest_set.write(b, output)
        click.echo(f"{len(b.resources)} resources -> {output} ({b.digest})")
    else:
        click.echo(b.manifest_bytes().decode(), nl=False)


@release.command()
@click.option("--template", "template_dir", required=True, type=click.Path(file_okay=False))
@click.option("--application", required=True)
@click.option("--namespace", required=True)
@one_line_errors
def inspect(template_dir, application, namespace):
    """Print the Rollout/Service/port shape the template compiles in (inert values)."""
    c = inspect_mod.inspect_target_contract(load_dir(template_dir), application, namespace)
    click.echo(json.dumps(c, indent=2))
