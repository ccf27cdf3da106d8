"""`k32 flash`: the flash plan (what goes where, from the board's partition table) and
writing it with esptool's Python API."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from k32.boards import Board
from k32.boards.partition_table import SUBTYPES, TYPES, parse_binary
from k32.bundle import DATA_IMAGE, PARTITION_TABLE, load_manifest

from .images import ImageError, check_firmware_image

ROM_BAUD = 115200


class FlashError(RuntimeError):
    pass


@dataclass(frozen=True)
class Region:
    what: str
    offset: int
    path: Path | None        # None in a dry run when the app is not built yet
    limit: int               # bytes available at offset

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


def make_plan(board: Board, bundle_dir: Path, app: Path | None, bootloader: Path | None,
              require_binaries: bool = True) -> list[Region]:
    """The regions to write, checked: images valid for the chip, each fits its place, the
    bundle belongs to this board. Offsets of app and data come from the bundle's table."""
    if not board.flashable:
        raise FlashError(f"board {board.name!r} is the simulator; there is nothing to flash")
    try:
        manifest = load_manifest(bundle_dir)
    except Exception as e:
        raise FlashError(str(e)) from None
    if manifest.get("board") != board.name or manifest.get("flashSize") != board.flash_size:
        raise FlashError(f"bundle {bundle_dir} is for {manifest.get('board')}/{manifest.get('flashSize')}, "
                         f"not {board.name}/{board.flash_size}; rebuild it with k32 bundle")
    table = bundle_dir / PARTITION_TABLE
    try:
        rows = parse_binary(table.read_bytes())
    except ValueError as e:
        raise FlashError(f"{table}: {e}") from None
    app_off, app_size = _partition_offset(rows, "app")
    data_off, data_size = _partition_offset(rows, "data", name=board.data_partition)
    first_part = min(off for _n, _t, _s, off, _z in rows)
    regions = [
        Region("bootloader", board.bootloader_offset, bootloader,
               board.partition_table_offset - board.bootloader_offset),
        Region("partition-table", board.partition_table_offset, table,
               first_part - board.partition_table_offset),
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


def describe_plan(board: Board, regions: list[Region], port: str, baud: int, stub: bool,
                  erase: bool) -> str:
    lines = [f"board {board.name}: chip {board.chip}, flash {board.flash_size} {board.flash_mode} "
             f"{board.flash_freq}, port {port}, baud {baud}, {'stub' if stub else 'ROM (no stub)'}"
             f"{', erase all first' if erase else ''}",
             f"{'offset':>10}  {'size':>9}  {'sha256':64}  file"]
    for r in regions:
        where = f"{r.what}: {r.path}" if r.present else f"{r.what}: (not built yet) {r.path or ''}"
        lines.append(f"{r.offset:#010x}  {r.size:>9}  {r.sha256}  {where}")
    return "\n".join(lines)


def write(board: Board, regions: list[Region], port: str, baud: int, stub: bool, erase: bool,
          connect_attempts: int = 3) -> None:
    """Connect, check the chip, write every region compressed and verified, reset."""
    import esptool
    import serial
    from esptool.util import FatalError

    if erase and not stub:
        raise FlashError("--erase needs the flasher stub (the ROM cannot erase the whole chip); drop --no-stub")
    if "://" not in port and not os.path.exists(port):
        raise FlashError(f"serial port {port} does not exist")
    esp = None
    try:
        esp = esptool.detect_chip(port, ROM_BAUD, "default-reset", connect_attempts=connect_attempts)
        want = esptool.CHIP_DEFS[board.chip].CHIP_NAME
        if esp.CHIP_NAME != want:
            raise FlashError(f"{port} has an {esp.CHIP_NAME}, board {board.name!r} needs an {want}; wrong --board?")
        if stub:
            esp = esptool.run_stub(esp)
        if baud != ROM_BAUD:
            esp.change_baud(baud)
        esptool.attach_flash(esp)
        if erase:
            esptool.erase_flash(esp)
        esptool.write_flash(esp, [(r.offset, str(r.path)) for r in regions],
                            flash_mode=board.flash_mode, flash_freq=board.flash_freq,
                            flash_size=board.flash_size, compress=True)
        esptool.verify_flash(esp, [(r.offset, str(r.path)) for r in regions],
                             flash_mode=board.flash_mode, flash_freq=board.flash_freq,
                             flash_size=board.flash_size)
        esptool.reset_chip(esp, "hard-reset")
    except serial.SerialException as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "busy" in msg.lower() or "lock" in msg.lower():
            raise FlashError(f"serial port {port} is busy (another program has it open): {msg}") from None
        raise FlashError(f"serial port {port}: {msg}") from None
    except FatalError as e:
        raise FlashError(f"esptool: {str(e).splitlines()[0]}") from None
    finally:
        if esp is not None and getattr(esp, "_port", None) is not None:
            try:
                esp._port.close()
            except Exception:
                pass
