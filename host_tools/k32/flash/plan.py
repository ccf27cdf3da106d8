"""The flash plan: what goes where (offsets from the bundle's partition table), each image
checked against the chip and the space it must fit."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from k32.boards import Board
from k32.boards.partition_table import SUBTYPES, TYPES, parse_binary
from k32.data_bundle import DATA_IMAGE, PARTITION_TABLE, load_manifest

from .images import ImageError, check_firmware_image


class FlashError(RuntimeError):
    pass


@dataclass(frozen=True)
class Region:
    what: str
    offset: int
    path: Path | None  # None in a dry run when the app is not built yet
    limit: int  # bytes available at offset

    @property
    def present(self) -> bool:
        return self.path is not None and self.path.is_file()

    @property
    def data(self) -> bytes:
        return self.path.read_bytes()

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest() if self.present else "-" * 64

    @property
    def size(self) -> int:
        return self.path.stat().st_size if self.present else 0


def _partition_offset(rows, typ: str, subtype: str | None = None, name: str | None = None):
    for n, t, s, off, size in rows:
        if t == TYPES[typ] and (subtype is None or s == SUBTYPES[typ][subtype]) and (name is None or n == name):
            return off, size
    raise FlashError(f"{PARTITION_TABLE}: no {typ} partition {name or subtype or ''}".rstrip())


def make_plan(
    board: Board, bundle_dir: Path, app: Path | None, bootloader: Path | None, require_binaries: bool = True
) -> list[Region]:
    """The regions to write, checked: images valid for the chip, each fits its place, the
    bundle belongs to this board. Offsets of app and data come from the bundle's table."""
    if not board.flashable:
        raise FlashError(f"board {board.name!r} is the simulator; there is nothing to flash")
    try:
        manifest = load_manifest(bundle_dir)
    except Exception as e:
        raise FlashError(str(e)) from None
    if manifest.get("board") != board.name or manifest.get("flashSize") != board.flash_size:
        raise FlashError(
            f"bundle {bundle_dir} is for {manifest.get('board')}/{manifest.get('flashSize')}, "
            f"not {board.name}/{board.flash_size}; rebuild it with k32 bundle"
        )
    table = bundle_dir / PARTITION_TABLE
    try:
        rows = parse_binary(table.read_bytes())
    except ValueError as e:
        raise FlashError(f"{table}: {e}") from None
    app_off, app_size = _partition_offset(rows, "app")
    data_off, data_size = _partition_offset(rows, "data", name=board.data_partition)
    first_part = min(off for _n, _t, _s, off, _z in rows)
    regions = [
        Region(
            "bootloader", board.bootloader_offset, bootloader, board.partition_table_offset - board.bootloader_offset
        ),
        Region("partition-table", board.partition_table_offset, table, first_part - board.partition_table_offset),
        Region("app", app_off, app, app_size),
        Region("data", data_off, bundle_dir / DATA_IMAGE, data_size),
    ]
    for r in regions:
        if r.path is None:
            if require_binaries:
                raise FlashError(f"{r.what}: no file given")
            continue
        if not r.path.is_file():
            if require_binaries:
                raise FlashError(f"{r.what}: {r.path} does not exist")
            continue
        if r.size == 0 or r.size > r.limit:
            raise FlashError(f"{r.what} {r.path}: {r.size} bytes does not fit the {r.limit} bytes at {r.offset:#x}")
        if r.what in ("app", "bootloader"):
            try:
                check_firmware_image(r.path, r.data, board.chip, r.what)
            except ImageError as e:
                raise FlashError(str(e)) from None
    return regions


def describe_plan(board: Board, regions: list[Region], port: str, baud: int, stub: bool, erase: bool) -> str:
    lines = [
        f"board {board.name}: chip {board.chip}, flash {board.flash_size} {board.flash_mode} "
        f"{board.flash_freq}, port {port}, baud {baud}, {'stub' if stub else 'ROM (no stub)'}"
        f"{', erase all first' if erase else ''}",
        f"{'offset':>10}  {'size':>9}  {'sha256':64}  file",
    ]
    for r in regions:
        where = f"{r.what}: {r.path}" if r.present else f"{r.what}: (not built yet) {r.path or ''}"
        lines.append(f"{r.offset:#010x}  {r.size:>9}  {r.sha256}  {where}")
    return "\n".join(lines)
