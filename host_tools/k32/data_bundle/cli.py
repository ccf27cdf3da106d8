"""`k32 bundle --board <b>`."""

from pathlib import Path

import click

from k32.boards import BoardError


@click.command()
@click.option("--board", required=True, help="board profile from boards/ (s3, esp32, sim)")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="output directory [build/bundle/<board>]")
@click.option("--flash-size", help="flash size when the board comes in several (e.g. 16MB)")
@click.option("--json", "as_json", is_flag=True, help="print the manifest as JSON")
def bundle(board, out, flash_size, as_json):
    """Build every Python-generated artifact for a board, with a manifest and digest."""
    from . import BundleError, build, canonical, default_out

    try:
        manifest = build(board, out, flash_size)
    except (BoardError, BundleError) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(canonical(manifest).decode(), nl=False)
        return
    for a in manifest["artifacts"]:
        click.echo(f"{a['sha256'][:16]}  {a['size']:>9}  {a['name']}")
    click.echo(f"bundle {manifest['board']} -> {out or default_out(board)}")
    click.echo(f"digest {manifest['digest']}")
