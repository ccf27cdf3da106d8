"""`k32 flash --board <b>`."""

from pathlib import Path

import click

from k32.boards import BoardError, load_board
from k32.deprecated import pick, renamed_option


@click.command()
@click.option("--board", required=True, help="board profile from boards/ (s3, esp32, c3)")
@click.option("--port", help="serial port or pyserial URL [auto-detect by USB vendor]")
@click.option("--baud", type=click.IntRange(9600, 5_000_000), default=460800, show_default=True)
@click.option("--flash-size", help="flash size when the board comes in several (e.g. 16MB)")
@click.option("--no-build", is_flag=True, help="do not run PlatformIO (use --app or its last output)")
@click.option("--app", type=click.Path(dir_okay=False, path_type=Path), help="prebuilt app image")
@click.option(
    "--bootloader",
    type=click.Path(dir_okay=False, path_type=Path),
    help="bootloader image [bootloader.bin next to the app]",
)
@click.option(
    "--data-bundle",
    "bundle_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="use this data bundle (from `k32 bundle`) instead of building build/bundle/<board>",
)
@renamed_option("--bundle", "--data-bundle", type=click.Path(file_okay=False, path_type=Path))
@click.option("--erase", is_flag=True, help="erase the whole flash first (loses NVS: Wi-Fi, token)")
@click.option("--no-stub", is_flag=True, help="talk to the ROM bootloader directly")
@click.option("--dry-run", is_flag=True, help="print the plan (chip, offsets, files, sha256) and stop")
def flash(board, port, baud, flash_size, no_build, app, bootloader, bundle_dir, erase, no_stub, dry_run, **old):
    """Build and write bootloader, partition table, app and data partition to a board."""
    bundle_dir = pick(bundle_dir, old, "--bundle", "--data-bundle")
    from k32 import data_bundle

    from . import FlashError, describe_plan, make_plan, write
    from .pio import BuildError, build, outputs
    from .ports import PortError, auto_detect

    try:
        for opt, path in (("--app", app), ("--bootloader", bootloader)):
            if path is not None and not path.is_file():
                raise FlashError(f"{opt} {path}: no such file")
        prof = load_board(board, flash_size)
        if not prof.flashable:
            raise FlashError(f"board {board!r} is the simulator; there is nothing to flash")
        if bundle_dir is None:
            bundle_dir = data_bundle.default_out(prof.name)
            data_bundle.build(prof.name, bundle_dir, flash_size)
        if app is None:
            if no_build or dry_run:
                app, default_boot = outputs(prof.name)
            else:
                app, default_boot = build(prof.name, flash_size)
        else:
            default_boot = app.with_name("bootloader.bin")
        bootloader = bootloader or default_boot
        regions = make_plan(prof, bundle_dir, app, bootloader, require_binaries=not dry_run)
        if dry_run:
            click.echo(describe_plan(prof, regions, port or "(auto-detect)", baud, not no_stub, erase))
            return
        port = port or auto_detect()
        click.echo(describe_plan(prof, regions, port, baud, not no_stub, erase))
        write(prof, regions, port, baud, stub=not no_stub, erase=erase)
    except (BoardError, data_bundle.BundleError, FlashError, BuildError, PortError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"flashed {prof.name} on {port}")
