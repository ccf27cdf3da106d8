"""Helpers for the flash tests: valid ESP app/bootloader images built with esptool's own
image classes (so esptool and `k32 flash` check them exactly as they check PlatformIO
output), and the real `k32` CLI in a subprocess."""

import os
import subprocess
import sys

from esptool.bin_image import ELFSection, ESP32FirmwareImage, ESP32S3FirmwareImage
from esptool.targets import CHIP_DEFS

from k32.boards import load_board

IMAGE_CLASS = {"esp32": ESP32FirmwareImage, "esp32s3": ESP32S3FirmwareImage}
FLASH_MODE_CODE = {"qio": 0, "qout": 1, "dio": 2, "dout": 3}


def make_image(board_name: str, path, kind: str, payload: bytes = b""):
    board = load_board(board_name)
    cls = CHIP_DEFS[board.chip]
    img = IMAGE_CLASS[board.chip]()
    img.chip_id = cls.IMAGE_CHIP_ID
    img.flash_mode = FLASH_MODE_CODE[board.flash_mode]
    img.flash_size_freq = cls.FLASH_SIZES[board.flash_size] + cls.FLASH_FREQUENCY[board.flash_freq]
    dram = next(start for start, _end, name in cls.MEMORY_MAP if name == "DRAM")
    body = (payload or os.urandom(3000)) + bytes(range(256)) * 8
    if kind == "app":
        img.segments = [
            ELFSection(b".flash.rodata", cls.DROM_MAP_START + 0x20, body, 0),
            ELFSection(b".dram0.data", dram + 0x100, b"\x11" * 64, 0),
        ]
    else:
        img.segments = [ELFSection(b".dram0.data", dram + 0x5000, body, 0)]
    img.entrypoint = dram + 0x100
    img.save(str(path))
    return path


def flash_args(board_name: str, files, *extra: str) -> list[str]:
    """`k32 flash` arguments for board_name with the (bundle, app, bootloader) of the
    board_files fixture, without a build, then `extra` (--port, --no-stub, --dry-run ...)."""
    bundle, app, boot = files
    return [
        "flash",
        "--board",
        board_name,
        "--no-build",
        "--app",
        str(app),
        "--bootloader",
        str(boot),
        "--data-bundle",
        str(bundle),
        *extra,
    ]


def k32(*args, timeout=300):
    """Runs the real `k32` CLI in a subprocess (esptool keeps global state)."""
    return subprocess.run([sys.executable, "-m", "k32.cli", *args], capture_output=True, text=True, timeout=timeout)
