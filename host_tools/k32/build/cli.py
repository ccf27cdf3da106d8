"""`k32 build …`: build artifacts from source."""
from pathlib import Path

import click

from .firmware import (DEFAULT_BUILD_DIR, FirmwareBuildError, build_firmware, is_stale,
                       node_binary)


@click.group()
def build():
    """Build firmware and other artifacts."""


@build.command()
@click.option("--build-dir", type=click.Path(file_okay=False, path_type=Path),
              default=DEFAULT_BUILD_DIR, show_default=True, help="CMake build directory.")
@click.option("--force", is_flag=True, help="Rebuild even when the binary is up to date.")
@click.option("--m32", is_flag=True, help="Configure a 32-bit build (new build dirs only).")
def firmware(build_dir: Path, force: bool, m32: bool):
    """Build the host simulator binary k32-node (skipped when up to date)."""
    try:
        if force or m32 or is_stale(build_dir):
            path = build_firmware(build_dir, m32=m32)
        else:
            path = node_binary(build_dir)
    except FirmwareBuildError as e:
        raise click.ClickException(str(e))
    click.echo(str(path))


@build.command("test-tools")
def test_tools():
    """Fetch the kubectl binaries tests/api drives (1.37 from the venv, 1.20 from Debian)."""
    from .tools import KUBECTLS, ToolError, kubectl
    for version in KUBECTLS:
        try:
            click.echo(f"kubectl {version}: {kubectl(version)}")
        except ToolError as e:
            raise click.ClickException(f"kubectl {version}: {e}")


from k32.images.cli import images as _images  # noqa: E402  (k32 build images)
build.add_command(_images)
