"""Fixtures: valid ESP app/bootloader images built with esptool's own image classes (so
esptool and `k32 flash` check them exactly as they check PlatformIO output), a bundle,
and a ROM double served on socket://."""
import os
import subprocess
import sys

import pytest
from esptool.bin_image import ELFSection, ESP32FirmwareImage, ESP32S3FirmwareImage
from esptool.targets import CHIP_DEFS

from k32.boards import flash_size_bytes, load_board
from k32.bundle import build as build_bundle
from k32.esprom.rom import RomDouble
from k32.esprom.server import SocketServer

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
        img.segments = [ELFSection(b".flash.rodata", cls.DROM_MAP_START + 0x20, body, 0),
                        ELFSection(b".dram0.data", dram + 0x100, b"\x11" * 64, 0)]
    else:
        img.segments = [ELFSection(b".dram0.data", dram + 0x5000, body, 0)]
    img.entrypoint = dram + 0x100
    img.save(str(path))
    return path


@pytest.fixture
def board_files(tmp_path):
    """board name -> (bundle dir, app, bootloader)."""
    def make(board_name):
        d = tmp_path / board_name
        d.mkdir(exist_ok=True)
        bundle = d / "bundle"
        build_bundle(board_name, bundle)
        return bundle, make_image(board_name, d / "firmware.bin", "app"), make_image(board_name, d / "bootloader.bin", "bootloader")
    return make


@pytest.fixture
def rom(tmp_path):
    """chip -> (RomDouble, socket url); the double's flash image is tmp/flash-<chip>.img."""
    servers = []

    def start(chip, flash_size="8MB"):
        double = RomDouble(chip, str(tmp_path / f"flash-{chip}.img"), flash_size_bytes(flash_size))
        server = SocketServer(double).start()
        servers.append((server, double))
        return double, server.url
    yield start
    for server, double in servers:
        server.stop()
        double.close()


def k32(*args, timeout=300):
    """Runs the real `k32` CLI in a subprocess (esptool keeps global state)."""
    return subprocess.run([sys.executable, "-m", "k32.cli", *args], capture_output=True,
                          text=True, timeout=timeout)
