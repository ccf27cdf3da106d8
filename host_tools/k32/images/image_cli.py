"""`k32 image build SRC.c|DIR` and `k32 image push FILE --context C`: pod images of one's own."""

from pathlib import Path

import click

from k32 import REPO_ROOT


@click.group()
def image():
    """Build your own pod images and install them on a node's wasm://sd/ store."""


@image.command("build")
@click.argument("src", type=click.Path(exists=True, path_type=Path))
@click.option("--name", help="image name [the file's or folder's name]")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=REPO_ROOT / "build" / "images-user",
    show_default=True,
)
@click.option(
    "--sd",
    "card",
    type=click.Path(file_okay=False, path_type=Path),
    help="also install it into this card directory (for k32 sim up --sd / k32-node --sd)",
)
def build_cmd(src, name, out, card):
    """Compile SRC.c (or every .c in DIR) to OUT/<name>.wasm with <name>.wasm.sha256 beside it."""
    from .build import ImageBuildError
    from .user import build_source, install_on_card

    try:
        img = build_source(src, out, name)
    except ImageBuildError as e:
        raise click.ClickException(str(e))
    click.echo(f"{img.name}: {img.size} bytes  sha256:{img.sha256}  {img.wasm}")
    if card:
        click.echo(f"installed {install_on_card(img, card)}")
    click.echo(f"image: kube32.io/sd/{img.name}@sha256:{img.sha256}")


@image.command("push")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--context", help="kubeconfig context of the node [current context]")
@click.option(
    "--kubeconfig",
    "path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="kubeconfig file [$KUBECONFIG or ~/.kube/config]",
)
@click.option("--name", help="image name [the file's name without .wasm]")
def push_cmd(file, context, path, name):
    """Install FILE (a .wasm) into the node's wasm://sd/ store through its API (token and pin
    from the kubeconfig context); prints the image reference to run it with."""
    from .build import ImageBuildError
    from .push import PushError, push

    try:
        r = push(file, context, path, name)
    except (PushError, ImageBuildError) as e:
        raise click.ClickException(str(e))
    click.echo(f"installed {r.get('name')} ({r.get('size')} bytes) on the node's card")
    click.echo(f"image: {r.get('image')}")
