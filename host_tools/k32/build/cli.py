"""`k32 build …`: build artifacts from source."""
from pathlib import Path

import click

from .firmware import (DEFAULT_BUILD_DIR, FirmwareBuildError, build_firmware, is_stale,
                       node_binary)


@click.group()
def build():
    """Build firmware and other artifacts."""


@build.command()
@click.option("--target", "target", type=click.Choice(["host", "mcu"]), default="host", show_default=True,
              help="host: the simulator k32-node; mcu: the Cortex-M4/newlib build in build/mcu "
                   "(its tests: ctest --test-dir build/mcu).")
@click.option("--build-dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help=f"CMake build directory [{DEFAULT_BUILD_DIR} or build/mcu].")
@click.option("--force", is_flag=True, help="Rebuild even when the binary is up to date.")
@click.option("--m32", is_flag=True, help="Configure a 32-bit build (new build dirs only).")
@click.option("--board", help="A board profile: with --list or --compile-only, the board firmware.")
@click.option("--list", "list_only", is_flag=True,
              help="Generate the board firmware's generated sources and list every file it compiles.")
@click.option("--compile-only", is_flag=True,
              help="Compile the board firmware against ESP-IDF with Debian's RISC-V compiler (c3).")
@click.option("--idf", type=click.Path(file_okay=False, path_type=Path),
              help="ESP-IDF checkout for --compile-only [$IDF_PATH].")
@click.option("--littlefs", type=click.Path(file_okay=False, path_type=Path),
              help="esp_littlefs component checkout for --compile-only [beside the ESP-IDF checkout].")
def firmware(target, build_dir: Path, force: bool, m32: bool, board, list_only, compile_only, idf, littlefs):
    """Build the host simulator binary k32-node (skipped when up to date); or, with --board,
    list (--list) or compile-check (--compile-only) the board firmware; or, with
    --target mcu, the bare-metal Cortex-M4 build."""
    if target == "mcu":
        from .mcu import MCU_BOARD, MCU_BUILD_DIR, build_mcu
        try:
            click.echo(str(build_mcu(build_dir or MCU_BUILD_DIR, board or MCU_BOARD)))
        except FirmwareBuildError as e:
            raise click.ClickException(str(e))
        return
    build_dir = build_dir or DEFAULT_BUILD_DIR
    if list_only or compile_only:
        if not board:
            raise click.UsageError("--list and --compile-only need --board")
        from k32 import REPO_ROOT
        try:
            if list_only:
                from .board_sources import list_sources
                for path in list_sources(board, REPO_ROOT / "build" / f"list-{board}"):
                    click.echo(path)
            if compile_only:
                from .idf_check import CheckError, compile_check
                try:
                    done = compile_check(board, idf, REPO_ROOT / "build" / f"idf-check-{board}", littlefs,
                                         echo=click.echo)
                except CheckError as e:
                    raise click.ClickException(str(e))
                click.echo(f"ok: {len(done)} sources compile for board {board}")
        except FirmwareBuildError as e:
            raise click.ClickException(str(e))
        return
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
