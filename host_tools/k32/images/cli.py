"""`k32 build images`: compile the pod images."""

from pathlib import Path

import click

from .build import DEFAULT_OUT, ImageBuildError, build_all


@click.command("images")
@click.argument("names", nargs=-1)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT, show_default=True)
def images(names, out):
    """Compile images/<name>/*.c to OUT/<name>.wasm with a .sha256 beside each (all images when no NAMES)."""
    try:
        built = build_all(out, only=list(names) or None)
    except ImageBuildError as e:
        raise click.ClickException(str(e))
    for i in built:
        click.echo(f"{i.name:<12} {i.size:>7} bytes  sha256:{i.sha256}  {i.wasm}")
